"""The plain ``==X.Y.*`` check plugin loading makes without :mod:`packaging` gives packaging's
answer wherever it answers at all, and leaves every other shape to packaging."""

from __future__ import annotations

import pytest
from cargento import releaseprefix
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

_NUMBER = st.sampled_from(["0", "1", "2", "10", "01", "00"]) | st.integers(0, 30).map(str)
_RELEASE = st.lists(_NUMBER, min_size=1, max_size=4).map(".".join)
_VERSION = _RELEASE | st.builds(
    lambda r, tail: r + tail, _RELEASE, st.sampled_from(["a1", "rc1", ".post1", ".dev0", "+local", "1!", ""])
)
_CLAUSE = st.builds(
    lambda op, r, tail: f"{op}{r}{tail}",
    st.sampled_from(["==", ">=", "<=", "<", ">", "!=", "~=", "== ", "==="]),
    _RELEASE,
    st.sampled_from(["", "", ".*", " .*", ".*a", "rc1"]),
)
_SPECIFIER = st.lists(_CLAUSE, min_size=1, max_size=3).map(",".join)


def _packaging(version: str, specifier: str) -> bool | None:
    try:
        return Version(version) in SpecifierSet(specifier, prereleases=True)
    except (InvalidVersion, InvalidSpecifier):
        return None


@settings(max_examples=2000, deadline=None)
@given(_VERSION, _SPECIFIER)
def test_a_plain_answer_is_packagings_answer(version: str, specifier: str) -> None:
    plain = releaseprefix.matches(version, specifier)
    if plain is not None:
        assert plain == _packaging(version, specifier), (version, specifier)


@settings(max_examples=500, deadline=None)
@given(_SPECIFIER)
def test_a_plain_specifier_is_written_back_as_packaging_writes_it(specifier: str) -> None:
    if releaseprefix.plain_specifier(specifier):
        assert str(SpecifierSet(specifier)) == specifier


@pytest.mark.parametrize(
    ("version", "specifier", "answer"),
    [
        ("0.1.0", "==0.1.*", True),
        ("0.1", "==0.1.*", True),
        ("0.2.0", "==0.1.*", False),
        ("0", "==0.0.*", True),
        ("1", "==1.1.*", False),
        ("0.1.0", ">=0.1", True),
        ("0.1.0", "<1,>=0.1", True),
        ("1.0", "<1,>=0.1", False),
        ("0.1.0", "~=0.1", None),
        ("0.1.0", ">=0.1.*", None),
        ("0.1.0rc1", "==0.1.*", None),
        ("0.1.0", "==00.1.*", None),
        ("0.1.0", "==0.1.*,<1", True),
        ("0.1.0", "==0.1.*, <1", None),
    ],
)
def test_the_usual_shapes(version: str, specifier: str, answer: bool | None) -> None:
    assert releaseprefix.matches(version, specifier) is answer
