"""Value equality and hashing for attrs classes, one compiled function for every class.

attrs writes ``__eq__`` (and, for a frozen class, ``__hash__``) as Python source for each class
it makes and compiles it: about 170 µs of the 550 a frozen class of twelve fields costs (its
``__repr__`` already shared, :mod:`cargento.sharedrepr`), paid at import by each of the two
hundred value classes a server start makes. :func:`shared_methods` gives a class made with
``repr=False, eq=False`` the shared ``__repr__`` and an ``__eq__`` and ``__hash__`` that answer
what attrs' own would have:

- ``a == b`` is ``NotImplemented`` unless both are of the very same class, then the tuples of
  the fields compared with ``eq`` (attrs' default for a field) are compared; ``a != b`` is its
  negation (Python's own ``__ne__`` does that). Tuples compare an element with itself as equal,
  so an instance equals itself even where a field holds a NaN, which attrs' field-by-field
  ``==`` would call unequal; an instance compared with itself answers at once;
- a frozen class hashes the class and those fields (a field with ``hash=False`` is left out, as
  attrs leaves it out); a mutable one is unhashable (``__hash__`` is ``None``), as attrs makes an
  ``eq`` class that is not frozen.

The ``eq=False`` given to attrs only stops attrs compiling its own: the class has value
equality all the same. A class whose equality is its identity keeps ``@shared_repr`` alone.
Used as the outer decorator, so the attrs decorator (and the attrs mypy plugin) sees the class
as it always did::

    @shared_methods
    @attrs.frozen(kw_only=True, repr=False, eq=False)
    class Reading: ...

Which fields a class compares is worked out when it is decorated (a tuple of names, no
source compiled); a subclass made with ``eq=False`` and not decorated itself compares its own
fields, as it would with attrs' methods inherited.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar

import attrs

from cargento.sharedrepr import shared_repr

__all__ = ["shared_methods"]

_C = TypeVar("_C", bound=type)

#: Where a class keeps how its instances are read for comparing and for hashing.
_READ = "_shared_methods_read"

_Read = tuple[Callable[[Any], tuple[Any, ...]], Callable[[Any], tuple[Any, ...]], int]


def shared_methods(cls: _C) -> _C:
    """Give the attrs class *cls*, made with ``repr=False, eq=False``, the shared ``__repr__``,
    ``__eq__`` and ``__hash__``.

    Raises :class:`TypeError` for a class that is not an attrs class, that already has an
    ``__eq__`` of its own (attrs' generated one: the decorator was not given ``eq=False``), or
    that has a field compared through a key (``eq=callable``: attrs' own methods serve those)."""
    made: type = cls
    if not attrs.has(made):
        raise TypeError(f"shared_methods: {cls.__qualname__} is not an attrs class")
    if "__eq__" in made.__dict__:
        raise TypeError(f"shared_methods: {cls.__qualname__} has an __eq__ already (make it with eq=False)")
    if any(a.eq_key is not None for a in attrs.fields(made)):
        raise TypeError(f"shared_methods: {cls.__qualname__} compares a field through a key")
    shared_repr(made)
    compared, hashed, token = _reading(made)

    def __eq__(self: object, other: object) -> bool:
        # attrs' comparison: NotImplemented unless both are of the very same class.
        if other.__class__ is not self.__class__:
            return NotImplemented
        if self is other:
            return True  # what comparing its fields' tuples would answer, without reading them
        if self.__class__ is made:
            return compared(self) == compared(other)
        read = _reading(self.__class__)[0]  # a subclass that inherited this method
        return read(self) == read(other)

    def __hash__(self: object) -> int:
        if self.__class__ is made:
            return hash((token, hashed(self)))
        _, read, subclass = _reading(self.__class__)
        return hash((subclass, read(self)))

    __eq__.__qualname__ = f"{made.__qualname__}.__eq__"
    __hash__.__qualname__ = f"{made.__qualname__}.__hash__"
    made.__eq__ = __eq__  # type: ignore[method-assign]
    made.__hash__ = __hash__ if attrs.inspect(made).is_frozen else None  # type: ignore[method-assign,assignment]
    return cls


def _reading(cls: type) -> _Read:
    """How instances of *cls* are read: its compared fields, its hashed fields, a class token."""
    read: _Read | None = cls.__dict__.get(_READ)
    if read is None:
        fields = attrs.fields(cls)
        compared = [a.name for a in fields if a.eq]
        hashed = [a.name for a in fields if a.hash is True or (a.hash is None and a.eq)]
        read = (_tuple_of(compared), _tuple_of(hashed), hash(f"{cls.__module__}.{cls.__qualname__}"))
        setattr(cls, _READ, read)
    return read


def _tuple_of(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """A function reading *names* off an instance as one tuple (``attrgetter`` of one name reads
    the bare value)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        only = attrgetter(names[0])
        return lambda instance: (only(instance),)
    return lambda instance: ()
