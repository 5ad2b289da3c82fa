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

#: Values orjson writes as they are (the exact types: a subclass goes through the dispatch).
_AS_IS: frozenset[type] = frozenset({str, int, float, bool, type(None)})

#: By an attrs class: the names of its ``init`` fields, in declaration order.
_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(a.name for a in cls.__attrs_attrs__ if a.init)  # type: ignore[attr-defined]
    return names


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
    names = _FIELDS.get(kind)
    if names is None and hasattr(kind, "__attrs_attrs__"):
        names = _field_names(kind)
    if names is not None:
        return {name: unstructure(getattr(value, name)) for name in names}
    if kind is tuple or kind is list:
        return [unstructure(item) for item in value]
    writer = _WRITERS.get(kind)
    if writer is not None:
        return writer(value)
    for base, writer in _WRITERS.items():
        if isinstance(value, base):
            return writer(value)
    return value


def _mapping(value: Mapping[Any, Any]) -> dict[Any, Any]:
    return {_key(k): unstructure(v) for k, v in value.items()}


def _sequence(value: Any) -> list[Any]:
    return [unstructure(item) for item in value]


def _bytes(value: bytes) -> str:
    return (b85encode(value) if value else b"").decode("utf8")


#: By type, after the exact types above: the first whose type the value is an instance of.
_WRITERS: dict[type, Callable[[Any], Any]] = {
    datetime: _unstructure_datetime,
    date: lambda value: value,  # orjson writes a date itself (RFC 3339)
    Enum: lambda value: value,  # orjson writes an enum by its value
    str: lambda value: value,
    int: lambda value: value,
    float: lambda value: value,
    bytes: _bytes,
    dict: _mapping,
    Mapping: _mapping,
    tuple: _sequence,
    list: _sequence,
    set: _sequence,
    frozenset: _sequence,
}


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
