"""A Pi session tree mapped onto the core models."""

from __future__ import annotations

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
from cargento.timestamps import newest_plausible

from cargento_harness_pi.branch import ENDED, BranchFacts
from cargento_harness_pi.entries import Entry
from cargento_harness_pi.tree import SessionTree

__all__ = ["PROVIDER_HARNESS", "TOOL_USE_HOLD", "authority", "model_info", "reading", "usage"]

#: How long an assistant leaf stamped ``toolUse`` (a tool whose result is not written yet)
#: keeps the row Working: past it, the process may have died mid-tool.
TOOL_USE_HOLD = timedelta(minutes=15)
#: Pi providers that spend another harness's allowance, by that harness's label.
PROVIDER_HARNESS = {
    "openai-codex": "Codex",
    "anthropic": "Claude",
    "github-copilot": "Copilot",
    "google-gemini-cli": "Gemini CLI",
    "google-antigravity": "Antigravity",
    "opencode": "OpenCode",
}


def _first_line(text: str) -> str | None:
    first = next((line for line in text.splitlines() if line.strip()), "")
    return clip(first, 80) or None


def _instruction(facts: BranchFacts) -> Instruction | None:
    newest = facts.newest_prompt
    if newest is None:
        return None
    assert newest.text is not None
    plain = facts.newest_plain_prompt
    if plain is not None and plain is not newest:
        assert plain.text is not None
        return Instruction(text=plain.text, source="earlier prompt", at=plain.at)
    return Instruction(text=newest.text, source="prompt", at=newest.at)


def reading(ref: SessionRef, tree: SessionTree, ctx: HarnessContext) -> SessionReading:
    """The session reading of one Pi session file."""
    facts = tree.facts()
    turn = facts.clock.evidence()
    last_message = facts.last_message
    detail: str | None = None
    thinking = False
    if last_message is not None:
        if last_message.kind == "assistant" and last_message.stop_reason == "toolUse" and last_message.at:
            turn = _with_busy(turn, last_message)
            tool = last_message.tools[-1] if last_message.tools else None
            detail = f"running {tool}" if tool else "running a tool"
        elif last_message.kind in ("user", "toolResult"):
            thinking = True
    first = facts.first_prompt
    if tree.info is not None and tree.info.name:
        title: str | None = clip(tree.info.name, 80)
    else:
        title = _first_line(first.text) if first is not None and first.text else None
    newest = tree.entries[tree.order[-1]].at if tree.order else None
    header = tree.header
    project = None
    if header.cwd is None:
        # The nested store names each folder after the encoded cwd (``--srv-work-app--``).
        parts = ref.path.replace("\\", "/").split("/")
        project = parts[-2].strip("-") or None if len(parts) >= 2 else None
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
        last_tool=facts.last_tool,
        detail=detail,
        instruction=_instruction(facts),
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
    if leaf.kind == "assistant" and leaf.stop_reason in ENDED:
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
    facts = tree.facts()
    if facts.newest_carrier is None:
        return None
    chosen = facts.newest_provider_carrier
    if chosen is None:
        model = facts.newest_carrier.model
        return ModelInfo(id=model) if model else None
    if not chosen.model:
        return None
    return ModelInfo(id=chosen.model, authority=authority(chosen.provider, chosen.model))


def usage(tree: SessionTree, ctx: HarnessContext) -> Usage | None:
    """Output tokens of the active branch: assistant, tool-result, compaction and branch-summary."""
    facts = tree.facts()
    if not facts.output_events:
        return None
    return Usage(output_tokens_window=facts.tokens.in_window(ctx.now), output_tokens_total=facts.output_total)
