"""The entry points of one group, read from the installed distributions' own files.

Every ``cargento`` start loads its plugins through an entry-point group. ``importlib.metadata``
answers that by importing the e-mail parser, ``zipfile``, ``csv`` and more (about 15 ms on the
benchmark machine, beside a whole ``cargento --json`` of 0.3 s) and parsing every
distribution's metadata as a message. What it reads for a group is small: each ``*.dist-info``
directory on :data:`sys.path`, its ``entry_points.txt`` and, for a distribution that has an
entry point in the group, the ``Name``, ``Version`` and ``Requires-Dist`` fields of its
``METADATA``. This reads exactly that, in the order ``importlib.metadata`` does, with the same
rule for a distribution installed twice (the first on the path wins).

Where an installation has a shape this does not read (a zip archive on the path, an
``.egg-info`` distribution, a metadata finder other than the standard one), the whole answer
comes from ``importlib.metadata`` instead, so the two never disagree; a test holds the fast
reading to it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

__all__ = ["EntryPoint", "entry_points", "normalise"]


class EntryPoint:
    """One entry point and the distribution that declares it."""

    __slots__ = ("dist_name", "dist_version", "group", "name", "requires", "value")

    def __init__(
        self,
        name: str,
        value: str,
        group: str,
        *,
        dist_name: str | None,
        dist_version: str | None,
        requires: tuple[str, ...],
    ) -> None:
        self.name = name
        #: ``module`` or ``module:attribute`` (as written in ``entry_points.txt``).
        self.value = value
        self.group = group
        #: The distribution's ``Name`` and ``Version``.
        self.dist_name = dist_name
        self.dist_version = dist_version
        #: Its ``Requires-Dist`` lines, as written.
        self.requires = requires

    def load(self) -> object:
        """Import the module and return the named attribute (the module itself without one)."""
        module_name, colon, attribute = self.value.partition(":")
        module_name, attribute = module_name.strip(), attribute.strip()
        if not _dotted(module_name) or (colon and not _dotted(attribute)):
            # Extras or anything unusual: importlib.metadata's own reading of the value.
            import importlib.metadata as md

            return md.EntryPoint(self.name, self.value, self.group).load()
        import importlib

        found: object = importlib.import_module(module_name)
        for part in attribute.split(".") if attribute else ():
            found = getattr(found, part)
        return found

    def __repr__(self) -> str:
        return f"EntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r}, dist={self.dist_name!r})"


def _dotted(text: str) -> bool:
    return bool(text) and all(part.isidentifier() for part in text.split("."))


def entry_points(group: str, *, path: Sequence[str] | None = None) -> list[EntryPoint]:
    """Every entry point in *group* of the distributions on *path* (:data:`sys.path`), in
    ``importlib.metadata``'s order."""
    entries = list(sys.path if path is None else path)
    fast = _read_fast(group, entries) if _standard_finders() else None
    return fast if fast is not None else _read_importlib(group, entries)


def _standard_finders() -> bool:
    """True when only the standard path finder answers metadata questions."""
    from importlib.machinery import PathFinder

    return all(finder is PathFinder or not hasattr(finder, "find_distributions") for finder in sys.meta_path)


def normalise(name: str) -> str:
    """The distribution name as ``importlib.metadata`` compares it (PEP 503)."""
    out: list[str] = []
    for ch in name.lower():
        if ch in "-_.":
            if not out or out[-1] != "-":
                out.append("-")
        else:
            out.append(ch)
    return "".join(out)


