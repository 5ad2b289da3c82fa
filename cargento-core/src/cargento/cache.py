"""A bounded per-harness cache that survives between board builds."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

__all__ = ["HarnessCache"]

T = TypeVar("T")


class HarnessCache:
    """A least-recently-used mapping owned by core and lent to one plugin.

    Plugins keep parsed per-file state here (offsets, summaries) so a refresh reads only what
    changed. Core evicts entries of sessions that left the display window with :meth:`retain`.
    """

    def __init__(self, max_entries: int = 65536) -> None:
        self._data: OrderedDict[str, Any] = OrderedDict()
        self.max_entries = max_entries

    def get(self, key: str, default: Any = None) -> Any:
        try:
            value = self._data[key]
        except KeyError:
            return default
        self._data.move_to_end(key)
        return value

    def set(self, key: str, value: Any) -> None:
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.max_entries:
            self._data.popitem(last=False)

    def setdefault(self, key: str, factory: Callable[[], T]) -> T:
        if key in self._data:
            self._data.move_to_end(key)
            value: T = self._data[key]
            return value
        made = factory()
        self.set(key, made)
        return made

    def pop(self, key: str) -> Any:
        return self._data.pop(key, None)

    def retain(self, keep: Callable[[str], bool]) -> int:
        """Drop every entry whose key *keep* rejects; return how many went."""
        gone = [k for k in self._data if not keep(k)]
        for k in gone:
            del self._data[k]
        return len(gone)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._data))
