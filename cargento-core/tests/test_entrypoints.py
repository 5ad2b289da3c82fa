"""Entry points read from the distributions' files are what ``importlib.metadata`` reads.

:mod:`cargento.entrypoints` stands in for ``importlib.metadata`` at every start (its import
alone cost about 15 ms); these tests hold the two to the same answer, over this installation,
over made-up site directories, and over generated ``entry_points.txt`` and ``METADATA`` files.
"""

from __future__ import annotations

import importlib.metadata as md
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import pytest
from cargento import entrypoints
from cargento.plugins import _requires_core
from hypothesis import given, settings
from hypothesis import strategies as st


def _facts(found: list[entrypoints.EntryPoint]) -> list[tuple[Any, ...]]:
    return [(e.name, e.value, e.group, e.dist_name, e.dist_version, list(e.requires)) for e in found]


def _stdlib(group: str) -> list[tuple[Any, ...]]:
    return [
        (e.name, e.value, e.group, e.dist.metadata["Name"], e.dist.version, list(e.dist.requires or ()))
        for e in md.entry_points(group=group)
        if e.dist is not None
    ]


@pytest.mark.parametrize("group", ["cargento.harness", "cargento.serve", "cargento.own_stores", "console_scripts"])
def test_this_installation_reads_the_same(group: str) -> None:
    fast = entrypoints._read_fast(group, sys.path)
    assert fast is not None
    assert _facts(fast) == _stdlib(group)


def _dist(site: Path, folder: str, metadata: str, entry_points: str | None) -> None:
    info = site / folder
    info.mkdir(parents=True)
    (info / "METADATA").write_text(metadata)
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points)


_COMPARE = """
import importlib.metadata as md, json, sys
from cargento import entrypoints
group = sys.argv[1]
fast = entrypoints._read_fast(group, sys.path)
print(json.dumps({
    "fast": None if fast is None else [[e.name, e.value, e.dist_name, e.dist_version, list(e.requires)] for e in fast],
    "stdlib": [[e.name, e.value, e.dist.metadata["Name"], e.dist.version, list(e.dist.requires or ())]
               for e in md.entry_points(group=group)],
    "chosen": [[e.name, e.value, e.dist_name] for e in entrypoints.entry_points(group)],
}))
"""


