"""The answer to the first-run disclosure about vendor quota, kept across tabs and restarts.

``capacity.json`` in the state directory holds ``{"vendor_quota": "on"|"off", "answered_at"}``.
No file means the disclosure is unanswered, and until it is answered no credential is read
and no request is made. A file that cannot be read is set aside (never written over), the
answer goes back to unanswered, and :meth:`ConsentStore.own_store` says what was reset.
"""

from __future__ import annotations

import json
import threading
from datetime import datetime
from pathlib import Path

from cargento.atomicfile import write_atomic
from cargento.ownstore import OwnStore
from cargento.timestamps import iso

from cargento_web.runtime.setaside import set_aside

__all__ = ["ANSWERS", "FILE_NAME", "UNANSWERED", "ConsentStore", "read_answer"]

FILE_NAME = "capacity.json"
UNANSWERED = "unanswered"
ANSWERS = ("on", "off")
#: The largest consent file read (it holds two short fields).
FILE_LIMIT = 4096


def read_answer(path: Path) -> tuple[str, str | None]:
    """``(answer, problem)``: the stored answer, or ``unanswered`` and why it could not be read
    (``None`` when there simply is no file)."""
    try:
        with path.open("rb") as f:
            data = f.read(FILE_LIMIT + 1)
    except FileNotFoundError:
        return UNANSWERED, None
    except OSError as exc:
        return UNANSWERED, f"it could not be read ({type(exc).__name__})"
    if len(data) > FILE_LIMIT:
        return UNANSWERED, "it was larger than an answer can be"
    try:
        doc = json.loads(data)
    except ValueError:
        return UNANSWERED, "it was not valid JSON"
    answer = doc.get("vendor_quota") if isinstance(doc, dict) else None
    if answer not in ANSWERS:
        return UNANSWERED, "it held no answer this version understands"
    return str(answer), None


class ConsentStore:
    """The stored answer, re-read before every write."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / FILE_NAME
        self._lock = threading.Lock()
        self.reset_detail: str | None = None
        answer, problem = read_answer(self.path)
        if problem is not None and self.path.exists():
            self._set_aside(problem)
        self._answer = answer

    def _set_aside(self, problem: str) -> None:
        try:
            aside = set_aside(self.path)
        except OSError:
            self.reset_detail = f"the quota consent answer was reset: {problem}, and it could not be moved aside"
            return
        self.reset_detail = f"the quota consent answer was reset: {problem}; it was kept as {aside.name}"

    @property
    def answer(self) -> str:
        with self._lock:
            return self._answer

    def set(self, answer: str, now: datetime) -> bool:
        """Store *answer* (``on``/``off``); ``False`` when the write failed (the answer then
        still holds for this run)."""
        if answer not in ANSWERS:
            raise ValueError(answer)
        with self._lock:
            _, problem = read_answer(self.path)
            if problem is not None and self.path.exists():
                self._set_aside(problem)
            self._answer = answer
            try:
                write_atomic(self.path, json.dumps({"vendor_quota": answer, "answered_at": iso(now)}))
            except OSError:
                return False
            return True

    def own_store(self) -> OwnStore:
        if self.reset_detail is not None:
            return OwnStore(name="quota consent", path=str(self.path), status="reset", detail=self.reset_detail)
        if not self.path.exists():
            return OwnStore(
                name="quota consent", path=str(self.path), status="absent", detail="the disclosure is unanswered"
            )
        return OwnStore(name="quota consent", path=str(self.path), status="read", detail=f"vendor quota {self.answer}")
