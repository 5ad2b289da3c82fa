"""Why a Gemini CLI row may be history rather than a stalled session.

Gemini CLI stopped serving consumer (personal Google login) accounts in June 2026; Antigravity
CLI succeeds it there. Enterprise Code Assist and API-key use still write this store. The store
does not record which kind of account wrote a session (a personal Google login is also how some
Code Assist licences sign in, so ``settings.json`` cannot tell either), so the one honest
signal is the date: a session last active before June 2026 carries a note saying it is
history. It reads idle and shows under ``?all=1`` like any old session, and the note keeps a row
that stopped moving months ago from being mistaken for a broken reader. A live enterprise or
API-key session is read like any other and carries no note.
"""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["CONSUMER_END", "HISTORY_NOTE", "history_note"]

#: When Gemini CLI stopped serving consumer accounts.
CONSUMER_END = datetime(2026, 6, 1, tzinfo=UTC)
HISTORY_NOTE = (
    "History: recorded before Gemini CLI stopped serving consumer accounts in June 2026 "
    "(Antigravity CLI succeeds it there); enterprise and API-key sessions stay live."
)


def history_note(last_active: datetime | None) -> str | None:
    """The note for a session last active before consumer service ended, else ``None``."""
    if last_active is not None and last_active < CONSUMER_END:
        return HISTORY_NOTE
    return None
