"""Hypothesis fuzzes every reader of a store the cockpit reads: workflow and entity-state
frontmatter, the tripwire store, the semantic history and a boot command's output. Each either
reads what it can or says it cannot; none raises anything else."""

from __future__ import annotations

import json
from pathlib import Path

from cargento.spacedock import parse_boot
from cargento_web.cockpit import semantic, tripwires
from cargento_web.cockpit.frontmatter import parse_frontmatter
from cargento_web.cockpit.spacedock import stages_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
    max_leaves=20,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=600) | st.text(max_size=600).map(lambda t: ("---\n" + t + "\n---\n").encode()))
def test_frontmatter_and_stage_lists_never_raise(head: bytes) -> None:
    fm = parse_frontmatter(head)
    assert fm is None or isinstance(fm, dict)
    stages = stages_of(fm)
    assert stages is None or (stages and all(isinstance(s, str) and s for s in stages))


@settings(max_examples=300)
@given(JSONISH)
def test_a_stage_list_of_any_shape_is_read_or_absent(declared: object) -> None:
    stages = stages_of({"stages": declared})
    assert stages is None or len(set(stages)) == len(stages)


@settings(max_examples=300)
@given(st.binary(max_size=800) | JSONISH.map(lambda v: json.dumps({"version": 1, "revision": 1, "rules": v}).encode()))
def test_the_tripwire_store_reads_or_is_unreadable(data: bytes) -> None:
    try:
        revision, rules = tripwires.parse_store(data)
    except tripwires.StoreUnreadable:
        return
    assert revision >= 0 and len(rules) <= tripwires.MAX_RULES


@settings(max_examples=300)
@given(st.binary(max_size=800) | JSONISH.map(lambda v: json.dumps({"version": 1, "projects": v}).encode()))
def test_the_semantic_history_reads_or_is_unreadable(data: bytes) -> None:
    try:
        projects = semantic.parse(data)
    except semantic.Unreadable:
        return
    assert all(isinstance(p, str) for p in projects)


@settings(max_examples=300)
@given(st.text(max_size=600) | JSONISH.map(json.dumps))
def test_a_boot_output_is_a_boot_or_none(text: str) -> None:
    boot = parse_boot(text)
    assert boot is None or all(
        d.startswith("/") or d[1:3] in (":\\", ":/") or d.startswith("\\\\") for d in boot.workflow_dirs
    )


def test_a_fuzzed_store_file_at_start_is_set_aside_not_raised(tmp_path: Path) -> None:
    (tmp_path / tripwires.TRIPWIRES_FILE).write_bytes(b"\xff\xfe not json")
    store = tripwires.TripwireStore(tmp_path)
    assert store.reset is not None and store.rules == []
