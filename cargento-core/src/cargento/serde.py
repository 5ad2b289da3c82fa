"""One cattrs converter factory on orjson; never the global converter.

Cargento's own JSON is structured strictly (unknown keys refused); a plugin parsing a foreign
format makes its own converter with ``make_converter(strict=False)`` and adds its hooks.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, TypeVar

import orjson
from cattrs.preconf.orjson import OrjsonConverter
from cattrs.preconf.orjson import make_converter as _make_orjson

from cargento.timestamps import iso, parse_ts

__all__ = ["configure_converter", "dumps", "loads", "make_converter", "right_sized", "structure", "unstructure"]

T = TypeVar("T")


def _structure_datetime(value: Any, _: type) -> datetime:
    parsed = parse_ts(value)
    if parsed is None:
        raise ValueError(f"not a timestamp: {value!r}")
    return parsed


def configure_converter(converter: OrjsonConverter) -> OrjsonConverter:
    """Install Cargento's hooks: datetimes are aware UTC ISO strings with ``Z``."""
    converter.register_unstructure_hook(datetime, lambda d: iso(d.astimezone(UTC)))
    converter.register_structure_hook(datetime, _structure_datetime)
    return converter


def make_converter(*, strict: bool = True) -> OrjsonConverter:
    """A fresh converter. ``strict`` refuses unknown keys (our own JSON); lenient ignores them."""
    return configure_converter(_make_orjson(forbid_extra_keys=strict, omit_if_default=False))


_CONVERTER = make_converter(strict=True)


def unstructure(value: Any) -> Any:
    return _CONVERTER.unstructure(value)


def structure(data: Any, cls: type[T]) -> T:
    return _CONVERTER.structure(data, cls)


def dumps(value: Any, *, indent: bool = False) -> bytes:
    """Serialise a model (or plain data) to JSON bytes."""
    option = orjson.OPT_INDENT_2 if indent else 0
    return orjson.dumps(_CONVERTER.unstructure(value), option=option | orjson.OPT_NON_STR_KEYS)


def right_sized(data: bytes) -> bytes:
    """*data* copied into an allocation of its own length, for JSON bytes a store or a cache keeps.

    orjson (3.12 on) hands back the buffer it serialised into, never shrunk: at least 4 KiB
    however short the output (a 200-byte record costs 4 KiB of resident memory), and up to
    twice the length of a long one. ``sys.getsizeof`` reports the length, not the allocation;
    tracemalloc and the process's RSS show it. The copy costs a ``memcpy``.
    """
    return bytes(memoryview(data))


def loads(data: bytes | str, cls: type[T]) -> T:
    """Parse JSON into *cls* strictly."""
    return _CONVERTER.structure(orjson.loads(data), cls)
