"""Redaction covers the credential families of maintained rule sets, and leaves alone what a
board is full of: commit hashes, UUIDs, base64 images, paths, model ids and prose.

Both directions are generated with hypothesis (a credential of each family inside random
text is cut out; generated non-secrets come back unchanged) and pinned with examples.
"""

from __future__ import annotations

import base64
import string

import pytest
from cargento.redact import FAMILIES, MARK, redact, redact_tree
from cargento.testing.redactions import record_redactions
from hypothesis import given, settings
from hypothesis import strategies as st

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"


def chars(alphabet: str, n: int, m: int | None = None) -> st.SearchStrategy[str]:
    return st.text(alphabet, min_size=n, max_size=m if m is not None else n)


def joined(*parts: st.SearchStrategy[str] | str) -> st.SearchStrategy[str]:
    return st.tuples(*(st.just(p) if isinstance(p, str) else p for p in parts)).map("".join)


#: One generator per family: (the text to embed, the secret part that must not survive).
SECRETS: dict[str, st.SearchStrategy[tuple[str, str]]] = {
    "anthropic": chars(URLSAFE, 40, 90).map(lambda v: ("sk-ant-api03-" + v, v)),
    "openai project": chars(URLSAFE, 40, 90).map(lambda v: ("sk-proj-" + v, v)),
    "stripe live": st.tuples(st.sampled_from(["sk", "rk"]), chars(ALNUM, 24, 99)).map(
        lambda t: (f"{t[0]}_live_{t[1]}", t[1])
    ),
    "stripe test": chars(ALNUM, 24, 40).map(lambda v: ("sk_test_" + v, v)),
    "hugging face": chars(ALNUM, 34).map(lambda v: ("hf_" + v, v)),
    "github": st.tuples(st.sampled_from("pousr"), chars(ALNUM, 36)).map(lambda t: (f"gh{t[0]}_{t[1]}", t[1])),
    "github fine-grained": chars(ALNUM + "_", 82).map(lambda v: ("github_pat_" + v, v)),
    "gitlab": chars(URLSAFE, 20).map(lambda v: ("glpat-" + v, v)),
    "npm": chars(ALNUM, 36).map(lambda v: ("npm_" + v, v)),
    "pypi": chars(URLSAFE, 60, 120).map(lambda v: ("pypi-AgEIcHlwaS5vcmc" + v, v)),
    "slack": chars(ALNUM, 24).map(lambda v: ("xoxb-123456789012-123456789012-" + v, v)),
    "sendgrid": st.tuples(chars(URLSAFE, 22), chars(URLSAFE, 43)).map(lambda t: (f"SG.{t[0]}.{t[1]}", t[1])),
    "mailgun": chars(ALNUM, 32).map(lambda v: ("key-" + v, v)),
    "aws": chars(string.ascii_uppercase + string.digits, 16).map(lambda v: ("AKIA" + v, v)),
    "google": chars(URLSAFE, 35).map(lambda v: ("AIza" + v, v)),
    "azure account key": chars(B64, 86).map(
        lambda v: (f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={v}==;", v)
    ),
    "jwt": st.tuples(chars(URLSAFE, 20, 40), chars(URLSAFE, 20, 60), chars(URLSAFE, 20, 43)).map(
        lambda t: (f"eyJ{t[0]}.eyJ{t[1]}.{t[2]}", t[2])
    ),
    "url password": st.tuples(
        st.sampled_from(["postgres", "mysql", "https", "redis", "amqp"]),
        chars(string.ascii_lowercase, 3, 10),
        chars(ALNUM + "!$*", 6, 30),
    ).map(lambda t: (f"{t[0]}://{t[1]}:{t[2]}@db.internal:5432/app", f":{t[2]}@")),
    "basic auth": chars(ALNUM, 6, 20).map(
        lambda v: (
            "Authorization: Basic " + base64.b64encode(f"user:{v}".encode()).decode(),
            base64.b64encode(f"user:{v}".encode()).decode(),
        )
    ),
    "password option": st.tuples(
        st.sampled_from(["--password ", "--password=", "--db-password ", "--api-key="]), chars(ALNUM + "!#%", 6, 30)
    ).map(lambda t: ("deploy " + t[0] + t[1] + " --verbose", t[1])),
    "pem": chars(B64, 64, 300).map(
        lambda v: (f"-----BEGIN RSA PRIVATE KEY-----\n{v}\n-----END RSA PRIVATE KEY-----", v)
    ),
    "pgp": chars(B64, 64, 300).map(
        lambda v: (f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{v}\n-----END PGP PRIVATE KEY BLOCK-----", v)
    ),
    "assignment": st.tuples(
        st.sampled_from(["API_KEY", "client_secret", "DB_PASSWORD", "access_token"]), chars(ALNUM, 12, 40)
    ).map(lambda t: (f"{t[0]}={t[1]}", t[1])),
}

# Prose around a secret: words and punctuation, never glued to the secret itself.
PROSE = st.lists(
    st.sampled_from(["the", "deploy", "then", "run", "with", "key", "token", "value", "now", "ok", ",", "."]),
    max_size=8,
).map(" ".join)


@pytest.mark.parametrize("family", sorted(SECRETS))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_a_secret_of_every_family_is_cut_out_of_any_text(family: str, data: st.DataObject) -> None:
    secret, value = data.draw(SECRETS[family])
    before, after = data.draw(PROSE), data.draw(PROSE)
    out = redact(f"{before} {secret} {after}")
    assert value not in out and MARK in out
    assert redact(out) == out


NON_SECRETS: dict[str, st.SearchStrategy[str]] = {
    "commit hash": chars(HEX, 40),
    "short hash": chars(HEX, 7, 12),
    "sha256": chars(HEX, 64),
    "uuid": st.uuids().map(str),
    "png data uri": st.binary(min_size=16, max_size=2000).map(
        lambda b: "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + b).decode()
    ),
    "path": st.lists(chars(string.ascii_lowercase + string.digits + "._-", 1, 20), min_size=1, max_size=8).map(
        lambda parts: "/" + "/".join(parts)
    ),
    "model id": st.sampled_from(
        [
            "claude-sonnet-4-5-20250929",
            "gpt-5-codex",
            "gemini-2.5-pro",
            "claude-opus-4-1",
            "o4-mini",
            "grok-code-fast-1",
        ]
    ),
    "prose": st.lists(
        st.sampled_from(
            [
                "please",
                "fix",
                "the",
                "failing",
                "tests",
                "in",
                "tokenizer.py",
                "and",
                "rotate",
                "logs",
                "basic",
                "functionality",
                "password",
                "reset",
                "flow",
                "should",
                "work",
                "secret",
                "santa",
                "api",
                "keys",
                "are",
                "documented",
            ]
        ),
        max_size=20,
    ).map(" ".join),
    "counts": st.integers(0, 10**7).map(lambda n: f"max_tokens={n} output_tokens: {n}"),
}


@pytest.mark.parametrize("kind", sorted(NON_SECRETS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_what_a_board_is_full_of_is_left_alone(kind: str, data: st.DataObject) -> None:
    text = data.draw(NON_SECRETS[kind])
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("export STRIPE=sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_…REDACTED"),
        ("rk_live_51H8abcdefghijklmnopqrstu", "rk_live_…REDACTED"),
        ("HF_TOKEN hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "hf_…REDACTED"),
        ("postgres://app:hunter2@db:5432/x", "postgres://app:…REDACTED@db:5432/x"),
        ("curl -H 'Authorization: Basic dXNlcjpodW50ZXIy' https://x", "Authorization: Basic …REDACTED"),
        ("psql --password hunter2 -h db", "--password …REDACTED -h db"),
        ("tool --password=hunter2", "--password=…REDACTED"),
        ("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", "SG.…REDACTED"),
        ("MAILGUN key-3ax6xnjp29jd6fds4gc373sgvjxteol0", "key-…REDACTED"),
        (
            "AccountName=a;AccountKey=lJzRc1YdHaAA2KCNJJ1tkYwF/+mKK6Ygw0NGe170Xu592euJv2wYUtBlV8z+qnlcNQSnIYVTkLWntUO1F8j8rQ==;",
            "AccountKey=…REDACTED",
        ),
        ("-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----", "…REDACTED"),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
            "…REDACTED",
        ),
        ("xoxp-123456789012-123456789012-abcdefabcdefabcdefabcdef", "xoxp-…REDACTED"),
        ("ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ", "ghp_…REDACTED"),
        ("glpat-abcdefghijklmnopqrst", "glpat-…REDACTED"),
        ("npm_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ", "npm_…REDACTED"),
        ("pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0NTYAAh", "pypi-…REDACTED"),
        (
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "eyJ…REDACTED",
        ),
        (
            "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
            "hooks.slack.com/services/…REDACTED",
        ),
        ("whsec_abcdefghijklmnopqrstuvwxyz012345", "whsec_…REDACTED"),
    ],
)
def test_examples_of_each_family(text: str, kept: str) -> None:
    out = redact(text)
    assert kept in out
    assert MARK in out


@pytest.mark.parametrize(
    "text",
    [
        "git show 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        "session 123e4567-e89b-12d3-a456-426614174000 resumed",
        "https://example.com:8080/path@section",
        "git@github.com:org/repo.git",
        "ssh://git@host:22/repo",
        "mkdir -p /tmp/x && ls --no-password --verbose",
        "the basic functionality works; a password reset flow",
        "claude-sonnet-4-5-20250929 via /Users/me/.claude/projects/-w-app",
        "PWD=/w/proj OLDPWD=/w",
        "max_token=4096",
        "pk_live_abcdefghijklmnopqrstuvwx",  # a publishable key is public by design
    ],
)
def test_examples_that_are_not_secrets(text: str) -> None:
    assert redact(text) == text


def test_every_family_has_a_name_and_most_have_a_generated_test() -> None:
    names = [f.name for f in FAMILIES]
    assert len(names) == len(set(names))
    assert len(SECRETS) >= 20


_TEXTS = st.sampled_from(
    ["working", "claude", "api_key=abcd1234efgh", "sk-ant-" + "a" * 30, "see https://u:pw@example.com/x", ""]
) | st.text(max_size=30)
_TREES = st.recursive(
    _TEXTS | st.integers() | st.none() | st.booleans(),
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.tuples(inner, inner)
        | st.dictionaries(st.sampled_from(["a", "b", "token", "text"]), inner, max_size=4)
    ),
    max_leaves=30,
)


def _each_string(value: object) -> object:
    """The tree with :func:`redact` applied to every string one by one (the definition)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _each_string(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_each_string(v) for v in value]
    return value


@settings(max_examples=300, deadline=None)
@given(_TREES)
def test_redact_tree_is_redact_on_every_string_repeated_or_not(tree: object) -> None:
    assert redact_tree(tree) == _each_string(tree)


def test_redact_tree_redacts_each_distinct_string_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import cargento.redact as module

    calls = record_redactions(monkeypatch)
    rows = [{"state": "working", "harness": "claude", "text": f"row {i} token=abcd{i}efgh"} for i in range(50)]
    out = module.redact_tree({"sessions": rows})
    assert sorted(calls) == sorted({"working", "claude", *(r["text"] for r in rows)})
    assert out["sessions"][7]["text"] == f"row 7 token={MARK}"
