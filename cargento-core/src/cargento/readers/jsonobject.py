"""Reading a small JSON document that must be one object: a ``meta.json``, a settings file, a
roster, a state file.

:func:`load_json_object` reads at most a bounded number of bytes and says why it has no object
(the file is missing, unreadable, too large, not JSON or not an object);
:func:`read_json_object` is the same when the reason does not matter. Neither ever raises for
what is in the file, and neither writes anything. These documents are small, so the standard
library parses them (the hook forwarders read the state file through here and import nothing
heavier).
"""

from __future__ import annotations

import json
import os

from cargento.readers.regular import read_regular, why

# ``typing`` only for the type checker: the hook forwarders import this module on every hook.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["JsonObjectRead", "load_json_object", "read_json_object"]


class JsonObjectRead:
    """What :func:`load_json_object` found: the object, or why there is none. (A plain class,
    not an attrs or typing one: the hook forwarders read the state file through here.)"""

    __slots__ = ("problem", "value")

    def __init__(self, value: dict[str, Any] | None, problem: str | None = None) -> None:
        #: The parsed object; ``None`` when there is none.
        self.value = value
        #: Why there is no object: ``"missing"``, ``"unreadable (…)"``, ``"larger than N
        #: bytes"``, ``"not valid JSON"`` or ``"not a JSON object"``; ``None`` with a value.
        self.problem = problem

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, JsonObjectRead):
            return NotImplemented
        return (self.value, self.problem) == (other.value, other.problem)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"JsonObjectRead(value={self.value!r}, problem={self.problem!r})"


def load_json_object(path: str | os.PathLike[str], *, max_bytes: int) -> JsonObjectRead:
    """The JSON object in *path*, reading at most *max_bytes* (a larger file is refused, not
    cut), or why there is none."""
    try:
        data = read_regular(path, max_bytes + 1)  # never blocks on a named pipe
    except FileNotFoundError:
        return JsonObjectRead(None, "missing")
    except OSError as exc:
        return JsonObjectRead(None, f"unreadable ({why(exc)})")
    if len(data) > max_bytes:
        return JsonObjectRead(None, f"larger than {max_bytes} bytes")
    try:
        value = json.loads(data, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError too
        return JsonObjectRead(None, "not valid JSON")
    if not isinstance(value, dict):
        return JsonObjectRead(None, "not a JSON object")
    return JsonObjectRead(value)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def read_json_object(path: str | os.PathLike[str], *, max_bytes: int) -> dict[str, Any] | None:
    """The JSON object in *path* (at most *max_bytes*), or ``None`` when the file is missing,
    unreadable, larger, not JSON or not an object."""
    return load_json_object(path, max_bytes=max_bytes).value
