"""Shared builders for the operator features' tests: board rows and boards as core publishes
them, with only the fields a feature reads set."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from cargento.board import Board, BoardSession, BoardTask
from cargento.testing.boards import board_of as make_board
from cargento.testing.boards import board_row as make_row


def task(subject: str, status: str, id: str | None = None) -> BoardTask:
    return BoardTask(subject=subject, status=status, id=id)


@pytest.fixture
def row() -> Callable[..., BoardSession]:
    return make_row


@pytest.fixture
def board_of() -> Callable[..., Board]:
    return make_board


@pytest.fixture
def task_of() -> Callable[..., BoardTask]:
    return task
