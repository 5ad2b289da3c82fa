"""Cargento's JSON: models to JSON-ready trees and bytes, and a cattrs converter for parsing.

Writing a model never goes through cattrs. :func:`unstructure` walks the value itself: an attrs
instance becomes a dict of its ``init`` fields in declaration order (keyed by the attribute's
name), a tuple, list, set or frozenset a list, a datetime an aware UTC ISO string with ``Z``,
bytes a base85 string, a mapping a dict with ``str`` keys (a string enum key by its value), and
anything else (``str``, numbers, ``None``, enums) stays as it is for orjson. That is what the
cattrs orjson converter made for the same models, byte for byte (a test holds the two to it),
without generating and compiling an unstructure function for each class on first use (about
20 ms of every first board) or importing cattrs (about 10 ms) in a process that only writes.

Reading our own JSON is strict (unknown keys refused): :func:`structure` and :func:`loads` use
one cattrs converter, made on first use; a plugin parsing a foreign format makes its own with
``make_converter(strict=False)`` and adds its hooks.
"""

from __future__ import annotations

import operator
from base64 import b85encode
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

from cargento.timestamps import iso, parse_ts

if TYPE_CHECKING:
    from cattrs.preconf.orjson import OrjsonConverter

__all__ = ["configure_converter", "dumps", "loads", "make_converter", "right_sized", "structure", "unstructure"]

T = TypeVar("T")


def _structure_datetime(value: Any, _: type) -> datetime:
    parsed = parse_ts(value)
    if parsed is None:
        raise ValueError(f"not a timestamp: {value!r}")
    return parsed


def _unstructure_datetime(value: datetime) -> str:
    text = iso(value.astimezone(UTC))
    assert text is not None  # only None has no text
    return text


def configure_converter(converter: OrjsonConverter) -> OrjsonConverter:
    """Install Cargento's hooks: datetimes are aware UTC ISO strings with ``Z``."""
    converter.register_unstructure_hook(datetime, _unstructure_datetime)
    converter.register_structure_hook(datetime, _structure_datetime)
    return converter


def make_converter(*, strict: bool = True) -> OrjsonConverter:
    """A fresh converter. ``strict`` refuses unknown keys (our own JSON); lenient ignores them."""
    from cattrs.preconf.orjson import make_converter as make_orjson_converter

    return configure_converter(make_orjson_converter(forbid_extra_keys=strict, omit_if_default=False))


_converter: OrjsonConverter | None = None


def _reading_converter() -> OrjsonConverter:
    global _converter
    if _converter is None:
        _converter = make_converter(strict=True)
    return _converter


# -- writing ---------------------------------------------------------------------------------


def _key(key: Any) -> Any:
    if type(key) is str:
        return key
    if isinstance(key, Enum) and isinstance(key, str):
        return key.value
    return str(key)


def unstructure(value: Any) -> Any:
    """*value* as a tree of dicts, lists and scalars that orjson writes (see the module)."""
    kind = type(value)
    if kind in _AS_IS:
        return value
    writer = _BY_TYPE.get(kind)
    if writer is None:
        writer = _BY_TYPE[kind] = _writer_for(kind)
    return writer(value)


def _sequence(value: Any) -> list[Any]:
    as_is = _AS_IS
    return [item if type(item) in as_is else unstructure(item) for item in value]


def _mapping(value: Mapping[Any, Any]) -> dict[Any, Any]:
    return {_key(k): unstructure(v) for k, v in value.items()}


def _bytes(value: bytes) -> str:
    return (b85encode(value) if value else b"").decode("utf8")


def _as_is(value: Any) -> Any:
    return value


def _attrs_writer(cls: type) -> Callable[[Any], dict[str, Any]]:
    """A writer of *cls*'s instances: its ``init`` fields in declaration order, by name, their
    values read as one tuple (``operator.attrgetter``, in C)."""
    names = tuple(a.name for a in cls.__attrs_attrs__ if a.init)  # type: ignore[attr-defined]
    if not names:
        return lambda value: {}
    read = operator.attrgetter(*names)
    as_is = _AS_IS
    if len(names) == 1:
        (name,) = names
        return lambda value: {name: unstructure(read(value))}

    def write(value: Any) -> dict[str, Any]:
        return {
            name: item if type(item) in as_is else unstructure(item)
            for name, item in zip(names, read(value), strict=True)
        }

    return write


#: After the exact types of :data:`_AS_IS`, by the first base the type is a subclass of.
_BY_BASE: tuple[tuple[type, Callable[[Any], Any]], ...] = (
    (datetime, _unstructure_datetime),
    (date, _as_is),  # orjson writes a date itself (RFC 3339)
    (Enum, _as_is),  # orjson writes an enum by its value
    (str, _as_is),
    (int, _as_is),
    (float, _as_is),
    (bytes, _bytes),
    (Mapping, _mapping),
    (tuple, _sequence),
    (list, _sequence),
    (set, _sequence),
    (frozenset, _sequence),
)


def _writer_for(kind: type) -> Callable[[Any], Any]:
    if hasattr(kind, "__attrs_attrs__"):
        return _attrs_writer(kind)
    for base, writer in _BY_BASE:
        if issubclass(kind, base):
            return writer
    return _as_is


#: Values orjson writes as they are (the exact types: a subclass goes through the dispatch).
_AS_IS: frozenset[type] = frozenset({str, int, float, bool, type(None)})

#: The writer of each type met, found once.
_BY_TYPE: dict[type, Callable[[Any], Any]] = {tuple: _sequence, list: _sequence, dict: _mapping}


def dumps(value: Any, *, indent: bool = False) -> bytes:
    """Serialise a model (or plain data) to JSON bytes."""
    option = orjson.OPT_INDENT_2 if indent else 0
    return orjson.dumps(unstructure(value), option=option | orjson.OPT_NON_STR_KEYS)


def right_sized(data: bytes) -> bytes:
    """*data* copied into an allocation of its own length, for JSON bytes a store or a cache keeps.

    orjson (3.12 on) hands back the buffer it serialised into, never shrunk: at least 4 KiB
    however short the output (a 200-byte record costs 4 KiB of resident memory), and up to
    twice the length of a long one. ``sys.getsizeof`` reports the length, not the allocation;
    tracemalloc and the process's RSS show it. The copy costs a ``memcpy``.
    """
    return bytes(memoryview(data))


# -- reading ---------------------------------------------------------------------------------


def structure(data: Any, cls: type[T]) -> T:
    return _reading_converter().structure(data, cls)


def loads(data: bytes | str, cls: type[T]) -> T:
    """Parse JSON into *cls* strictly."""
    return _reading_converter().structure(orjson.loads(data), cls)
