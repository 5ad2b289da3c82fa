"""The kept output-token total (:mod:`cargento_harness_opencode.tokentally`) against a whole sum.

Each refresh of a session reads its newest messages only; these tests hold what it answers to
the sum over every message, over generated histories of a real SQLite database: messages added
(replies streaming in, then completing), rewritten among the newest, reverted, and written to
another session between refreshes.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from cargento_harness_opencode import tokentally
from cargento_harness_opencode.tokentally import KEEP, TokenTally, output_tokens
from hypothesis import given, settings
from hypothesis import strategies as st

SCHEMA = """
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
"""


def _data(role: str, output: int | None, completed: bool) -> str:
    if role == "user":
        return json.dumps({"role": "user", "time": {"created": 1}})
    body: dict[str, object] = {"role": "assistant", "tokens": {"output": output or 0}, "time": {"created": 1}}
    if completed:
        body["time"] = {"created": 1, "completed": 2}
    return json.dumps(body)


class Db:
    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path)
        self.conn.executescript(SCHEMA)
        self.n = 0

    def add(
        self,
        sid: str,
        role: str,
        output: int | None = None,
        completed: bool = False,
        commit: bool = True,
        created: int | None = None,
    ) -> str:
        self.n += 1
        ident = f"msg_{self.n:06d}"
        self.conn.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (ident, sid, self.n if created is None else created, self.n, _data(role, output, completed)),
        )
        if commit:
            self.conn.commit()
        return ident

    def rewrite(self, ident: str, output: int, completed: bool) -> None:
        self.n += 1
        self.conn.execute(
            "UPDATE message SET data = ?, time_updated = ? WHERE id = ?",
            (_data("assistant", output, completed), self.n, ident),
        )
        self.conn.commit()

    def revert(self, sid: str, count: int) -> None:
        self.conn.execute(
            "DELETE FROM message WHERE rowid IN (SELECT rowid FROM message WHERE session_id = ? "
            "ORDER BY rowid DESC LIMIT ?)",
            (sid, count),
        )
        self.conn.commit()

    def newest(self, sid: str, count: int) -> list[str]:
        rows = self.conn.execute(
            "SELECT id FROM message WHERE session_id = ? ORDER BY rowid DESC LIMIT ?", (sid, count)
        ).fetchall()
        return [r[0] for r in rows]

    def whole(self, sid: str) -> tuple[int, int]:
        """The sum over every message, as the reader computed it before it kept a tally."""
        total = counted = 0
        for (raw,) in self.conn.execute("SELECT data FROM message WHERE session_id = ?", (sid,)):
            data = json.loads(raw)
            if data.get("role") == "assistant" and "completed" in data["time"]:
                total += data["tokens"]["output"]
                counted += 1
        return total, counted


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("user"), st.integers(0, 0)),
        st.tuples(st.just("reply"), st.integers(0, 500)),
        st.tuples(st.just("stream"), st.integers(0, 500)),
        st.tuples(st.just("complete"), st.integers(0, 500)),
        st.tuples(st.just("other"), st.integers(0, 500)),
        st.tuples(st.just("late"), st.integers(0, 500)),
        st.tuples(st.just("revert"), st.sampled_from([1, 5, 30, 70, 150, 400])),
        st.tuples(st.just("burst"), st.sampled_from([1, 10, 70, 140, 300])),
        st.tuples(st.just("refresh"), st.integers(0, 0)),
    ),
    max_size=60,
)


@settings(max_examples=120, deadline=None)
@given(ops=OPS)
def test_the_kept_total_equals_the_whole_sum_after_every_refresh(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, int]]
) -> None:
    db = Db(tmp_path_factory.mktemp("tally") / "opencode.db")
    tally: TokenTally | None = None
    streaming: list[str] = []
    # A history long enough to settle, then whatever comes.
    for op, n in [("burst", 200), ("refresh", 0), *ops]:
        if op == "user":
            db.add("ses_a", "user")
        elif op == "reply":
            db.add("ses_a", "assistant", n, completed=True)
        elif op == "stream":
            streaming.append(db.add("ses_a", "assistant", 0))
        elif op == "complete" and streaming:
            # A reply completes in its own row; only the newest KEEP are promised to be seen.
            ident = streaming.pop()
            if ident in db.newest("ses_a", KEEP):
                db.rewrite(ident, n, completed=True)
        elif op == "late":
            # Written now with an older creation time (a clock set back): above the floor,
            # below where the last read sought the index.
            db.add("ses_a", "assistant", n, completed=True, created=0)
        elif op == "other":
            db.add("ses_b", "assistant", n, completed=True)
        elif op == "revert":
            db.revert("ses_a", n)
            streaming = [s for s in streaming if s in db.newest("ses_a", 10_000)]
        elif op == "burst":
            for i in range(n):
                db.add("ses_a", "assistant" if i % 2 else "user", 7, completed=True, commit=False)
            db.conn.commit()
        total, counted, tally = output_tokens(db.conn, "opencode.db", "ses_a", tally)
        assert (total, counted) == db.whole("ses_a"), op
        if tally.floor is not None:
            above = db.conn.execute(
                "SELECT COUNT(*) FROM message WHERE session_id = 'ses_a' AND rowid > ?", (tally.floor,)
            ).fetchone()[0]
            assert above <= 2 * KEEP, "the rows read again on the next refresh stay bounded"


def test_a_refresh_parses_the_newest_messages_only(tmp_path: Path) -> None:
    db = Db(tmp_path / "opencode.db")
    for i in range(3000):
        db.add("ses_a", "assistant" if i % 2 else "user", 40, completed=True, commit=False)
    db.conn.commit()
    total, counted, tally = output_tokens(db.conn, "opencode.db", "ses_a", None)
    assert (total, counted) == (60_000, 1500)
    parsed: list[str] = []

    def json_valid(raw: str) -> int:
        parsed.append(raw)
        return 1

    db.conn.create_function("json_valid", 1, json_valid, deterministic=True)
    db.add("ses_a", "assistant", 40, completed=True)
    total, counted, tally = output_tokens(db.conn, "opencode.db", "ses_a", tally)
    assert (total, counted) == (60_040, 1501)
    assert 0 < len(parsed) <= 2 * KEEP + 1, f"{len(parsed)} messages parsed for one more"
    # A tail grown past twice KEEP settles its older part, which is not read again either.
    for _ in range(150):
        db.add("ses_a", "assistant", 40, completed=True, commit=False)
    db.conn.commit()
    total, counted, tally = output_tokens(db.conn, "opencode.db", "ses_a", tally)
    assert (total, counted) == (66_040, 1651)
    parsed.clear()
    db.add("ses_a", "assistant", 40, completed=True)
    total, counted, tally = output_tokens(db.conn, "opencode.db", "ses_a", tally)
    assert (total, counted) == (66_080, 1652)
    assert 0 < len(parsed) <= KEEP + 1, f"{len(parsed)} messages parsed for one more after the tail settled"


def test_an_old_message_rewritten_in_place_is_counted_by_the_recount(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = Db(tmp_path / "opencode.db")
    first = db.add("ses_a", "assistant", 10, completed=True)
    for _ in range(200):
        db.add("ses_a", "assistant", 1, completed=True, commit=False)
    db.conn.commit()
    _, _, tally = output_tokens(db.conn, "opencode.db", "ses_a", None)
    db.rewrite(first, 1000, completed=True)
    total, _, tally = output_tokens(db.conn, "opencode.db", "ses_a", tally)
    assert total == 210, "below the floor: not read again until the recount"
    monkeypatch.setattr(tokentally, "RECOUNT_S", 0.0)
    total, _, tally = output_tokens(db.conn, "opencode.db", "ses_a", tally)
    assert total == 1200


def test_another_database_at_the_same_path_is_summed_afresh(tmp_path: Path) -> None:
    db = Db(tmp_path / "one.db")
    for _ in range(200):
        db.add("ses_a", "assistant", 5, completed=True)
    _, _, tally = output_tokens(db.conn, "one.db", "ses_a", None, source=("dev", 1))
    other = Db(tmp_path / "two.db")
    for _ in range(200):
        other.add("ses_a", "assistant", 3, completed=True)
    total, counted, _ = output_tokens(other.conn, "one.db", "ses_a", tally, source=("dev", 2))
    assert (total, counted) == (600, 200)


def test_the_discovery_passs_count_spares_the_tallys_own_and_a_stale_one_is_checked(tmp_path: Path) -> None:
    db = Db(tmp_path / "opencode.db")
    for _ in range(200):
        db.add("ses_a", "assistant", 2, completed=True, commit=False)
    db.conn.commit()
    _, _, tally = output_tokens(db.conn, "opencode.db", "ses_a", None)
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    db.add("ses_a", "assistant", 3, completed=True)
    statements.clear()
    total, _, tally = output_tokens(db.conn, "opencode.db", "ses_a", tally, count=201)
    assert total == 403
    assert not any("COUNT(*)" in s for s in statements), statements
    db.add("ses_a", "assistant", 3, completed=True)  # a write after the discovery pass read 201
    statements.clear()
    total, _, tally = output_tokens(db.conn, "opencode.db", "ses_a", tally, count=201)
    assert total == 406, "the tail's newer row is counted, not taken for a revert"
    assert sum("COUNT(*)" in s for s in statements) == 1
    assert not any("SUM(" in s for s in statements), "and nothing was summed afresh"
