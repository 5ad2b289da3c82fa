"""The server ends the start's hold on garbage collection (:mod:`cargento.starthold`) once its
first ``/api/data`` is answered, or a few seconds after serving began when no page asks."""

from __future__ import annotations

import gc
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cargento import starthold
from cargento.testing.fakes import FakeHarness
from cargento_web import app as app_module


@pytest.fixture
def held() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    assert gc.get_freeze_count() == 0
    hold = starthold.held_for_start()
    hold.__enter__()
    assert not gc.isenabled()
    yield
    hold.__exit__(None, None, None)
    gc.unfreeze()
    if was:
        gc.enable()
    else:
        gc.disable()


def test_the_first_data_answer_gives_collection_back(
    held: None,
    serve: Callable[..., Any],
    builder_for: Callable[..., Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(app_module, "START_HOLD_S", 600.0)  # only the answer can end it here
    draft = _cyclic_garbage()  # as attrs leaves a first draft of each slotted class
    server = serve(builder_for([("fake", FakeHarness(key="fake"))], tmp_path))
    assert not gc.isenabled(), "serving alone must not end the hold before the timer"
    assert httpx.get(f"{server.url}/api/data", timeout=10).status_code == 200
    _wait_for_collection()
    assert draft() is None, "the start's cyclic garbage is collected before the rest is frozen"


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def _cyclic_garbage() -> weakref.ref[_Node]:
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    return weakref.ref(first)


def test_with_no_page_the_hold_ends_after_a_few_seconds(
    held: None,
    serve: Callable[..., Any],
    builder_for: Callable[..., Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(app_module, "START_HOLD_S", 0.2)
    serve(builder_for([("fake", FakeHarness(key="fake"))], tmp_path))
    _wait_for_collection()


def _wait_for_collection() -> None:
    deadline = time.monotonic() + 10
    while not gc.isenabled() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert gc.isenabled() and not starthold.held()
    # What the start made is left out of later collections (it lives as long as the server).
    assert gc.get_freeze_count() > 0
