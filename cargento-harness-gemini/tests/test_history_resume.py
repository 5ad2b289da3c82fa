"""``history_for`` resumes its walk from a checkpoint: it must read exactly what a whole walk does.

A chat is driven through what Gemini CLI writes (prompts, model messages with and without tool
calls, tool replies, re-appends under an id, ``$rewindTo``, a resume's ``$set.messages``
snapshot), deriving after some of the lines and not others, and after each derivation the
resumed facts are compared with :func:`history_of`'s walk of every message. ``TAIL`` is made
small so that short chats move the checkpoint, fall below it and start it again.
"""

from __future__ import annotations

import copy
import statistics
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from cargento_harness_gemini import history as history_module
from cargento_harness_gemini.history import history_for, history_of
from cargento_harness_gemini.transcript import ChatState
from hypothesis import given, settings
from hypothesis import strategies as st

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)


def _iso(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class Chat:
    """The lines of one chat file, written as the CLI would, fed to a :class:`ChatState`."""

    def __init__(self, kind: str) -> None:
        self.state = ChatState()
        self.records: dict[str, dict[str, Any]] = {}
        self.count = 0
        self.state.apply({"sessionId": "s-1", "startTime": _iso(T0), "lastUpdated": _iso(T0), "kind": kind})

    def _new_id(self) -> str:
        self.count += 1
        return f"m{self.count}"

    def message(self, record: dict[str, Any]) -> None:
        self.records[record["id"]] = record
        self.state.apply(record)

    def operate(self, op: tuple[Any, ...], at: datetime) -> None:
        kind = op[0]
        stamp = _iso(at)
        if kind == "prompt":
            self.message({"id": self._new_id(), "timestamp": stamp, "type": "user", "content": [{"text": op[1]}]})
        elif kind == "tool_reply":
            content = [{"functionResponse": {"id": "c", "name": "x", "response": {}}}]
            self.message({"id": self._new_id(), "timestamp": stamp, "type": "user", "content": content})
        elif kind == "info":
            self.message({"id": self._new_id(), "timestamp": stamp, "type": "info", "content": "note"})
        elif kind == "model":
            _, text, tokens, tool, reappend = op
            ident = self._new_id()
            if reappend is not None and self.records:
                ident = list(self.records)[reappend % len(self.records)]
            record: dict[str, Any] = {"id": ident, "timestamp": stamp, "type": "gemini", "content": text}
            if tokens is not None:
                record["tokens"] = {"output": tokens}
            if tool is not None:
                args: dict[str, Any] = {"title": "T"} if tool == "update_topic" else {}
                if tool == "write_todos":
                    args = {"todos": [{"description": "d", "status": "completed"}]}
                if tool == "invoke_agent":
                    args = {"agent_name": "a"}
                call = {"id": "c", "name": tool, "args": args, "status": "success", "timestamp": stamp}
                record["toolCalls"] = [dict(call, agentId=f"agent-{self.count}")]
            record["model"] = "gemini-2.5-pro"
            self.message(record)
        elif kind == "rewind" and self.records:
            target = list(self.records)[op[1] % len(self.records)]
            kept = {}
            for ident, rec in self.records.items():
                if ident == target:
                    break
                kept[ident] = rec
            self.records = kept
            self.state.apply({"$rewindTo": target})
        elif kind == "snapshot":
            # A resume writes the thread again; it may hold fewer messages (or none) than the
            # file had, so the positions shift under the checkpoint.
            _, drop_first, keep = op
            thread = list(self.records.values())[drop_first:][:keep]
            self.records = {rec["id"]: rec for rec in thread}
            self.state.apply({"$set": {"messages": thread, "lastUpdated": stamp}})


ops = st.one_of(
    st.tuples(st.just("prompt"), st.sampled_from(["fix it", "go on", "<session_context>x"])),
    st.tuples(st.just("tool_reply")),
    st.tuples(st.just("info")),
    st.tuples(
        st.just("model"),
        st.sampled_from(["", "Done."]),
        st.none() | st.integers(min_value=0, max_value=500),
        st.none()
        | st.sampled_from(["run_shell_command", "write_todos", "update_topic", "invoke_agent", "complete_task"]),
        st.none() | st.integers(min_value=0, max_value=400),
    ),
    st.tuples(st.just("rewind"), st.integers(min_value=0, max_value=400)),
    st.tuples(st.just("snapshot"), st.integers(min_value=0, max_value=3), st.integers(min_value=0, max_value=400)),
)


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(["main", "subagent"]),
    tail=st.integers(min_value=1, max_value=4),
    steps=st.lists(st.tuples(ops, st.integers(min_value=-30, max_value=400), st.booleans()), max_size=80),
)
def test_a_resumed_walk_reads_what_a_whole_walk_does(
    kind: str, tail: int, steps: list[tuple[tuple[Any, ...], int, bool]]
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(history_module, "TAIL", tail)
        chat = Chat(kind)
        at = T0
        taken: list[tuple[Any, Any]] = []
        for op, gap_s, derive in steps:
            at += timedelta(seconds=gap_s)  # a negative gap: a clock stepping back
            chat.operate(op, at)
            if derive:
                resumed, whole = history_for(chat.state), history_of(chat.state)
                assert resumed == whole
                taken.append((resumed, copy.deepcopy(whole)))
        assert history_for(chat.state) == history_of(chat.state)
        # A History handed out stays what it was: later walks share nothing it holds.
        for resumed, then in taken:
            assert resumed == then


def test_a_refresh_after_one_append_walks_the_tail_not_the_chat(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: after one more message, the walk feeds about ``TAIL`` messages
    (twice that when the checkpoint moves up), in a chat of 200 messages and of 20,000."""
    fed: list[int] = []
    real_feed = history_module._Walk.feed

    def counting(self: Any, m: Any) -> None:
        fed.append(1)
        real_feed(self, m)

    monkeypatch.setattr(history_module._Walk, "feed", counting)
    for size in (200, 20_000):
        chat = Chat("main")
        for i in range(size // 2):
            chat.operate(("prompt", f"step {i}"), T0 + timedelta(seconds=i))
            chat.operate(("model", "Done.", 40, None, None), T0 + timedelta(seconds=i, milliseconds=500))
        history_for(chat.state)
        per_append = []
        for i in range(10):
            chat.operate(("model", "More.", 40, None, None), T0 + timedelta(hours=6, seconds=i))
            fed.clear()
            resumed = history_for(chat.state)
            per_append.append(len(fed))
            assert resumed == history_of(chat.state)
        assert statistics.median(per_append) <= 2 * history_module.TAIL, (size, per_append)


def test_the_walk_does_not_start_again_for_each_append() -> None:
    """The checkpoint survives appends; a rewind below it starts the walk again."""
    chat = Chat("main")
    for i in range(400):
        chat.operate(("prompt", f"p{i}"), T0 + timedelta(seconds=i))
    history_for(chat.state)
    checkpoint = chat.state.checkpoint
    assert checkpoint is not None and checkpoint.fed >= 400 - 2 * history_module.TAIL
    chat.operate(("prompt", "one more"), T0 + timedelta(seconds=500))
    history_for(chat.state)
    assert chat.state.checkpoint is checkpoint
    chat.operate(("rewind", 10), T0 + timedelta(seconds=501))
    assert history_for(chat.state) == history_of(chat.state)
    assert chat.state.checkpoint is not checkpoint and chat.state.checkpoint.fed <= 10