def _read_fast(group: str, entries: Sequence[str]) -> list[EntryPoint] | None:
    """The answer from the files directly; ``None`` when the installation has a shape only
    ``importlib.metadata`` reads."""
    seen: set[str] = set()
    found: list[EntryPoint] = []
    for entry in entries:
        root = entry or "."
        try:
            children = os.listdir(root)
        except OSError:
            if os.path.isfile(root):
                return None  # a zip archive on the path
            continue
        infos: dict[str, list[str]] = {}
        for child in children:
            low = child.lower()
            if low.endswith(".egg-info") or (low == "egg-info" and root.lower().endswith(".egg")):
                return None
            if low.endswith(".dist-info"):
                stem = low.rpartition(".")[0].partition("-")[0]
                infos.setdefault(normalise(stem), []).append(os.path.join(root, child))
        for folder in (f for group_of in infos.values() for f in group_of):
            fields: dict[str, list[str | None]] | None = None
            key = _folder_key(os.path.basename(folder))
            if key is None:  # a folder name importlib.metadata does not read the name from
                fields = _fields(folder)
                key = normalise(fields.get("Name", [None])[0] or "")
            if key in seen:
                continue
            seen.add(key)
            pairs = _group_pairs(folder, group)
            if pairs is None:
                return None
            if not pairs:
                continue
            fields = _fields(folder) if fields is None else fields
            found.extend(
                EntryPoint(
                    n,
                    v,
                    group,
                    dist_name=fields.get("Name", [None])[0],
                    dist_version=fields.get("Version", [None])[0],
                    requires=tuple(r for r in fields.get("Requires-Dist", ()) if r is not None),
                )
                for n, v in pairs
            )
    return found


def _folder_key(folder_name: str) -> str | None:
    """What makes two installed copies one distribution, from the folder's name
    (``importlib.metadata``'s rule; ``None`` where it reads the metadata's name instead)."""
    stem, dot, ext = folder_name.rpartition(".")
    return normalise(stem.partition("-")[0]) if dot and ext == "dist-info" else None


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        return None


def _fields(folder: str) -> dict[str, list[str | None]]:
    """The header fields of a distribution's ``METADATA`` (``{}`` when it has none, as
    ``importlib.metadata`` reads a missing file as an empty message)."""
    text = _read_text(os.path.join(folder, "METADATA")) or _read_text(os.path.join(folder, "PKG-INFO")) or ""
    fields: dict[str, list[str | None]] = {}
    last: list[str | None] | None = None
    for line in text.splitlines():
        if not line.strip():
            break  # the body (the long description) starts after the first empty line
        if line[:1] in (" ", "\t") and last is not None and last:
            last[-1] = f"{last[-1]}\n{line}"
            continue
        key, colon, value = line.partition(":")
        if not colon:
            continue
        last = fields.setdefault(key.strip(), [])
        last.append(value.strip())
    # Field names compare case-insensitively in a message; Name, Version and Requires-Dist
    # are written in this case by every build backend, but read them whatever the case.
    folded: dict[str, list[str | None]] = {}
    for key, values in fields.items():
        canonical = {"name": "Name", "version": "Version", "requires-dist": "Requires-Dist"}.get(key.lower(), key)
        folded.setdefault(canonical, []).extend(values)
    return folded


def _group_pairs(folder: str, group: str) -> list[tuple[str, str]] | None:
    """``(name, value)`` of every entry point of *group* in ``entry_points.txt``, read as
    ``importlib.metadata`` reads it; ``None`` for a file it would refuse (a line with no ``=``)."""
    text = _read_text(os.path.join(folder, "entry_points.txt"))
    if not text:
        return []
    pairs: list[tuple[str, str]] = []
    section: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
            continue
        if section is None:
            continue
        name, equals, value = line.partition("=")
        if not equals:
            return None
        if section == group:
            pairs.append((name.strip(), value.strip()))
    return pairs


def _read_importlib(group: str, entries: Sequence[str]) -> list[EntryPoint]:
    import importlib.metadata as md

    if list(entries) == sys.path:
        found = list(md.entry_points(group=group))
    else:  # an explicit path (tests): the same rule over its distributions
        seen: set[str] = set()
        found = []
        for dist in md.distributions(path=list(entries)):
            key = normalise(dist.metadata["Name"] or "")
            if key not in seen:
                seen.add(key)
                found.extend(ep for ep in dist.entry_points if ep.group == group)
    return [
        EntryPoint(
            ep.name,
            ep.value,
            group,
            dist_name=ep.dist.metadata["Name"] if ep.dist is not None else None,
            dist_version=ep.dist.version if ep.dist is not None else None,
            requires=tuple(ep.dist.requires or ()) if ep.dist is not None else (),
        )
        for ep in found
    ]
