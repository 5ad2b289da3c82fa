"""After-tool reports of the fixed irreversible command shapes, and their bounded record.

Four shapes are matched, and only in their literal forms: a force push (``git push`` with
``--force``, ``-f`` alone or in a short-flag cluster, ``--force-with-lease``,
``--force-if-includes``, or a ``+refspec``), a hard reset (``git reset --hard``), ``DROP
TABLE`` handed to an SQL client on its command line (``psql -c``/``--command``, ``mysql`` or
``mariadb -e``/``--execute``, ``sqlite3 DB "SQL"``), and a recursive delete (``rm`` with
``-r``/``-R``/``--recursive``) naming any target outside a literal temporary prefix
(``/tmp/``, ``/var/tmp/``, ``/private/tmp/``, ``$TMPDIR/``).

Arbitrary shell syntax is not interpreted: the command is split into simple commands at
``;``, ``&&``, ``||``, ``|``, ``&`` and newlines, leading ``NAME=value`` assignments and a
bare ``sudo``/``command``/``exec``/``nohup``/``time`` are skipped, and nothing is expanded.
A command that does not tokenize (an unclosed quote) matches nothing. Matching stops after a
nominal 5 ms.

This module is the pure matcher. The record of reports a dashboard run keeps (what a hook
said ran, not proof that it succeeded) is server state and lives in
:mod:`cargento_web.runtime.reports`.
"""

from __future__ import annotations

import re
import shlex
import time
from collections.abc import Iterator
from typing import Literal

from cargento.labels import clip
from cargento.redact import redact

__all__ = ["Shape", "match_command", "shown_command"]

Shape = Literal["force-push", "hard-reset", "drop-table", "recursive-delete"]

#: Nominal matching budget per command.
BUDGET_S = 0.005

_SEPARATOR_CHARS = frozenset(";&|\n")
_PREFIX_WORDS = frozenset({"sudo", "command", "exec", "nohup", "time"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
#: Environment assignments whose value looks secret (``PGPASSWORD=...``), masked in reports.
_SECRET_ASSIGNMENT = re.compile(
    r"\b([A-Za-z_]*(?:PASS|TOKEN|SECRET|KEY|AUTH)[A-Za-z_]*=)(?:'[^']*'|\"[^\"]*\"|\S+)", re.IGNORECASE
)
_DROP_TABLE = re.compile(r"\bdrop\s+table\b", re.IGNORECASE)
_TEMP_PREFIXES = ("/tmp/", "/var/tmp/", "/private/tmp/", "$TMPDIR/", "${TMPDIR}/")
#: git options that take a separate value before the subcommand.
_GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"})


def _simple_commands(command: str) -> Iterator[list[str]]:
    lexer = shlex.shlex(command.replace("\r", "\n"), posix=True, punctuation_chars=";&|\n")
    lexer.whitespace_split = True
    lexer.whitespace = " \t"
    lexer.commenters = ""
    current: list[str] = []
    for token in lexer:
        if token and set(token) <= _SEPARATOR_CHARS:
            if current:
                yield current
            current = []
            continue
        current.append(token)
    if current:
        yield current


def _strip_prefix(argv: list[str]) -> list[str]:
    i = 0
    while i < len(argv) and (_ASSIGNMENT.match(argv[i]) or argv[i] in _PREFIX_WORDS):
        i += 1
    return argv[i:]


def _program(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _git_shape(args: list[str]) -> Shape | None:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] in _GIT_VALUE_OPTIONS:
            i += 2
        else:
            i += 1
    if i >= len(args):
        return None
    sub, rest = args[i], args[i + 1 :]
    if sub == "push":
        positional = 0
        for arg in rest:
            if arg == "--":
                continue
            if arg in ("--force", "-f", "--force-if-includes") or arg.startswith("--force-with-lease"):
                return "force-push"
            if re.fullmatch(r"-[A-Za-z]*f[A-Za-z]*", arg):
                return "force-push"
            if not arg.startswith("-"):
                positional += 1
                if positional >= 2 and arg.startswith("+"):
                    return "force-push"
        return None
    if sub == "reset" and "--hard" in rest:
        return "hard-reset"
    return None


def _outside_temp(target: str) -> bool:
    if ".." in target.split("/"):
        return True
    return not any(target.startswith(prefix) and len(target) > len(prefix) for prefix in _TEMP_PREFIXES)


def _rm_shape(args: list[str]) -> Shape | None:
    recursive = False
    targets: list[str] = []
    options = True
    for arg in args:
        if options and arg == "--":
            options = False
            continue
        if options and arg.startswith("--"):
            recursive = recursive or arg == "--recursive"
            continue
        if options and arg.startswith("-") and len(arg) > 1:
            recursive = recursive or "r" in arg or "R" in arg
            continue
        targets.append(arg)
    if recursive and targets and any(_outside_temp(t) for t in targets):
        return "recursive-delete"
    return None


def _sql_texts(program: str, args: list[str]) -> Iterator[str]:
    if program == "psql":
        short, long_ = "-c", "--command"
    elif program in ("mysql", "mariadb"):
        short, long_ = "-e", "--execute"
    elif program == "sqlite3":
        positional = [a for a in args if not a.startswith("-")]
        yield from positional[1:]
        return
    else:
        return
    for i, arg in enumerate(args):
        if arg in (short, long_) and i + 1 < len(args):
            yield args[i + 1]
        elif arg.startswith(long_ + "="):
            yield arg[len(long_) + 1 :]
        elif arg.startswith(short) and len(arg) > 2 and not arg.startswith("--"):
            yield arg[2:]


def _shape(argv: list[str]) -> Shape | None:
    argv = _strip_prefix(argv)
    if not argv:
        return None
    program = _program(argv[0])
    if program == "git":
        return _git_shape(argv[1:])
    if program == "rm":
        return _rm_shape(argv[1:])
    if any(_DROP_TABLE.search(text) for text in _sql_texts(program, argv[1:])):
        return "drop-table"
    return None


def match_command(command: str, *, budget_s: float = BUDGET_S) -> tuple[Shape, ...]:
    """The irreversible shapes *command* contains, in order, each once."""
    if not command or not isinstance(command, str):
        return ()
    started = time.perf_counter()
    found: list[Shape] = []
    try:
        for argv in _simple_commands(command):
            shape = _shape(argv)
            if shape is not None and shape not in found:
                found.append(shape)
            if time.perf_counter() - started > budget_s:
                break
    except ValueError:
        return tuple(found)
    return tuple(found)


def shown_command(command: str) -> str:
    """The command as a report shows it: secrets masked, one line, at most 200 characters."""
    return clip(redact(_SECRET_ASSIGNMENT.sub(lambda m: m.group(1) + "…REDACTED", command)), 200)
