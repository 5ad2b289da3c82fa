"""redact_tree's walk, told by exact types, against the plain walk it stands for."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from cargento.redact import redact, redact_tree
from hypothesis import given, settings
from hypothesis import strategies as st


def plain_walk(value: Any) -> Any:
    """What redact_tree answers: every string value redacted at any depth, mappings, lists and
    tuples rebuilt (as dicts and lists), keys and other values kept."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {k: plain_walk(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_walk(v) for v in value]
    return value


class Text(str):
    """A str subclass (an enum's value, a marked-up string)."""


class Items(list[Any]):
    """A list subclass."""


_secrets = st.sampled_from(
    [
        "ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ",
        "sk-ant-api03-" + "a1B2" * 12,
        "AKIAABCDEFGHIJKLMNOP",
        "api_key=abcd1234efgh",
        "see https://u:pw@example.com/x",
        "working",
        "",
    ]
)
_strings = st.one_of(st.text(max_size=40), _secrets, _secrets.map(Text))
_leaves = st.one_of(
    _strings, st.integers(), st.floats(allow_nan=False), st.booleans(), st.none(), st.binary(max_size=4)
)
_trees = st.recursive(
    _leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.lists(inner, max_size=5).map(tuple),
        st.lists(inner, max_size=5).map(Items),
        st.dictionaries(st.text(max_size=8), inner, max_size=5),
        st.dictionaries(st.text(max_size=8), inner, max_size=5).map(OrderedDict),
    ),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(tree=_trees)
def test_the_walk_answers_what_the_plain_walk_answers(tree: Any) -> None:
    got = redact_tree(tree)
    assert got == plain_walk(tree)
    assert _shapes(got) == _shapes(plain_walk(tree))  # dicts and lists where the plain walk made them


@settings(max_examples=100, deadline=None)
@given(parts=st.lists(_trees, max_size=4))
def test_a_memo_shared_across_parts_changes_no_answer(parts: list[Any]) -> None:
    memo: dict[str, str] = {}
    assert [redact_tree(p, memo=memo) for p in parts] == [plain_walk(p) for p in parts]


def test_a_credential_inside_a_row_shaped_tree_is_redacted() -> None:
    row = {"state": "working", "detail": {"args": ["--token", "ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"]}, "n": 3}
    out = redact_tree(row)
    assert out["state"] == "working" and out["n"] == 3
    assert "ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ" not in str(out)


def _shapes(value: Any) -> Any:
    if isinstance(value, dict):
        return ("dict", type(value) is dict, {k: _shapes(v) for k, v in value.items()})
    if isinstance(value, list):
        return ("list", type(value) is list, [_shapes(v) for v in value])
    # A string may come back as the equal one met first (the memo): a str either way.
    return "str" if isinstance(value, str) else type(value).__name__
