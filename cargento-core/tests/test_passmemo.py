"""Facts worked out once per pass (``cargento.passmemo.once_per_pass``)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import attrs
from cargento.cache import HarnessCache
from cargento.models import HarnessContext
from cargento.passmemo import once_per_pass

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_one_pass_works_a_fact_out_once_and_the_next_pass_again(tmp_path: Path) -> None:
    cache = HarnessCache()
    made: list[int] = []

    def make() -> int:
        made.append(len(made))
        return len(made)

    first = HarnessContext(now=NOW, env={}, home=tmp_path, platform="linux", cache=cache)
    assert once_per_pass(first, "k", make) == 1
    assert once_per_pass(first, "k", make) == 1
    assert once_per_pass(first, "other", make) == 2
    # The next pass (a new context over the same cache, even at the same moment) works it out again.
    second = attrs.evolve(first)
    assert once_per_pass(second, "k", make) == 3
    assert once_per_pass(second, "k", make) == 3
    assert made == [0, 1, 2]
