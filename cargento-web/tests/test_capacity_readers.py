"""Hypothesis over the reader the capacity feature keeps itself, the consent file (the plugins'
``read_quota`` readers are fuzzed by the HarnessContract), and over the plugin readers as the
feature calls them: whatever a document holds, a reader answers windows or nothing."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cargento.plugins import load_registry
from cargento_harness_antigravity import plugin as antigravity
from cargento_harness_claude import plugin as claude
from cargento_harness_cursor import plugin as cursor
from cargento_web.capacity.consent import ANSWERS, UNANSWERED, read_answer
from cargento_web.capacity.extension import quota_reader
from hypothesis import HealthCheck, given, settings
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


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.binary(max_size=200), json_values.map(lambda v: json.dumps(v).encode())))
def test_the_consent_file_reader_never_raises(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "capacity.json"
    path.write_bytes(data)
    answer, problem = read_answer(path)
    assert answer in (*ANSWERS, UNANSWERED)
    assert (problem is None) == (answer != UNANSWERED)


REGISTRY = load_registry(
    entry_points=False, extra=[("claude", claude), ("cursor", cursor), ("antigravity", antigravity)]
)


@given(
    value=json_values,
    harness=st.sampled_from(["claude", "cursor", "antigravity"]),
    source=st.sampled_from(["reply", "pushed"]),
)
def test_a_plugin_reader_as_the_feature_calls_it_answers_windows_or_nothing(
    value: Any, harness: str, source: str
) -> None:
    found = quota_reader(REGISTRY, harness, source)(value, NOW)
    if found is None:
        return
    assert found, "an empty reading is said as nothing, never as a window at zero"
    for w in found:
        assert math.isfinite(w.used_percent) and 0.0 <= w.used_percent <= 1000.0
