"""Hypothesis over every reader this feature set added: the quiet-hours window (flag, variable,
file), the reach URL file, a forwarder's terminal identity, and a tab's presence report. Each
either reads a value or refuses in its own words; none raises anything else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cargento.events.payloads import parse_terminal
from cargento.quiethours import QuietHoursError, parse_window, resolve_window
from cargento_web.reach.target import resolve_target, shape_of
from cargento_web.runtime.presence import parse_report
from hypothesis import given
from hypothesis import strategies as st

JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)


@given(st.text(max_size=40))
def test_a_window_is_read_or_refused_in_one_line(text: str) -> None:
    try:
        window = parse_window(text)
    except QuietHoursError as exc:
        assert "\n" not in str(exc)
    else:
        assert window.start != window.end and parse_window(window.text()) == window


@given(st.binary(max_size=300))
def test_a_quiet_hours_file_of_any_bytes_is_read_or_refused(tmp_path_factory: Any, data: bytes) -> None:
    folder: Path = tmp_path_factory.mktemp("q")
    (folder / "quiet_hours").write_bytes(data)
    try:
        resolve_window(None, {"CARGENTO_HOME": str(folder)})
    except QuietHoursError:
        pass


@given(st.binary(max_size=300))
def test_a_reach_url_file_of_any_bytes_resolves_or_says_why_not(tmp_path_factory: Any, data: bytes) -> None:
    folder: Path = tmp_path_factory.mktemp("r")
    (folder / "reach_url").write_bytes(data)
    target, words = resolve_target(None, {"CARGENTO_HOME": str(folder)})
    assert words
    if target is not None:
        assert target.url.startswith(("http://", "https://")) and shape_of(target.url) == target.shape


@given(JSONISH)
def test_a_terminal_identity_is_read_only_in_tmuxs_own_shape(value: Any) -> None:
    found = parse_terminal(value)
    if found is not None:
        assert found.pane.startswith("%") and found.socket.startswith("/")


@given(st.dictionaries(st.sampled_from(["tab", "visible", "session", "x"]), JSONISH, max_size=4))
def test_a_presence_report_is_read_or_refused_with_a_value_error(body: dict[str, Any]) -> None:
    try:
        tab, visible, session = parse_report(body)
    except ValueError:
        return
    assert isinstance(visible, bool) and 8 <= len(tab) <= 64
    assert session is None or all(isinstance(part, str) for part in session)
