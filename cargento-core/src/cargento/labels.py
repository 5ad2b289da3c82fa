"""Project labels and one-line text cleaning shared by every plugin."""

from __future__ import annotations

import functools
import re
from pathlib import PurePosixPath, PureWindowsPath

__all__ = ["clip", "one_line", "project_label"]

_WS = re.compile(r"\s+")


def _parts(path: str) -> tuple[list[str], bool]:
    if re.match(r"^[A-Za-z]:[\\/]", path) or path.startswith("\\\\"):
        p = PureWindowsPath(path)
        return [x for x in p.parts[1:] if x not in ("\\", "/")], True
    return [x for x in PurePosixPath(path).parts if x != "/"], path.startswith("/")


@functools.lru_cache(maxsize=4096)
def project_label(cwd: str | None, home: str | None = None) -> str | None:
    """The project label: the last two path segments of an absolute working directory.

    A cwd equal to the home directory is ``(home)``; a cwd inside it is taken relative to it
    first (so ``~/proj`` is ``proj``). A relative path, or one containing ``..``, has no label.
    """
    if not cwd or not isinstance(cwd, str):
        return None
    cwd = cwd.strip()
    if cwd.startswith("file://"):
        cwd = cwd[len("file://") :]
    parts, absolute = _parts(cwd)
    if not absolute or ".." in parts:
        return None
    if home:
        hparts, _ = _parts(home)
        windows = bool(re.match(r"^[A-Za-z]:", home))

        def fold(items: list[str]) -> list[str]:
            return [x.lower() for x in items] if windows else items

        if fold(parts) == fold(hparts):
            return "(home)"
        if hparts and fold(parts[: len(hparts)]) == fold(hparts):
            parts = parts[len(hparts) :]
    if not parts:
        return "/"
    return "/".join(parts[-2:])


def one_line(text: str | None) -> str:
    """Collapse every run of white space to one space and strip."""
    if not text:
        return ""
    return _WS.sub(" ", text).strip()


def clip(text: str | None, limit: int = 80) -> str:
    """One line of at most *limit* characters, cut at a word boundary with an ellipsis."""
    line = one_line(text)
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"
