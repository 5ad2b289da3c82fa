"""A Pi session tree mapped onto the core models."""

from __future__ import annotations

import re
from datetime import timedelta

import attrs
from cargento.evidence import shown_path
from cargento.labels import clip
from cargento.models import (
    Evidence,
    HarnessContext,
    Instruction,
    ModelInfo,
    SessionReading,
    SessionRef,
    TurnEvidence,
    Usage,
)
from cargento.rates import tokens_in_window
from cargento.timestamps import newest_plausible
from cargento.turns import TurnClock

from cargento_harness_pi.entries import Entry
from cargento_harness_pi.tree import SessionTree

__all__ = ["PROVIDER_HARNESS", "TOOL_USE_HOLD", "authority", "model_info", "reading", "usage"]

#: How long an assistant leaf stamped ``toolUse`` (a tool whose result is not written yet)
#: keeps the row Working: past it, the process may have died mid-tool.
TOOL_USE_HOLD = timedelta(minutes=15)
_ENDED = frozenset({"stop", "aborted", "error"})
_MESSAGES = frozenset({"user", "assistant", "toolResult"})
#: Pi providers that spend another harness's allowance, by that harness's label.
PROVIDER_HARNESS = {
    "openai-codex": "Codex",
    "anthropic": "Claude",
    "github-copilot": "Copilot",
    "google-gemini-cli": "Gemini CLI",
    "google-antigravity": "Antigravity",
    "opencode": "OpenCode",
}
_CONTINUATION = re.compile(
    r"^(?:ok(?:ay)?|y(?:es|ep|eah)?|sure|proceed|continue|go(?: on| ahead)?|keep going|carry on|do it|"
    r"next|lgtm|sounds good|please do|please continue|go for it|resume|again|retry|try again)[.! ]*$",
    re.IGNORECASE,
)


def _first_line(text: str) -> str | None:
    first = next((line for line in text.splitlines() if line.strip()), "")
    return clip(first, 80) or None


def _instruction(prompts: list[Entry]) -> Instruction | None:
    if not prompts:
        return None
    newest = prompts[-1]
    assert newest.text is not None
    if not _CONTINUATION.match(newest.text.strip()):
        return Instruction(text=newest.text, source="prompt", at=newest.at)
    for earlier in reversed(prompts[:-1]):
        if earlier.text and not _CONTINUATION.match(earlier.text.strip()):
            return Instruction(text=earlier.text, source="earlier prompt", at=earlier.at)
    return Instruction(text=newest.text, source="prompt", at=newest.at)


def reading(ref: SessionRef, tree: SessionTree, ctx: HarnessContext) -> SessionReading:
    """The session reading of one Pi session file."""
    path = tree.active_path()
    clock = TurnClock()
    prompts: list[Entry] = []
    last_message: Entry | None = None
    for entry in path:
        if entry.kind == "user":
            clock.start(entry.at)
            if entry.text:
                prompts.append(entry)
        elif entry.kind == "assistant" and entry.stop_reason in _ENDED:
            clock.end(entry.at)
        else:
            clock.activity(entry.at)
        if entry.kind in _MESSAGES:
            last_message = entry
    turn = clock.evidence()
    detail: str | None = None
    thinking = False
    if last_message is not None:
        if last_message.kind == "assistant" and last_message.stop_reason == "toolUse" and last_message.at:
            turn = _with_busy(turn, last_message)
            tool = last_message.tools[-1] if last_message.tools else None
            detail = f"running {tool}" if tool else "running a tool"
        elif last_message.kind in ("user", "toolResult"):
            thinking = True
    if tree.info is not None and tree.info.name:
        title: str | None = clip(tree.info.name, 80)
    else:
        title = _first_line(prompts[0].text) if prompts and prompts[0].text else None
    newest = tree.entries[tree.order[-1]].at if tree.order else None
    header = tree.header
    project = None
    if header.cwd is None:
        # The nested store names each folder after the encoded cwd (``--srv-work-app--``).
        parts = ref.path.replace("\\", "/").split("/")
        project = parts[-2].strip("-") or None if len(parts) >= 2 else None
    tools = [e.tools[-1] for e in path if e.kind == "assistant" and e.tools]
    evidence = _leaf_evidence(last_message, shown_path(ref.path, str(ctx.home)))
    return SessionReading(
        ref=ref,
        title=title,
        cwd=header.cwd,
        project=project,
        started_at=header.started_at,
        last_active_at=newest_plausible(ctx.now, newest, ref.modified_at),
        turn=turn,
        thinking=thinking,
        last_tool=tools[-1] if tools else None,
        detail=detail,
        instruction=_instruction(prompts),
        role="spacedock:first-officer" if tree.boot is not None else None,
        spacedock=tree.boot,
        notes=tuple(f"spacedock workflow {d}" for d in (tree.boot.workflow_dirs if tree.boot else ())),
        evidence=evidence,
        unknown_records=tree.drift.snapshot(),
    )


def _leaf_evidence(leaf: Entry | None, source: str) -> tuple[Evidence, ...]:
    """What the active branch's leaf decided: Pi is the one store that records how a turn ended."""
    if leaf is None:
        return ()
    if leaf.kind == "assistant" and leaf.stop_reason in _ENDED:
        said = f"the active branch's leaf is an assistant message stamped stopReason {leaf.stop_reason}: the turn ended"
    elif leaf.kind == "assistant" and leaf.stop_reason == "toolUse":
        said = (
            "the active branch's leaf is an assistant message stamped stopReason toolUse: a tool call has no result yet"
        )
    elif leaf.kind in ("user", "toolResult"):
        said = f"the active branch's leaf is a {leaf.kind} message: the turn is handed back to the model"
    else:
        said = f"the active branch's leaf ({leaf.kind}, stopReason {leaf.stop_reason or 'none'}) claims nothing"
    return (Evidence(reading="state", signal="store record", source=source, observed_at=leaf.at, said=said),)


def _with_busy(turn: TurnEvidence, leaf: Entry) -> TurnEvidence:
    """An assistant leaf waiting on its tool's result holds the row Working for a while."""
    assert leaf.at is not None
    return attrs.evolve(turn, busy_until=leaf.at + TOOL_USE_HOLD)


def authority(provider: str | None, model: str | None) -> str | None:
    """``via <harness or provider> · <model>``; ``None`` without a provider."""
    if not provider:
        return None
    label = PROVIDER_HARNESS.get(provider, provider)
    return f"via {label} · {model}" if model else f"via {label}"


def model_info(tree: SessionTree) -> ModelInfo | None:
    """The model and authority of the newest active-branch entry that names a provider
    (an assistant message, or a ``model_change`` not spent yet); else the newest model."""
    path = tree.active_path()
    carriers = [e for e in path if e.kind in ("assistant", "model_change") and (e.provider or e.model)]
    if not carriers:
        return None
    chosen = next((e for e in reversed(carriers) if e.provider), None)
    if chosen is None:
        model = carriers[-1].model
        return ModelInfo(id=model) if model else None
    if not chosen.model:
        return None
    return ModelInfo(id=chosen.model, authority=authority(chosen.provider, chosen.model))


def usage(tree: SessionTree, ctx: HarnessContext) -> Usage | None:
    """Output tokens of the active branch: assistant, tool-result, compaction and branch-summary."""
    events = [(e.at, e.output_tokens) for e in tree.active_path() if e.output_tokens is not None]
    if not events:
        return None
    return Usage(
        output_tokens_window=tokens_in_window([(at, n) for at, n in events if n is not None], ctx.now),
        output_tokens_total=sum(n for _, n in events if n is not None),
    )
