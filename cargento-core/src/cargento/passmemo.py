"""What one pass over a harness's sessions works out once for all of them.

A plugin's ``read_session`` is called once per session, with the same ``HarnessContext`` for
every session of one pass (core makes a new context for every harness in every build). Facts
that belong to the store rather than to one session (where its root is, what its shared logs
say) are worked out on the first read of the pass and handed to the others by
:func:`once_per_pass`; the next pass works them out again, so nothing a store changes between
builds is missed.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

import attrs

from cargento.models import HarnessContext
from cargento.sharedrepr import shared_repr

__all__ = ["once_per_pass"]

T = TypeVar("T")


@shared_repr
@attrs.frozen(repr=False, eq=False)
class _Held(Generic[T]):
    #: The context of the pass that worked the value out (dead once that pass is over).
    owner: weakref.ref[HarnessContext]
    value: T


def once_per_pass(ctx: HarnessContext, key: str, make: Callable[[], T]) -> T:
    """``make()`` the first time *key* is asked for in *ctx*'s pass, kept in ``ctx.cache``
    for the rest of that pass."""
    held = ctx.cache.get(key)
    if isinstance(held, _Held) and held.owner() is ctx:
        value: T = held.value
        return value
    made = make()
    ctx.cache.set(key, _Held(weakref.ref(ctx), made))
    return made
