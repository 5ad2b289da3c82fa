"""One ``__repr__`` for every attrs class, in place of the one attrs compiles for each.

attrs writes a ``__repr__`` for every class it makes as Python source and compiles it: about
70 µs of the 400 a class of eight fields costs, paid at import by each of the two hundred
classes a server start makes, for a method that runs only when something is printed for a
person (a log line, a test's failure).
:func:`shared_repr` gives a class made with ``repr=False`` one already-compiled function
instead, which prints exactly what attrs' own would have: ``ClassName(field=value, ...)`` over
the fields whose ``repr`` is not ``False`` (a field's own ``repr=callable`` formats its value),
in their order, with ``...`` for an instance already being printed further up the same call
(a cycle), and ``NOTHING`` for an ``init=False`` field not set yet.

Used as the outer decorator, so the attrs decorator (and the attrs mypy plugin) still sees
the class as it always did::

    @shared_repr
    @attrs.frozen(kw_only=True, repr=False)
    class Reading: ...

The fields shown are the decorated class's, worked out once when it is decorated; a subclass
made with ``repr=False`` and not decorated itself inherits them, as it would inherit attrs'
generated method.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

import attrs

__all__ = ["shared_repr"]

_C = TypeVar("_C", bound=type)

#: Where the decorated class keeps its shown fields: (name, how to format, read as unset-safe).
_SHOWN = "_shared_repr_fields"

#: Per thread, the ids of the instances whose repr is being made (attrs keeps a set of its own
#: the same way; a cycle through classes of both kinds still closes where attrs closes it).
_printing = threading.local()

_Shown = tuple[tuple[str, Callable[[Any], str] | None, bool], ...]


def shared_repr(cls: _C) -> _C:
    """Give the attrs class *cls*, made with ``repr=False``, the shared ``__repr__``.

    Raises :class:`TypeError` for a class that is not an attrs class, or that already has a
    ``__repr__`` of its own (attrs' generated one: the decorator was not given ``repr=False``,
    so the compile this saves was paid anyway)."""
    made: type = cls  # (attrs.has narrows its argument; cls keeps its own type to be returned)
    if not attrs.has(made):
        raise TypeError(f"shared_repr: {cls.__qualname__} is not an attrs class")
    if "__repr__" in made.__dict__:
        raise TypeError(f"shared_repr: {cls.__qualname__} has a __repr__ already (make it with repr=False)")
    shown: _Shown = tuple(
        (a.name, None if a.repr is True else a.repr, not a.init) for a in attrs.fields(made) if a.repr is not False
    )
    setattr(made, _SHOWN, shown)
    made.__repr__ = _fields_repr  # type: ignore[method-assign]
    return cls


def _fields_repr(self: object) -> str:
    """``ClassName(field=value, ...)``, attrs' own wording (see the module docstring)."""
    try:
        printing: set[int] = _printing.ids
    except AttributeError:
        printing = _printing.ids = set()
    me = id(self)
    if me in printing:
        return "..."
    printing.add(me)
    try:
        shown: _Shown = getattr(self, _SHOWN)
        parts = []
        for name, formats, may_be_unset in shown:
            value = getattr(self, name, attrs.NOTHING) if may_be_unset else getattr(self, name)
            parts.append(f"{name}={value!r}" if formats is None else f"{name}={formats(value)}")
        return f"{self.__class__.__qualname__.rsplit('>.', 1)[-1]}({', '.join(parts)})"
    finally:
        printing.discard(me)
