"""The quick hint (a prefix tree of the hint's literals over the lowered text, and its few
non-literal shapes) finds everything the hint itself finds in ASCII text, so the families run
on exactly the strings they ran on before; what it finds besides is asked of the hint."""

from __future__ import annotations

import re
import string

import pytest
from cargento import redact
from hypothesis import given, settings
from hypothesis import strategies as st

ASCII = st.characters(min_codepoint=0, max_codepoint=127)


def _alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of *pattern* (a ``|`` outside any group or class)."""
    found: list[str] = []
    depth, current, escaped, in_class = 0, "", False, False
    for char in pattern:
        if escaped:
            current += char
            escaped = False
            continue
        if char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            found.append(current)
            current = ""
            continue
        current += char
    found.append(current)
    return found


def _quick(text: str) -> bool:
    words, shapes = redact._quick_hint()
    return words.search(text.lower()) is not None or shapes.search(text) is not None


BRANCHES = _alternatives(redact._HINT.pattern)


def test_the_hint_splits_into_its_alternatives() -> None:
    assert len(BRANCHES) > 50
    assert re.compile("|".join(BRANCHES)).pattern == redact._HINT.pattern


@pytest.mark.parametrize("branch", BRANCHES)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_every_alternative_of_the_hint_is_found_quickly(branch: str, data: st.DataObject) -> None:
    around = st.text(ASCII, max_size=12)
    hit = data.draw(st.from_regex(branch, fullmatch=True, alphabet=ASCII))
    text = data.draw(around) + hit + data.draw(around)
    assert redact._HINT.search(text) is not None
    assert _quick(text), (branch, text)
    assert redact._hinted(text)


@settings(max_examples=500, deadline=None)
@given(st.text(st.sampled_from(string.printable + "ſıKİ"), max_size=60))
def test_hinted_is_exactly_the_hint(text: str) -> None:
    assert redact._hinted(text) == (redact._HINT.search(text) is not None)


def test_non_ascii_text_asks_the_hint_itself() -> None:
    # Under the hint's case-insensitive groups the long s matches "s" and the dotless i "i";
    # lowering would not make them so, so such text skips the quick path.
    assert redact._hinted("paſſword=hunter22")
    assert redact.redact("paſſword=hunter22") == f"paſſword={redact.MARK}"
    assert redact._hinted("AUTHORIZATİON") is (redact._HINT.search("AUTHORIZATİON") is not None)


def test_a_board_string_without_a_hint_skips_the_families(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redact, "_HINT", None)  # never asked: the quick hint says no first
    assert redact.redact("claude-opus-4-5 working on /home/someone/code/app") == (
        "claude-opus-4-5 working on /home/someone/code/app"
    )
