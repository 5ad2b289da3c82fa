"""The shared ``__eq__`` and ``__hash__`` answer what attrs' generated ones would, for the
classes Cargento decorates and for Hypothesis' instances of twin classes."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from cargento.sharedmethods import shared_methods
from cargento.testing.modules import every_module
from hypothesis import given
from hypothesis import strategies as st


def _fields() -> dict[str, Any]:
    return {
        "n": attrs.field(),
        "text": attrs.field(default="x"),
        "ignored": attrs.field(default=0, eq=False),  # never compared nor hashed
        "unhashed": attrs.field(default=0, hash=False),  # compared, left out of the hash
        "items": attrs.field(default=()),
    }


def _twins(name: str, **how: Any) -> tuple[type, type]:
    own = attrs.make_class(name, _fields(), **how)
    shared = shared_methods(attrs.make_class(name, _fields(), repr=False, eq=False, **how))
    assert "__eq__" in own.__dict__ and shared.__eq__ is not own.__eq__
    return own, shared


_values = st.one_of(st.integers(-3, 3), st.text(max_size=2), st.none(), st.tuples(st.integers(0, 2)))
_rows = st.fixed_dictionaries(
    {"n": _values, "text": _values, "ignored": _values, "unhashed": _values, "items": _values}
)


@pytest.mark.parametrize("how", [{"frozen": True, "slots": True}, {"frozen": True, "slots": True, "kw_only": True}])
@given(a=_rows, b=_rows)
def test_frozen_classes_compare_and_hash_as_attrs_makes_them(
    how: dict[str, Any], a: dict[str, Any], b: dict[str, Any]
) -> None:
    own, shared = _twins("Reading", **how)
    own_a, own_b, shared_a, shared_b = own(**a), own(**b), shared(**a), shared(**b)
    assert (shared_a == shared_b) is (own_a == own_b)
    assert (shared_a != shared_b) is (own_a != own_b)
    assert shared_a == shared(**a)
    assert (shared_a != shared(**a)) is False
    if shared_a == shared_b:
        assert hash(shared_a) == hash(shared_b), "equal instances hash alike"
    # Differing only in what attrs leaves out of the hash keeps the hash, as attrs keeps it.
    moved = shared(**{**a, "ignored": "other", "unhashed": "other"})
    assert hash(moved) == hash(shared_a)
    assert (moved == shared_a) is (own(**{**a, "ignored": "other", "unhashed": "other"}) == own_a)


@given(a=_rows, b=_rows)
def test_a_mutable_class_compares_as_attrs_does_and_is_unhashable(a: dict[str, Any], b: dict[str, Any]) -> None:
    own, shared = _twins("Holder", frozen=False, slots=True)
    assert own.__hash__ is None and shared.__hash__ is None
    assert (shared(**a) == shared(**b)) is (own(**a) == own(**b))
    with pytest.raises(TypeError):
        hash(shared(**a))


def test_only_the_very_same_class_compares_equal() -> None:
    _, shared = _twins("Reading", frozen=True, slots=True)
    _, other = _twins("Reading", frozen=True, slots=True)  # same name and fields, another class
    assert shared(n=1) != other(n=1)
    assert shared(n=1).__eq__(other(n=1)) is NotImplemented
    assert shared(n=1).__eq__((1, "x", 0, ())) is NotImplemented
    assert shared(n=1) != (1, "x", 0, ())


def test_a_subclass_that_inherits_the_methods_compares_its_own_fields() -> None:
    @shared_methods
    @attrs.frozen(repr=False, eq=False)
    class Base:
        a: int

    @attrs.frozen(repr=False, eq=False)
    class Child(Base):
        b: int

    assert Child(1, 2) != Child(1, 3), "the subclass's own field is compared"
    assert Child(1, 2) == Child(1, 2) and hash(Child(1, 2)) == hash(Child(1, 2))
    assert Child(1, 2) != Base(1), "another class is never equal, as with attrs"
    assert hash(Child(1, 2)) != hash(Child(1, 3))


def test_single_and_no_field_classes() -> None:
    @shared_methods
    @attrs.frozen(repr=False, eq=False)
    class One:
        a: int

    @shared_methods
    @attrs.frozen(repr=False, eq=False)
    class Empty:
        pass

    assert One(1) == One(1) and One(1) != One(2) and hash(One(1)) == hash(One(1))
    assert Empty() == Empty() and hash(Empty()) == hash(Empty())
    assert repr(One(1)) == "One(a=1)", "the shared repr comes with it"


def test_it_refuses_what_it_would_not_answer_as_attrs_does() -> None:
    with pytest.raises(TypeError, match="not an attrs class"):
        shared_methods(type("Plain", (), {}))
    with pytest.raises(TypeError, match="__eq__ already"):
        shared_methods(attrs.make_class("Own", {"a": attrs.field()}, repr=False))
    keyed: dict[str, Any] = {"a": attrs.field(eq=str.lower)}
    with pytest.raises(TypeError, match="through a key"):
        shared_methods(attrs.make_class("Keyed", keyed, repr=False, eq=False))


def _decorated() -> list[type]:
    """Every class in the installed Cargento packages that carries the shared methods."""
    return [
        value
        for module in every_module()
        for value in vars(module).values()
        if isinstance(value, type)
        and value.__module__ == module.__name__
        and attrs.has(value)
        and getattr(value.__eq__, "__module__", None) == "cargento.sharedmethods"
    ]


def test_every_decorated_class_answers_as_its_attrs_twin() -> None:
    classes = _decorated()
    assert len(classes) >= 150, "the value classes of core, the web and the ten harnesses"
    for cls in classes:
        props = attrs.inspect(cls)
        twin = attrs.make_class(
            cls.__name__,
            {a.name: attrs.field(eq=a.eq, hash=a.hash, default=None) for a in attrs.fields(cls)},
            frozen=props.is_frozen,
        )
        names = [a.name for a in attrs.fields(cls)]
        same = {name: 1 for name in names}
        left: object = object.__new__(cls)
        right: object = object.__new__(cls)
        for name in names:
            object.__setattr__(left, name, 1)
            object.__setattr__(right, name, 1)
        assert (left == right) is (twin(**same) == twin(**same)) is True, cls
        for name in names:
            object.__setattr__(right, name, 2)
            assert (left == right) is (twin(**same) == twin(**{**same, name: 2})), (cls, name)
            object.__setattr__(right, name, 1)
        assert (cls.__hash__ is None) is (twin.__hash__ is None), cls


def test_an_instance_compared_with_itself_reads_no_field() -> None:
    reads: list[str] = []

    @shared_methods
    @attrs.frozen(repr=False, eq=False, slots=False)
    class Counted:
        a: int
        b: float

        def __getattribute__(self, name: str) -> Any:
            if name in ("a", "b"):
                reads.append(name)
            return object.__getattribute__(self, name)

    one = Counted(1, float("nan"))
    assert one == one, "equal to itself, a NaN field and all (tuples compare so)"
    assert (one != one) is False
    assert reads == []
    assert one == Counted(1, one.b) and reads, "another instance is read field by field"
