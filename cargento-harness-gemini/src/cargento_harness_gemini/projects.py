"""A project folder's working directory: ``projects.json`` first, ``.project_root`` beside it.

Gemini CLI 0.61 names ``tmp/<project>/`` with a short name and records the mapping from the
working directory in ``~/.gemini/projects.json`` (``{"projects": {cwd: short name}}``); the
folder also holds a ``.project_root`` file with the same path. Older builds named the folder
with a hash of the path and wrote neither. Both files are read bounded and cached by stat.
"""

from __future__ import annotations

import os
from pathlib import Path

from cargento.models import HarnessContext
from cargento.readers import open_regular, read_json_object

__all__ = ["MAX_BYTES", "cwd_of_folder"]

MAX_BYTES = 1024 * 1024


def _stat_key(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns)


def _read(path: Path, limit: int) -> bytes | None:
    try:
        with open_regular(path) as fh:
            data = fh.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


def folders(root: Path, ctx: HarnessContext) -> dict[str, str]:
    """``projects.json`` inverted: project folder name to working directory."""
    path = root / "projects.json"
    stamp = _stat_key(path)
    key = f"projects:{path}"
    cached = ctx.cache.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]  # type: ignore[no-any-return]
    out: dict[str, str] = {}
    doc = read_json_object(path, max_bytes=MAX_BYTES) if stamp is not None else None
    if doc is not None:
        table = doc.get("projects")
        if isinstance(table, dict):
            for cwd, short in table.items():
                if isinstance(short, str) and short and isinstance(cwd, str) and cwd:
                    out.setdefault(short, cwd)
    ctx.cache.set(key, (stamp, out))
    return out


def _project_root(folder: Path, ctx: HarnessContext) -> str | None:
    path = folder / ".project_root"
    stamp = _stat_key(path)
    if stamp is None:
        return None
    key = f"root:{path}"
    cached = ctx.cache.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]  # type: ignore[no-any-return]
    data = _read(path, 4096)
    text = None
    if data is not None:
        try:
            line = data.decode("utf-8").strip()
        except UnicodeDecodeError:
            line = ""
        text = line if line and "\n" not in line and os.path.isabs(line) else None
    ctx.cache.set(key, (stamp, text))
    return text


def cwd_of_folder(root: Path, folder: Path, ctx: HarnessContext) -> str | None:
    """The working directory of ``tmp/<folder>``, when the store records one."""
    return folders(root, ctx).get(folder.name) or _project_root(folder, ctx)
