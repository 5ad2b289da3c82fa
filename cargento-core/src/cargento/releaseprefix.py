"""A plugin's ``cargento-core`` requirement against core's plain release, without :mod:`packaging`.

Plugins require core with a prefix clause (``==0.1.*``) or a range (``>=0.1,<1``), and core's
own version is a plain release (``0.1.0``). For those shapes PEP 440's answer is a comparison
of release numbers, each side padded with zeros. Importing ``packaging.version`` and
``packaging.specifiers`` and compiling their grammars cost every start about 4 ms for it.
Anything else (``~=``, ``===``, a pre-release, an epoch, a local label, leading zeros, spaces)
answers ``None``, and the caller asks :mod:`packaging` (a test holds both to the same answer
over generated input).
"""

from __future__ import annotations

__all__ = ["clause", "matches", "plain_specifier", "release"]

_OPERATORS = ("==", "!=", "<=", ">=", "<", ">")


def release(text: str) -> tuple[int, ...] | None:
    """The release numbers of a plain release (``1.2.3``), or ``None`` for any other text."""
    parts = text.split(".")
    if not all(p.isascii() and p.isdigit() and (p == "0" or p[0] != "0") for p in parts):
        return None
    return tuple(int(p) for p in parts)


def clause(text: str) -> tuple[str, tuple[int, ...], bool] | None:
    """``(operator, release, prefix)`` of one plain clause (``>=0.1``, ``==0.1.*``), or ``None``."""
    for op in _OPERATORS:
        if text.startswith(op):
            rest = text[len(op) :]
            prefix = rest.endswith(".*")
            if prefix:
                if op not in ("==", "!="):
                    return None
                rest = rest[:-2]
            found = release(rest)
            return None if found is None else (op, found, prefix)
    return None


def plain_specifier(text: str) -> bool:
    """True when *text* is one or more plain clauses joined by commas, written as
    :class:`~packaging.specifiers.SpecifierSet` writes them back (one clause, or several
    in its order, each once)."""
    parts = text.split(",")
    found = [clause(p) for p in parts]
    if any(c is None for c in found) or parts != sorted(parts):
        return False
    # A set: clauses equal once trailing zeros go (``>=0``, ``>=0.0``) are one clause.
    keys = {(c[0], _stripped(c[1]), c[2]) for c in found if c is not None}
    return len(keys) == len(parts)


def _stripped(numbers: tuple[int, ...]) -> tuple[int, ...]:
    end = len(numbers)
    while end > 1 and numbers[end - 1] == 0:
        end -= 1
    return numbers[:end]


def _pad(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    width = max(len(a), len(b))
    return a + (0,) * (width - len(a)), b + (0,) * (width - len(b))


def _holds(version: tuple[int, ...], op: str, wanted: tuple[int, ...], prefix: bool) -> bool:
    if prefix:
        padded = version + (0,) * (len(wanted) - len(version))
        same = padded[: len(wanted)] == wanted
        return same if op == "==" else not same
    v, w = _pad(version, wanted)
    return {"==": v == w, "!=": v != w, "<": v < w, "<=": v <= w, ">": v > w, ">=": v >= w}[op]


def matches(version: str, specifier: str) -> bool | None:
    """Whether *version* satisfies *specifier* when both are of the plain shapes; else ``None``."""
    found = release(version)
    if found is None:
        return None
    clauses = [clause(p) for p in specifier.split(",")]
    if any(c is None for c in clauses):
        return None
    return all(_holds(found, *c) for c in clauses if c is not None)
