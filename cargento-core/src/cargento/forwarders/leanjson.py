"""JSON for the hook forwarders, through the standard library's C accelerator directly.

Importing :mod:`json` costs a forwarder more than its whole exchange with the dashboard: its
decoder compiles regular expressions, which imports :mod:`re` and :mod:`enum`. The parsing and
encoding are done by :mod:`_json` either way; this module drives it with the settings
``json.loads`` and ``json.dumps(..., separators=(",", ":"))`` use, and falls back to
:mod:`json` itself on an interpreter without the accelerator. The results are the same
(a test holds them to it).
"""

from __future__ import annotations

# ``typing`` only for the type checker: the hook forwarders import this module on every hook.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["dumps", "loads"]

_SPACE = " \t\n\r"
_CONSTANTS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class _Settings:
    """What the C scanner reads off its context: ``json.JSONDecoder()``'s defaults."""

    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    strict = True

    def __init__(self, parse_constant: Callable[[str], Any]) -> None:
        self.parse_constant = parse_constant
        self.memo: dict[str, str] = {}


def loads(text: str, *, constants: bool = True) -> Any:
    """The JSON document *text*, as ``json.loads(text)`` gives it; with ``constants=False``
    ``NaN`` and ``Infinity`` are refused. Raises :class:`ValueError` for anything else."""
    try:
        from _json import make_scanner
    except ImportError:  # pragma: no cover - an interpreter without the accelerator
        import json

        return json.loads(text) if constants else json.loads(text, parse_constant=_refuse)
    if text.startswith("\ufeff"):
        raise ValueError("a byte order mark is not JSON")
    scan = make_scanner(_Settings(_CONSTANTS.__getitem__ if constants else _refuse))  # type: ignore[arg-type]
    start = len(text) - len(text.lstrip(_SPACE))
    try:
        value, end = _scan_once(scan, text, start)
    except StopIteration as stop:
        raise ValueError(f"no JSON value at {stop.value}") from None
    if text[end:].strip(_SPACE):
        raise ValueError(f"extra data at {end}")
    return value


def _scan_once(scan: Any, text: str, start: int) -> tuple[Any, int]:
    try:
        return scan(text, start)  # type: ignore[no-any-return]
    except SystemError:
        # The accelerator reports a malformed document as json.decoder's JSONDecodeError
        # (a ValueError), which it finds only once that module is loaded: load it and scan again.
        import json.decoder  # noqa: F401

        return scan(text, start)  # type: ignore[no-any-return]


def _unserialisable(value: object) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def dumps(value: Any, *, sort_keys: bool = False) -> bytes:
    """*value* as compact ASCII JSON, as ``json.dumps(value, separators=(",", ":"))``."""
    try:
        from _json import encode_basestring_ascii, make_encoder
    except ImportError:  # pragma: no cover - an interpreter without the accelerator
        import json

        return json.dumps(value, separators=(",", ":"), sort_keys=sort_keys).encode("ascii")
    if isinstance(value, str):
        return encode_basestring_ascii(value).encode("ascii")
    encode = make_encoder({}, _unserialisable, encode_basestring_ascii, None, ":", ",", sort_keys, False, True)
    return "".join(encode(value, 0)).encode("ascii")
