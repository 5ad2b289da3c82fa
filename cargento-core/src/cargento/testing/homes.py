"""Fake harness homes, golden-store copies, and tree snapshots for the no-write check."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from cargento.cache import HarnessCache
from cargento.models import HarnessContext
from cargento.processes import ProcessTable, StaticProcesses
from cargento.testing.testdata import MissingTestData, captures_root, golden_root, require_golden_root

__all__ = [
    "build_tree",
    "captures_root",
    "copy_golden",
    "golden_root",
    "install_golden",
    "make_context",
    "snapshot_tree",
    "write_jsonl",
]

Entry = str | bytes | dict[str, Any] | list[Any] | None


def write_jsonl(path: Path, records: list[Any], *, newline_at_end: bool = True) -> Path:
    """Write *records* (dicts, or raw str/bytes lines) as JSON lines."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for record in records:
        if isinstance(record, bytes):
            lines.append(record)
        elif isinstance(record, str):
            lines.append(record.encode())
        else:
            lines.append(orjson.dumps(record))
    data = b"\n".join(lines) + (b"\n" if newline_at_end and lines else b"")
    path.write_bytes(data)
    return path


def build_tree(root: Path, spec: Mapping[str, Entry], *, mtime: float | None = None) -> Path:
    """Create files under *root* from ``{relative path: content}``.

    Content is ``str``/``bytes`` (written as is), a ``list`` (JSON lines), a ``dict`` (one JSON
    document) or ``None`` (an empty directory). *mtime* stamps every file created.
    """
    for rel, content in spec.items():
        path = root / rel
        if content is None:
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, list):
            write_jsonl(path, content)
        elif isinstance(content, dict):
            path.write_bytes(orjson.dumps(content))
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        if mtime is not None:
            os.utime(path, (mtime, mtime))
    return root


def snapshot_tree(root: Path) -> dict[str, tuple[int, int, str]]:
    """Every file and directory below *root* with size, mtime and content hash.

    Compare two snapshots to prove a reader created, wrote, renamed or deleted nothing
    (``-wal``, ``-shm`` and journal files included).
    """
    out: dict[str, tuple[int, int, str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            p = Path(dirpath) / name
            out[str(p.relative_to(root)) + "/"] = (0, 0, "dir")
        for name in filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "special"
            out[str(p.relative_to(root))] = (st.st_size, st.st_mtime_ns, digest)
    return out


def copy_golden(scenario: str, dest: Path) -> tuple[Path, dict[str, Any]]:
    """Copy one golden scenario (``claude-code-2.1.332/A-single-turn``) to *dest*.

    The golden stores are found by :mod:`cargento.testing.testdata` (``testdata/golden`` in the
    checkout, or ``$CARGENTO_GOLDEN``). Each store file of the copy gets its recorded absolute
    mtime back from the scenario's ``_snapshot.json``, whatever the source's own mtimes are (a
    git checkout gives every file the checkout time). Returns the copied home and its
    ``truth.json``; evaluate the board as of ``truth["snapshot_at"]``. The source tree is never
    modified.
    """
    src = _golden_scenario(scenario)
    home = dest / scenario.replace("/", "__")
    shutil.copytree(src, home, copy_function=shutil.copy2)
    _restore_recorded(home, src)
    truth: dict[str, Any] = json.loads((home / "truth.json").read_text())
    return home, truth


def install_golden(scenario: str, home: Path, store: str) -> dict[str, Any]:
    """Copy the store directory *store* (``".copilot"``, ``".local"``) of one golden scenario into
    an existing *home*, with the recorded mtimes, and return the scenario's ``truth.json``.

    For a contract's ``make_home``: the home then holds only the store the real CLI wrote.
    """
    src = _golden_scenario(scenario)
    shutil.copytree(src / store, home / store, copy_function=shutil.copy2)
    _restore_recorded(home, src)
    truth: dict[str, Any] = json.loads((src / "truth.json").read_text())
    return truth


def _golden_scenario(scenario: str) -> Path:
    root = require_golden_root()
    src = root / scenario
    if not (src / "_snapshot.json").is_file():
        raise MissingTestData(f"{src} is not a golden scenario (it has no _snapshot.json)")
    return src


def _restore_recorded(home: Path, src: Path) -> None:
    """Make the copy under *home* writable by its owner and give each file the scenario's recorded
    mtime (from *src*'s ``_snapshot.json``)."""
    for dirpath, _dirs, files in os.walk(home):
        os.chmod(dirpath, 0o755)
        for f in files:
            os.chmod(os.path.join(dirpath, f), 0o644)
    snap = json.loads((src / "_snapshot.json").read_text())
    for entry in snap["files"]:
        p = home / entry["path"]
        if p.exists():
            os.utime(p, (entry["mtime"], entry["mtime"]))


def make_context(
    home: Path,
    *,
    env: Mapping[str, str] | None = None,
    now: datetime | float | None = None,
    window_s: float | None = 24 * 3600.0,
    platform: str = "linux",
    processes: ProcessTable | None = None,
    cache: HarnessCache | None = None,
) -> HarnessContext:
    """A hook context over a fake *home* with a clean environment (no relocation variables)."""
    if isinstance(now, int | float):
        moment = datetime.fromtimestamp(float(now), UTC)
    else:
        moment = now or datetime.now(UTC)
    base = {
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
    }
    base.update(env or {})
    return HarnessContext(
        now=moment,
        env=base,
        home=home,
        platform=platform,
        window_s=window_s,
        cache=HarnessCache() if cache is None else cache,
        processes=processes or StaticProcesses(),
    )
