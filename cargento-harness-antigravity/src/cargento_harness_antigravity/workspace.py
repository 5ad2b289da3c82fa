"""Which workspace a conversation runs in, and its latest prompt, from the CLI's own files.

``cache/last_conversations.json`` maps a workspace path to its conversation id and is the
primary source. The CLI logs (``log/cli-*.log``, glog style) are the fallback for the workspace
and the only source of prompt text::

    I0801 10:00:00.0 server.go:237] Creating CLI server backend: product=antigravity workspaceDirs=[/w/proj /w/lib] ...
    I0801 10:00:05.0 server.go:917] Created conversation <uuid>
    I0801 10:01:00.0 input_loop.go:34] HandleUserInput called with text: "show open issues"
    I0801 10:01:00.1 conversation_manager.go:499] Forwarding user message to conversation <uuid> (items=1, media=0)

``workspaceDirs`` (space separated, the first is primary) binds the conversations created or
streamed after it; a ``HandleUserInput`` text becomes the prompt of the next conversation a user
message is forwarded to. Each log is read bounded (its head and its tail) and cached by stat.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import attrs
import orjson
from cargento.models import HarnessContext
from cargento.readers import open_regular, read_json_object, scan_dir
from cargento.sharedmethods import shared_methods

__all__ = ["HEAD_BYTES", "LOG_FILES", "TAIL_BYTES", "LogFacts", "log_facts", "newest_log_stamp", "workspaces"]

HEAD_BYTES = 80 * 1024
TAIL_BYTES = 256 * 1024
#: How many of the newest log files are read.
LOG_FILES = 8
_CACHE_LIMIT = 1024 * 1024
#: Prompt text is kept to this many characters.
PROMPT_CHARS = 2000
_WORKSPACE = re.compile(r"workspaceDirs=\[([^\]]*)\]")
_BIND = re.compile(r"\b(?:Created|Streaming) conversation ([0-9A-Za-z_-]{6,64})")
_INPUT = re.compile(r'HandleUserInput called with text: ("(?:[^"\\]|\\.)*")')
_FORWARD = re.compile(r"Forwarding user message to conversation ([0-9A-Za-z_-]{6,64})")


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class LogFacts:
    """Per conversation id: its workspace and its newest prompt, from the logs."""

    workspaces: dict[str, str] = attrs.Factory(dict)
    prompts: dict[str, str] = attrs.Factory(dict)


def workspaces(root: Path, ctx: HarnessContext) -> dict[str, str]:
    """``cache/last_conversations.json`` inverted: conversation id to workspace path."""
    path = root / "cache" / "last_conversations.json"
    try:
        st = path.stat()
    except OSError:
        return {}
    key = f"workspaces:{path}"
    cached = ctx.cache.get(key)
    if cached is not None and cached[0] == (st.st_size, st.st_mtime_ns):
        return cached[1]  # type: ignore[no-any-return]
    out: dict[str, str] = {}
    doc = read_json_object(path, max_bytes=_CACHE_LIMIT)
    if doc is not None:
        for workspace, conversation in doc.items():
            if isinstance(workspace, str) and workspace and isinstance(conversation, str) and conversation:
                out[conversation] = workspace
    ctx.cache.set(key, ((st.st_size, st.st_mtime_ns), out))
    return out


def _read_bounded(path: Path) -> list[str]:
    with open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size <= HEAD_BYTES + TAIL_BYTES:
            chunks = [fh.read(size)]
        else:
            head = fh.read(HEAD_BYTES)
            head = head[: head.rfind(b"\n") + 1]
            fh.seek(size - TAIL_BYTES)
            tail = fh.read(TAIL_BYTES)
            tail = tail[tail.find(b"\n") + 1 :]
            chunks = [head, tail]
    lines: list[str] = []
    for chunk in chunks:
        lines.extend(chunk.decode("utf-8", "replace").splitlines())
    return lines


def _parse(lines: list[str]) -> LogFacts:
    facts = LogFacts()
    current: str | None = None
    pending: str | None = None
    for line in lines:
        if (found := _WORKSPACE.search(line)) is not None:
            dirs = found.group(1).split()
            current = dirs[0] if dirs else None
        elif (found := _BIND.search(line)) is not None:
            if current:
                facts.workspaces[found.group(1)] = current
        elif (found := _INPUT.search(line)) is not None:
            try:
                text = orjson.loads(found.group(1))
            except orjson.JSONDecodeError:
                text = None
            pending = text[:PROMPT_CHARS] if isinstance(text, str) and text.strip() else None
        elif (found := _FORWARD.search(line)) is not None:
            if pending:
                facts.prompts[found.group(1)] = pending
            pending = None
    return facts


def log_facts(root: Path, ctx: HarnessContext) -> LogFacts:
    """Workspaces and newest prompts from the newest log files, newer files winning."""
    folder = root / "log"
    files = scan_dir(folder, files="cli-*.log").files
    stamped = sorted(((f.st.st_mtime_ns, Path(f.path)) for f in files), reverse=True)[:LOG_FILES]
    merged = LogFacts()
    for _, path in reversed(stamped):
        facts = _file_facts(path, ctx)
        merged.workspaces.update(facts.workspaces)
        merged.prompts.update(facts.prompts)
    return merged


def newest_log_stamp(root: Path) -> str:
    """Size and mtime of the newest log file, for fingerprints (empty without logs)."""
    stamps = [f.st for f in scan_dir(root / "log", files="cli-*.log").files]
    if not stamps:
        return ""
    st = max(stamps, key=lambda s: s.st_mtime_ns)
    return f"{st.st_size}:{st.st_mtime_ns}"


def _file_facts(path: Path, ctx: HarnessContext) -> LogFacts:
    try:
        st = path.stat()
    except OSError:
        return LogFacts()
    key = f"log:{path}"
    cached = ctx.cache.get(key)
    if cached is not None and cached[0] == (st.st_size, st.st_mtime_ns):
        return cached[1]  # type: ignore[no-any-return]
    try:
        facts = _parse(_read_bounded(path))
    except OSError:
        return LogFacts()
    ctx.cache.set(key, ((st.st_size, st.st_mtime_ns), facts))
    return facts
