"""The shared ``__repr__`` prints what attrs' generated one would have, character for character."""

from __future__ import annotations

import threading
from typing import Any

import attrs
import pytest
from cargento.sharedrepr import shared_repr


def _twins(name: str, fields: dict[str, Any], **how: Any) -> tuple[type, type]:
    """The same class twice: once with attrs' own repr, once with the shared one."""
    own = attrs.make_class(name, dict(fields), **how)
    shared = shared_repr(attrs.make_class(name, dict(fields), repr=False, **how))
    assert "__repr__" in own.__dict__ and shared.__repr__ is not own.__repr__
    return own, shared


def _fields() -> dict[str, Any]:
    return {
        "n": attrs.field(),
        "text": attrs.field(default='it\'s "quoted"\n'),
        "hidden": attrs.field(default="secret", repr=False),
        "shout": attrs.field(default="x", repr=lambda v: v.upper() + "!"),
        "items": attrs.field(factory=lambda: [1, (2, 3.5), {"k": None}]),
    }


@pytest.mark.parametrize(
    "how",
    [
        {"frozen": True, "slots": True},
        {"frozen": True, "slots": True, "kw_only": True},
        {"frozen": False, "slots": True},
        {"frozen": False, "slots": False},
        {"frozen": True, "slots": False, "eq": False},
    ],
    ids=["frozen-slots", "frozen-kw-only", "mutable-slots", "mutable-dict", "frozen-no-eq"],
)
def test_it_prints_what_attrs_prints(how: dict[str, Any]) -> None:
    own, shared = _twins("Reading", _fields(), **how)
    a, b = own(n=7), shared(n=7)
    assert repr(b) == repr(a) == "Reading(n=7, text='it\\'s \"quoted\"\\n', shout=X!, items=[1, (2, 3.5), {'k': None}])"
    assert str(b) == str(a) and f"{b!r}" == f"{a!r}"
    assert "secret" not in repr(b), "a repr=False field is never shown"


def test_nested_instances_print_through_their_own_reprs() -> None:
    own_inner, shared_inner = _twins("Inner", {"x": attrs.field(), "y": attrs.field(default=None)}, frozen=True)
    own, shared = _twins("Outer", {"inner": attrs.field(), "many": attrs.field(factory=list)})
    a = own(own_inner(1), [own_inner(2, y=own_inner(3))])
    b = shared(shared_inner(1), [shared_inner(2, y=shared_inner(3))])
    assert repr(b) == repr(a) == "Outer(inner=Inner(x=1, y=None), many=[Inner(x=2, y=Inner(x=3, y=None))])"
    # Either kind inside the other prints the same.
    assert repr(shared(own_inner(1))) == repr(own(shared_inner(1)))


def test_a_cycle_prints_three_dots_as_attrs_does() -> None:
    own, shared = _twins("Node", {"name": attrs.field(), "next": attrs.field(default=None)})
    a, b = own("a"), shared("a")
    a.next, b.next = own("b", a), shared("b", b)
    assert repr(b) == repr(a) == "Node(name='a', next=Node(name='b', next=...))"
    # The same instance twice side by side (not a cycle) is printed both times.
    leaf_a, leaf_b = own("leaf"), shared("leaf")
    assert repr(own("pair", [leaf_a, leaf_a])) == repr(shared("pair", [leaf_b, leaf_b]))
    assert repr(shared("pair", [leaf_b, leaf_b])).count("leaf") == 2
    # A cycle through a class with attrs' own repr closes the same way.
    mixed_a, mixed_b = own("m"), shared("m")
    mixed_a.next, mixed_b.next = shared("n", mixed_a), own("n", mixed_b)
    assert repr(mixed_a) == "Node(name='m', next=Node(name='n', next=...))" == repr(mixed_b)


def test_a_repr_that_raises_leaves_nothing_marked() -> None:
    class Boom:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    _own, shared = _twins("Holder", {"v": attrs.field()})
    held = shared(Boom())
    with pytest.raises(RuntimeError):
        repr(held)
    held.v = 1
    assert repr(held) == "Holder(v=1)", "a failed repr does not leave the instance printed as ..."


def test_each_thread_has_its_own_cycle_marks() -> None:
    _own, shared = _twins("Slow", {"v": attrs.field()})
    started, go = threading.Event(), threading.Event()
    seen: list[str] = []

    class Wait:
        def __repr__(self) -> str:
            if threading.current_thread() is not threading.main_thread():
                started.set()
                go.wait(5)  # held here, in the middle of printing `held`
            return "w"

    held = shared(Wait())
    other = threading.Thread(target=lambda: seen.append(repr(held)))
    other.start()
    try:
        assert started.wait(5)
        # The other thread is printing `held`; that is no cycle of this thread's.
        assert repr(held) == "Slow(v=w)"
    finally:
        go.set()
        other.join(5)
    assert seen == ["Slow(v=w)"]


def test_an_unset_init_false_field_prints_nothing_as_attrs_does() -> None:
    fields = {"a": attrs.field(), "later": attrs.field(init=False)}
    own, shared = _twins("Partial", fields, slots=True)
    assert repr(shared(1)) == repr(own(1)) == "Partial(a=1, later=NOTHING)"
    a, b = own(1), shared(1)
    a.later = b.later = "set"
    assert repr(b) == repr(a) == "Partial(a=1, later='set')"


def test_the_class_name_is_the_one_attrs_prints() -> None:
    @shared_repr
    @attrs.frozen(repr=False)
    class Local:
        x: int

    @attrs.frozen
    class LocalOwn:
        x: int

    assert "<locals>" in Local.__qualname__
    assert repr(Local(1)) == "Local(x=1)" and repr(LocalOwn(1)) == "LocalOwn(x=1)"
    assert repr(_Top.Nested(2)) == repr(_TopOwn.Nested(2)).replace("_TopOwn", "_Top") == "_Top.Nested(y=2)"


def test_a_subclass_prints_as_it_would_with_attrs() -> None:
    @shared_repr
    @attrs.define(repr=False)
    class Base:
        a: int

    @attrs.define(repr=False)
    class Undecorated(Base):  # inherits the base's method, as it would inherit attrs' one
        b: int = 0

    @shared_repr
    @attrs.define(repr=False)
    class Decorated(Base):
        b: int = 0

    @attrs.define
    class OwnBase:
        a: int

    @attrs.define(repr=False)
    class OwnUndecorated(OwnBase):
        b: int = 0

    assert repr(Undecorated(1, 2)) == "Undecorated(a=1)" == repr(OwnUndecorated(1, 2)).replace("Own", "")
    assert repr(Decorated(1, 2)) == "Decorated(a=1, b=2)"


def test_it_refuses_a_class_it_would_not_save_anything_on() -> None:
    class Plain:
        pass

    with pytest.raises(TypeError, match="not an attrs class"):
        shared_repr(Plain)
    with pytest.raises(TypeError, match="repr=False"):
        shared_repr(attrs.make_class("Generated", {"x": attrs.field()}))


@shared_repr
@attrs.frozen(repr=False)
class _Top:
    @shared_repr
    @attrs.frozen(repr=False)
    class Nested:
        y: int


@attrs.frozen
class _TopOwn:
    @attrs.frozen
    class Nested:
        y: int
