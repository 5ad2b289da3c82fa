"""Hypothesis over every reader the capacity feature has: the pushed quota block, both vendor
replies and the consent file. None raises on what it reads (a vendor reply may only be refused
with ValueError), and nothing malformed comes out as a reading."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cargento_web.capacity.consent import ANSWERS, UNANSWERED, read_answer
from cargento_web.capacity.pushed import parse_block, windows_from_block
from cargento_web.capacity.vendors import parse_claude, parse_cursor
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["2026-12-01T14:00:00Z", "1785000000", "weekly_scoped", "gemini-5h", "3p-weekly"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.one_of(
                st.text(max_size=12),
                st.sampled_from(
                    [
                        "five_hour", "seven_day", "seven_day_opus", "utilization", "resets_at", "limits", "kind",
                        "percent", "scope", "model", "display_name", "planUsage", "totalSpend", "limit",
                        "billingCycleEnd", "remaining_fraction", "reset_time", "gemini-5h", "3p-weekly",
                    ]
                ),
            ),
            inner,
            max_size=5,
        ),
    ),
    max_leaves=20,
)  # fmt: skip


@given(json_values)
def test_the_pushed_block_reader_keeps_only_well_formed_buckets(value: Any) -> None:
    block = parse_block(value)
    if block is None:
        return
    for name, bucket in block.items():
        assert name.endswith(("-5h", "-weekly"))
        assert 0.0 <= bucket["remaining_fraction"] <= 1.0
    for w in windows_from_block(block, NOW, harness_label="Antigravity"):
        assert 0.0 <= w.used_percent <= 100.0 and w.window_s is not None


@pytest.mark.parametrize("parse", [parse_claude, parse_cursor])
@given(value=json_values)
@example(value={"planUsage": {"totalSpend": math.inf, "limit": 5}})
@example(value={"planUsage": {"totalSpend": 10**30, "limit": 1}, "billingCycleEnd": "9" * 40})
@example(value={"five_hour": {"utilization": math.nan}, "limits": [{"kind": "weekly_scoped", "percent": math.inf}]})
def test_vendor_replies_are_read_or_refused_never_crash(parse: Any, value: Any) -> None:
    try:
        found = parse(value, NOW)
    except ValueError:
        return
    assert found, "a reply is either refused or yields at least one window"
    for w in found:
        assert math.isfinite(w.used_percent) and 0.0 <= w.used_percent <= 1000.0
        assert w.read_at == NOW and w.source == "vendor"


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.binary(max_size=200), json_values.map(lambda v: json.dumps(v).encode())))
def test_the_consent_file_reader_never_raises(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "capacity.json"
    path.write_bytes(data)
    answer, problem = read_answer(path)
    assert answer in (*ANSWERS, UNANSWERED)
    assert (problem is None) == (answer != UNANSWERED)