def _compare_in(paths: list[Path], group: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in paths)}
    out = subprocess.run(
        [sys.executable, "-c", _COMPARE, group], env=env, capture_output=True, text=True, check=True, timeout=60
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def test_made_up_sites_read_the_same_first_copy_winning(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    _dist(
        first,
        "Alpha_Plugin-1.0.dist-info",
        "Metadata-Version: 2.1\nName: alpha-plugin\nVersion: 1.0\nRequires-Dist: cargento-core==0.1.*\n"
        "Requires-Dist: attrs>=23 ; python_version > '3'\n\nBody: not a field\n",
        "# a comment\n[cargento.test]\nalpha = alpha_mod:PLUGIN\n beta=beta_mod \n\n[console_scripts]\nx = y:z\n",
    )
    _dist(first, "gamma-2.0.dist-info", "Name: gamma\nVersion: 2.0\n", "[other]\nnot = ours\n")
    _dist(first, "nometa-0.1.dist-info", "", "[cargento.test]\nlonely = lonely_mod\n")
    # A second copy of alpha further down the path: importlib.metadata keeps the first.
    _dist(second, "alpha_plugin-9.0.dist-info", "Name: alpha-plugin\nVersion: 9.0\n", "[cargento.test]\nold = old\n")
    _dist(second, "delta-3.dist-info", "Name: Delta\nVersion: 3\n", "[cargento.test]\ndelta = d.e.f:g.h\n")
    (second / "not-a-dist").mkdir()
    result = _compare_in([first, second], "cargento.test")
    assert result["fast"] is not None, "this shape is read directly"
    assert result["fast"] == result["stdlib"]
    names = [row[0] for row in result["fast"]]
    assert "alpha" in names and "old" not in names and "delta" in names


@pytest.mark.parametrize("shape", ["egg-info", "zip"])
def test_a_shape_only_importlib_reads_is_left_to_it(tmp_path: Path, shape: str) -> None:
    site = tmp_path / "site"
    _dist(site, "alpha-1.0.dist-info", "Name: alpha\nVersion: 1.0\n", "[cargento.test]\nalpha = a\n")
    paths = [site]
    if shape == "egg-info":
        egg = site / "legacy.egg-info"
        egg.mkdir()
        (egg / "PKG-INFO").write_text("Name: legacy\nVersion: 0.5\n")
        (egg / "entry_points.txt").write_text("[cargento.test]\nlegacy = legacy_mod\n")
    else:
        archive = tmp_path / "bundle.zip"
        with zipfile.ZipFile(archive, "w") as zf:
            zf.writestr("zipped-1.0.dist-info/METADATA", "Name: zipped\nVersion: 1.0\n")
            zf.writestr("zipped-1.0.dist-info/entry_points.txt", "[cargento.test]\nzipped = z\n")
        paths.append(archive)
    result = _compare_in(paths, "cargento.test")
    assert result["fast"] is None
    assert result["chosen"] == [[row[0], row[1], row[2]] for row in result["stdlib"]]
    assert len(result["chosen"]) == 2


def test_load_imports_the_module_and_walks_the_attribute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ep_target_mod.py").write_text("class Outer:\n    class Inner:\n        VALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    def ep(value: str) -> entrypoints.EntryPoint:
        return entrypoints.EntryPoint("x", value, "g", dist_name=None, dist_version=None, requires=())

    assert ep("ep_target_mod:Outer.Inner").load().VALUE == 7  # type: ignore[attr-defined]
    assert ep("ep_target_mod").load().__name__ == "ep_target_mod"  # type: ignore[attr-defined]
    assert ep(" ep_target_mod : Outer ").load().__name__ == "Outer"  # type: ignore[attr-defined]
    assert ep("ep_target_mod:Outer [extra]").load().__name__ == "Outer"  # type: ignore[attr-defined]
    with pytest.raises(ImportError):
        ep("no_such_module_here:thing").load()
    with pytest.raises(AttributeError):
        ep("ep_target_mod:Missing").load()


_LINE = st.sampled_from(
    ["[cargento.test]", "[other]", "[ cargento.test ]", "[[cargento.test]]", "# note", "; semi", "", "   ", "a = b"]
) | st.builds(
    lambda n, v, pad: f"{pad}{n}{pad}={pad}{v}{pad}",
    st.text(alphabet="abcXYZ_.-09 ", min_size=1, max_size=8),
    st.text(alphabet="abc_.:[]09 =", max_size=12),
    st.sampled_from(["", " ", "\t"]),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_LINE, max_size=10))
def test_entry_points_files_read_as_importlib_reads_them(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    with tempfile.TemporaryDirectory() as folder:
        info = Path(folder) / "x-1.dist-info"
        info.mkdir()
        (info / "entry_points.txt").write_text(text)
        try:
            expected: list[tuple[str, str]] | None = [
                (e.name, e.value) for e in md.PathDistribution(info).entry_points if e.group == "cargento.test"
            ]
        except TypeError:  # importlib.metadata refuses a line with no "="
            expected = None
        assert entrypoints._group_pairs(str(info), "cargento.test") == expected


_FIELD = st.sampled_from(["Name", "Version", "Requires-Dist", "name", "Summary", "Requires-Dist"])
_VALUE = st.text(alphabet="abc-_.=<>*0123456789 ;'", max_size=20).map(str.strip)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_FIELD, _VALUE), max_size=8), st.booleans())
def test_metadata_fields_read_as_importlib_reads_them(fields: list[tuple[str, str]], body: bool) -> None:
    text = "".join(f"{k}: {v}\n" for k, v in fields) + ("\nName: in the body\n" if body else "")
    with tempfile.TemporaryDirectory() as folder:
        info = Path(folder) / "x-1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(text)
        dist = md.PathDistribution(info)
        read = entrypoints._fields(str(info))
        assert read.get("Name", [None])[0] == dist.metadata["Name"]
        assert read.get("Version", [None])[0] == dist.metadata["Version"]
        assert read.get("Requires-Dist", []) == (dist.requires or [])


def _requires_core_by_the_full_parser(requires: list[str]) -> str | None:
    """What ``_requires_core`` answered before it passed other lines over by name."""
    from packaging.requirements import InvalidRequirement, Requirement

    for raw in requires:
        try:
            req = Requirement(raw)
        except InvalidRequirement:
            continue
        if req.name.lower().replace("_", "-") == "cargento-core" and not req.marker:
            return str(req.specifier) or None
    return None


_REQUIREMENT = st.builds(
    lambda name, spec, tail: f"{name}{spec}{tail}",
    st.sampled_from(["cargento-core", "cargento_core", "Cargento-Core", "cargento.core", "cargento-core-x", "attrs"]),
    st.sampled_from(["", "==0.1.*", ">=0.1,<0.2", " >= 0.1 , < 0.2 ", "~=0.1", "(>=0.1)", "[x]>=1", " @ file:///x"])
    | st.text(alphabet="<>=!~.*,0123456789abc ", max_size=10),
    st.sampled_from(["", " ; python_version > '3'", " extra", ";"]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_REQUIREMENT, max_size=4))
def test_the_core_requirement_is_what_the_full_parser_finds(requires: list[str]) -> None:
    assert _requires_core(requires) == _requires_core_by_the_full_parser(requires)
