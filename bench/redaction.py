"""How Cargento's redaction patterns compare with detect-secrets on a realistic board's text.

Not a test: the evaluation behind the decision written at the top of ``cargento/redact.py``
(issue 13). It builds a board of synthetic sessions (``stores.populate``, the benchmark's
stores), takes every string of its JSON (what ``/api/data`` redacts), and measures, for
Cargento's :func:`cargento.redact.redact` and for detect-secrets' line scanner:

- the time to go over every string once (median of several passes);
- how many strings of a corpus of non-secrets (commit hashes, UUIDs, base64 PNG data, paths,
  model ids, prose) each one flags (false positives);
- how many of a corpus of credentials of known families each one finds (recall), and whether
  it can say where in the text the secret is (detect-secrets gives the value, not the span).

detect-secrets is not a dependency: install it beside Cargento to run the comparison
(``pip install detect-secrets``); without it only Cargento's figures are printed.
Run: ``python bench/redaction.py [--per-harness N]``.
"""

from __future__ import annotations

import argparse
import base64
import os
import random
import statistics
import string
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import orjson  # noqa: E402
import stores  # noqa: E402
from cargento.board import BoardBuilder, board_json  # noqa: E402
from cargento.plugins import load_registry  # noqa: E402
from cargento.processes import StaticProcesses  # noqa: E402
from cargento.redact import redact  # noqa: E402


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def board_strings(per_harness: int) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        now = datetime.now(UTC)
        stores.populate(home, per_harness, now)
        env = {
            "HOME": str(home),
            "XDG_DATA_HOME": str(home / ".local/share"),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "CARGENTO_HOME": str(Path(tmp) / "state"),
        }
        builder = BoardBuilder(load_registry(env={}), env=env, home=home, processes=StaticProcesses())
        board = builder.build(all_sessions=True)
        return list(strings(orjson.loads(board_json(board))))


def negatives(rng: random.Random, n: int) -> list[str]:
    out: list[str] = []
    for i in range(n):
        kind = i % 6
        if kind == 0:
            out.append(f"git show {rng.getrandbits(160):040x}")
        elif kind == 1:
            out.append(f"session {uuid.UUID(int=rng.getrandbits(128), version=4)} resumed")
        elif kind == 2:
            out.append("data:image/png;base64," + base64.b64encode(rng.randbytes(rng.randint(64, 3000))).decode())
        elif kind == 3:
            out.append(
                "/"
                + "/".join("".join(rng.choices(string.ascii_lowercase + "._-", k=rng.randint(3, 12))) for _ in range(5))
            )
        elif kind == 4:
            out.append(rng.choice(["claude-sonnet-4-5-20250929", "gpt-5-codex", "gemini-2.5-pro", "o4-mini"]))
        else:
            out.append(
                " ".join(
                    rng.choices(
                        ["fix", "the", "tests", "basic", "password", "reset", "token", "count", "api", "docs"], k=12
                    )
                )
            )
    return out


def positives(rng: random.Random) -> list[tuple[str, str]]:
    def r(alphabet: str, k: int) -> str:
        return "".join(rng.choices(alphabet, k=k))

    an = string.ascii_letters + string.digits
    return [
        ("anthropic", "sk-ant-api03-" + r(an, 80)),
        ("openai", "sk-proj-" + r(an, 60)),
        ("stripe live", "sk_live_" + r(an, 24)),
        ("stripe restricted", "rk_live_" + r(an, 24)),
        ("hugging face", "hf_" + r(an, 34)),
        ("github", "ghp_" + r(an, 36)),
        ("gitlab", "glpat-" + r(an, 20)),
        ("npm", "npm_" + r(an, 36)),
        ("slack", "xoxb-123456789012-123456789012-" + r(an, 24)),
        ("sendgrid", f"SG.{r(an, 22)}.{r(an, 43)}"),
        ("mailgun", "key-" + r(string.hexdigits.lower()[:16], 32)),
        ("aws", "AKIA" + r(string.ascii_uppercase + string.digits, 16)),
        ("azure", "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=" + r(an, 86) + "==;"),
        ("jwt", f"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx{r(an, 10)}.{r(an, 43)}"),
        ("pem", "-----BEGIN RSA PRIVATE KEY-----\n" + r(an, 64) + "\n-----END RSA PRIVATE KEY-----"),
        ("pgp", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + r(an, 64) + "\n-----END PGP PRIVATE KEY BLOCK-----"),
        ("url password", f"postgres://app:{r(an, 14)}@db:5432/x"),
        ("basic auth", "Authorization: Basic " + base64.b64encode(b"user:" + r(an, 12).encode()).decode()),
        ("password option", f"psql --password {r(an, 14)} -h db"),
        ("assignment", f"API_KEY={r(an, 32)}"),
    ]


def timed(fn: Callable[[], object], runs: int = 5) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def ours(texts: list[str]) -> list[bool]:
    return [redact(t) != t for t in texts]


def detect_secrets_scanner() -> Callable[[list[str]], list[bool]] | None:
    """detect-secrets' normal file scan (its default plugins and filters, as ``detect-secrets
    scan`` runs them) over the texts, one per line of a temporary file; a text is flagged when
    any secret is reported on its line(s)."""
    try:
        from detect_secrets import SecretsCollection
        from detect_secrets.settings import default_settings
    except ImportError:
        return None

    def scan(texts: list[str]) -> list[bool]:
        owner: list[int] = []
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
            for i, text in enumerate(texts):
                lines = text.splitlines() or [""]
                fh.write("\n".join(lines) + "\n")
                owner.extend([i] * len(lines))
        try:
            collection = SecretsCollection()
            with default_settings():
                collection.scan_file(fh.name)
            flagged = [False] * len(texts)
            for _, secret in collection:
                flagged[owner[secret.line_number - 1]] = True
            return flagged
        finally:
            os.unlink(fh.name)

    return scan


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-harness", type=int, default=20)
    args = parser.parse_args(argv)
    rng = random.Random(13)
    board = board_strings(args.per_harness)
    neg = negatives(rng, 600)
    pos = positives(rng)
    size = sum(len(s) for s in board)
    print(f"board: {len(board)} strings, {size / 1024:.0f} KiB ({args.per_harness} sessions per harness)")
    print(
        f"cargento  : {timed(lambda: ours(board)):8.1f} ms over the board;"
        f" false positives {sum(ours(neg))}/{len(neg)}; recall {sum(ours([p for _, p in pos]))}/{len(pos)}"
    )
    missed = [name for (name, p), hit in zip(pos, ours([p for _, p in pos]), strict=True) if not hit]
    if missed:
        print("  missed:", ", ".join(missed))
    scan = detect_secrets_scanner()
    if scan is None:
        print("detect-secrets: not installed (pip install detect-secrets to compare)")
        return 0
    flagged = scan(neg)
    kinds = ["commit hash", "uuid", "png data", "path", "model id", "prose"]
    by_kind = {k: sum(f for i, f in enumerate(flagged) if i % 6 == n) for n, k in enumerate(kinds)}
    found = scan([p for _, p in pos])
    print(
        f"detect-secrets: {timed(lambda: scan(board), runs=3):8.1f} ms over the board;"
        f" false positives {sum(flagged)}/{len(neg)} {by_kind}; recall {sum(found)}/{len(pos)}"
    )
    print("  missed:", ", ".join(name for (name, _), hit in zip(pos, found, strict=True) if not hit) or "none")
    print("  (a hit names the value, not its span: redacting needs the value searched for again)")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
