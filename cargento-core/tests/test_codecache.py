"""attrs' generated methods taken compiled from Cargento's code cache (cargento.codecache)."""

from __future__ import annotations

import builtins
import json
import keyword
import marshal
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import attr._make
import attrs
import pytest
from cargento import codecache
from cargento.diagnose import code_cache_store
from hypothesis import example, given, settings
from hypothesis import strategies as st


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[codecache.CodeCache]:
    """The cache installed over *tmp_path* for the test, attrs' own compile given back after."""
    made = codecache.install(tmp_path)
    assert made is not None
    try:
        yield made
    finally:
        codecache.uninstall()
    assert "compile" not in attr._make.__dict__


def _make_classes() -> list[type]:
    """Three attrs classes whose generated ``__init__`` differ (defaults, a factory, a validator,
    a converter, keyword-only, frozen); made again, each makes the same scripts."""

    @attrs.frozen(kw_only=True)
    class Frozen:
        name: str
        count: int = 0
        tags: tuple[str, ...] = attrs.field(factory=tuple)

    @attrs.define
    class Mutable:
        size: int = attrs.field(converter=int)
        label: str = attrs.field(default="x", validator=attrs.validators.instance_of(str))

    @attrs.define(slots=False)
    class Plain:
        a: int
        b: list[int] = attrs.Factory(list)

    return [Frozen, Mutable, Plain]


def _distinct(tag: str, count: int) -> None:
    """*count* classes whose scripts are all different (their file names and fields differ)."""
    for i in range(count):
        attrs.make_class(f"Distinct_{tag}_{i}", {f"field_{tag}_{i}": attrs.field()})


def _behaviour(classes: list[type]) -> list[object]:
    frozen, mutable, plain = classes
    seen: list[object] = []
    f = frozen(name="n", count=2)
    seen.append((f.name, f.count, f.tags))
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        f.name = "m"
    m = mutable("7")
    seen.append((m.size, m.label))
    with pytest.raises(TypeError):
        mutable(1, label=3)
    p = plain(1)
    seen.append((p.a, p.b, plain(2).b is not p.b))
    with pytest.raises(TypeError):
        frozen("positional")
    return seen


def test_a_second_start_takes_every_script_from_the_file_and_classes_behave_the_same(tmp_path: Path) -> None:
    without = _behaviour(_make_classes())
    first = codecache.install(tmp_path)
    assert first is not None
    try:
        assert _behaviour(_make_classes()) == without
        assert first.compiled >= 3 and first.taken == 0
        assert first.keep() is True
        assert first.keep() is False  # nothing new compiled since
    finally:
        codecache.uninstall()
    second = codecache.install(tmp_path)
    assert second is not None
    try:
        assert second.loaded >= 3
        assert _behaviour(_make_classes()) == without
        assert second.compiled == 0 and second.taken >= 3
        assert second.keep() is False
    finally:
        codecache.uninstall()


def test_every_code_object_kept_is_the_one_compile_returns(cache: codecache.CodeCache) -> None:
    _make_classes()
    assert cache.keep()
    found = codecache._read(cache.path, cache.flags)
    assert found
    for (script, filename), code in found.items():
        # attrs' own call inherits its module's futures (annotations): compiled as attrs does.
        assert code == builtins.compile(script, filename, "exec", cache.flags, True)
        assert code.co_flags & cache.flags == cache.flags


def test_a_call_attrs_does_not_make_goes_to_the_builtin(cache: codecache.CodeCache) -> None:
    assert cache.compile("1 + 1", "<x>", "eval") == builtins.compile("1 + 1", "<x>", "eval")
    assert cache.compile(b"x = 1", "<x>", "exec") == builtins.compile(b"x = 1", "<x>", "exec")
    assert cache.compile("x = 1", "<x>", "exec", 0, True) == builtins.compile("x = 1", "<x>", "exec", 0, True)
    assert cache.compiled == 0 and not cache.codes


_names = st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True), min_size=1, max_size=6, unique=True)


@settings(max_examples=40, deadline=None)
@given(names=_names, frozen=st.booleans(), kw_only=st.booleans(), defaults=st.integers(0, 6))
@example(names=["in"], frozen=False, kw_only=False, defaults=0)  # a keyword the draw once found
def test_any_class_made_through_the_cache_initialises_as_attrs_makes_it(
    tmp_path_factory: pytest.TempPathFactory, names: list[str], frozen: bool, kw_only: bool, defaults: int
) -> None:
    # A Python keyword ("in", "if") is no attribute name attrs can write an __init__ for.
    names = [n for n in names if n not in {"self", "attr_dict"} and not n.startswith("_") and not keyword.iskeyword(n)]
    names = names or ["a"]
    fields = {n: attrs.field(default=i) if i >= len(names) - defaults else attrs.field() for i, n in enumerate(names)}

    def make() -> type:
        return attrs.make_class("Made", dict(fields), frozen=frozen, kw_only=kw_only)

    plain = make()
    directory = tmp_path_factory.mktemp("codecache")
    for _ in range(2):  # compiled, then taken from the file
        codecache.install(directory)
        try:
            cached = make()
            codecache.keep()
        finally:
            codecache.uninstall()
        values = {n: i * 3 for i, n in enumerate(names)}
        a, b = plain(**values), cached(**values)
        assert attrs.asdict(a) == attrs.asdict(b)
        required = [n for n in names if attrs.fields_dict(plain)[n].default is attrs.NOTHING]
        if required:
            with pytest.raises(TypeError):
                cached()
            with pytest.raises(TypeError):
                plain()


def _kept_cache(directory: Path) -> Path:
    """A cache file under *directory* as a run that made :func:`_make_classes` kept it."""
    made = codecache.install(directory)
    assert made is not None
    try:
        _make_classes()
        assert made.keep()
    finally:
        codecache.uninstall()
    return made.path


def _bytes(path: Path) -> bytes:
    return path.read_bytes()


@pytest.mark.parametrize(
    ("content", "mode", "why"),
    [
        (b"something else entirely", 0o600, "not a Cargento code cache"),
        (b"cargento attrs code cache\n", 0o600, "not a Cargento code cache"),  # the header cut short
        (None, 0o666, "writable by other users"),
    ],
)
def test_a_file_not_ours_is_not_used_and_never_written_over(
    tmp_path: Path, content: bytes | None, mode: int, why: str
) -> None:
    path = codecache.cache_path(tmp_path)
    path.parent.mkdir(parents=True)
    if content is None:  # a real cache, but others may write it: code from it could be anyone's
        _kept_cache(tmp_path)
    else:
        path.write_bytes(content)
    path.chmod(mode)
    before = _bytes(path)
    made = codecache.install(tmp_path)
    assert made is not None
    try:
        assert made.problem is not None and why in made.problem
        assert made.loaded == 0
        _make_classes()
        assert made.compiled >= 3  # compiled as attrs does, nothing taken
        assert made.keep() is False
    finally:
        codecache.uninstall()
    assert _bytes(path) == before
    described = codecache.describe(tmp_path)
    assert described["status"] == "unreadable" and why in (described["detail"] or "")


def test_a_damaged_file_is_not_unmarshalled_and_never_written_over(tmp_path: Path) -> None:
    path = _kept_cache(tmp_path)
    data = bytearray(path.read_bytes())
    data[-40] ^= 0x5A  # one byte of the marshalled code
    path.write_bytes(bytes(data))
    made = codecache.install(tmp_path)
    assert made is not None
    try:
        assert made.problem is not None and "damaged" in made.problem and made.loaded == 0
        _distinct("after_damage", 2)
        assert made.keep() is False
    finally:
        codecache.uninstall()
    assert path.read_bytes() == bytes(data)


@settings(max_examples=200, deadline=None)
@given(
    tail=st.one_of(
        st.binary(max_size=300).map(lambda b: (b, False)),
        # What only this module could have written: marshalled values of any shape, digested.
        st.recursive(
            st.one_of(st.text(max_size=8), st.integers(), st.none(), st.binary(max_size=8)),
            lambda inner: st.one_of(
                st.lists(inner, max_size=4).map(tuple), st.dictionaries(st.text(max_size=4), inner, max_size=4)
            ),
            max_leaves=12,
        ).map(lambda v: (marshal.dumps(v), True)),
    )
)
def test_any_bytes_after_the_header_are_read_or_refused_at_once(
    tmp_path_factory: pytest.TempPathFactory, tail: tuple[bytes, bool]
) -> None:
    """marshal.loads can be kept busy for seconds by damaged bytes: only a payload whose digest
    matches reaches it (random bytes never carry their digest), and whatever the file holds,
    the read answers or refuses."""
    payload, digested = tail
    flags = codecache._future_flags(attr._make)
    directory = tmp_path_factory.mktemp("fuzz")
    path = codecache.cache_path(directory)
    path.parent.mkdir(parents=True)
    digest = codecache._digest(payload) if digested else b"0" * 32
    path.write_bytes(codecache._header(flags) + digest + b"\n" + payload)
    path.chmod(0o600)
    try:
        found = codecache._read(path, flags)
    except (codecache._NotOurs, codecache._Stale):
        return
    assert all(codecache._valid_entry(k, v) for k, v in found.items())


def test_bytes_that_claim_a_huge_tuple_are_refused_before_marshal_reads_them(tmp_path: Path) -> None:
    flags = codecache._future_flags(attr._make)
    path = codecache.cache_path(tmp_path)
    path.parent.mkdir(parents=True)
    slow = bytes.fromhex("28eaf17d360264a5860dc55191a26bdeecc6bde36d5f726a2bf9eebd1d25223caa317f4399")
    path.write_bytes(codecache._header(flags) + b"0" * 32 + b"\n" + slow)  # 4.2 s in marshal.loads
    path.chmod(0o600)
    with pytest.raises(codecache._NotOurs, match="damaged"):
        codecache._read(path, flags)


def test_a_symbolic_link_is_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(b"x")
    path = codecache.cache_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.symlink_to(elsewhere)
    made = codecache.install(tmp_path)
    assert made is not None
    try:
        assert made.problem is not None
        _make_classes()
        assert made.keep() is False
    finally:
        codecache.uninstall()
    assert path.is_symlink() and elsewhere.read_bytes() == b"x"


def test_a_file_another_interpreter_made_is_reset_and_replaced(tmp_path: Path) -> None:
    path = codecache.cache_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"cargento attrs code cache\npython 00000000 O0 flags 0 attrs 1.2 cargento 0.0.1\n...")
    path.chmod(0o600)
    assert codecache.describe(tmp_path)["status"] == "reset"
    made = codecache.install(tmp_path)
    assert made is not None
    try:
        assert made.reset is not None and "python 00000000" in made.reset and made.problem is None
        _make_classes()
        assert made.keep() is True
    finally:
        codecache.uninstall()
    described = codecache.describe(tmp_path)
    assert described["status"] == "read" and (described["detail"] or "").endswith("compiled scripts")
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)


def test_the_file_is_bounded_and_keeps_what_the_run_used_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made = codecache.install(tmp_path)
    assert made is not None
    try:
        _distinct("older", 6)
        assert made.keep()
    finally:
        codecache.uninstall()
    monkeypatch.setattr(codecache, "MAX_ENTRIES", 5)
    made = codecache.install(tmp_path)
    assert made is not None
    try:
        _distinct("newest", 2)
        used = list(made.used)
        assert made.keep()
    finally:
        codecache.uninstall()
    kept = codecache._read(made.path, made.flags)
    assert len(kept) == 5
    assert list(kept)[: len(used)] == used


def test_a_script_a_run_replaced_is_dropped_and_the_others_kept(tmp_path: Path) -> None:
    earlier = codecache.CodeCache(codecache.cache_path(tmp_path))
    earlier.load()
    earlier.compile("a = 1", "<edited>", "exec")
    earlier.compile("b = 1", "<untouched>", "exec")
    assert earlier.keep()
    later = codecache.CodeCache(codecache.cache_path(tmp_path))
    later.load()
    assert later.loaded == 2
    later.compile("a = 2", "<edited>", "exec")  # the class's source changed
    assert later.keep()
    assert set(codecache._read(later.path, 0)) == {("a = 2", "<edited>"), ("b = 1", "<untouched>")}


def test_the_writes_merge_with_what_another_process_kept_meanwhile(tmp_path: Path) -> None:
    one = codecache.CodeCache(codecache.cache_path(tmp_path))
    two = codecache.CodeCache(codecache.cache_path(tmp_path))
    one.load()
    two.load()
    one.compile("a = 1", "<one>", "exec")
    two.compile("b = 2", "<two>", "exec")
    assert one.keep() and two.keep()
    assert set(codecache._read(one.path, 0)) == {("a = 1", "<one>"), ("b = 2", "<two>")}


def test_a_demo_run_reads_the_cache_and_writes_nothing(cache: codecache.CodeCache) -> None:
    codecache.read_only()
    _make_classes()
    assert cache.compiled >= 3
    assert codecache.keep() is False
    assert not cache.path.exists()


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_"))},
        "HOME": str(tmp_path / "home"),
        "CARGENTO_HOME": str(tmp_path / "state"),
    }


_SECOND_START = """
import json, sys
from cargento import codecache
cache = codecache.install_from({"CARGENTO_HOME": sys.argv[1]})
from cargento.board import BoardBuilder
from cargento.plugins import load_registry
load_registry(env={})
print(json.dumps({"loaded": cache.loaded, "compiled": cache.compiled, "taken": cache.taken}))
"""


def test_the_console_script_keeps_its_compiled_methods_and_the_next_start_compiles_none(tmp_path: Path) -> None:
    env = _env(tmp_path)
    (tmp_path / "home").mkdir()
    subprocess.run(
        [sys.executable, "-m", "cargento.cli", "--json"], env=env, capture_output=True, check=True, timeout=120
    )
    path = codecache.cache_path(tmp_path / "state")
    kept = codecache._read(path, codecache._future_flags(attr._make))
    assert len(kept) >= 50  # the models, the builder, every harness plugin's records
    done = subprocess.run(
        [sys.executable, "-c", _SECOND_START, str(tmp_path / "state")],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    seen = json.loads(done.stdout)
    assert seen["compiled"] == 0 and seen["taken"] >= 50, seen
    store = code_cache_store(env)
    assert store.status == "read" and store.path == str(path) and store.detail == f"{len(kept)} compiled scripts"


_SCRIPTS_OF_EVERY_CLASS = """
import json
import attr._make

scripts = {}
builtin = compile


def noting(source, filename, mode, *args, **kwargs):
    if type(filename) is str and filename.startswith("<attrs generated"):
        scripts.setdefault(filename, []).append(source)
    return builtin(source, filename, mode, *args, **kwargs)


attr._make.compile = noting
from cargento.testing.modules import every_module

every_module()
print(json.dumps(scripts))
"""


def test_every_class_of_every_installed_package_makes_one_script_in_every_process(tmp_path: Path) -> None:
    """The cache serves a script only if the next process makes the same one: a class whose
    generated methods differ with the hash seed (attrs' own ``__hash__``) compiled at every
    start and left one more script in the file each time (OpenCode's token tally did)."""
    made = []
    for seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", _SCRIPTS_OF_EVERY_CLASS],
            env={**_env(tmp_path), "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        made.append(json.loads(done.stdout))
    first, second = made
    assert len(first) >= 200, "core's, the web's and the ten harnesses' classes"
    assert first.keys() == second.keys()
    differ = sorted(name for name in first if first[name] != second[name])
    assert differ == [], f"made differently under another hash seed: {differ}"


def test_main_called_with_arguments_installs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cargento.cli import main

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CARGENTO_HOME", str(tmp_path / "state"))
    assert main(["--json"]) == 0
    assert codecache.installed() is None and "compile" not in attr._make.__dict__
    assert not (tmp_path / "state" / "cache").exists()


@pytest.mark.parametrize("flag", ["--diagnose", "--forget", "--status"])
def test_a_run_that_writes_nothing_of_the_users_keeps_no_cache(tmp_path: Path, flag: str) -> None:
    (tmp_path / "home").mkdir()
    subprocess.run([sys.executable, "-m", "cargento.cli", flag], env=_env(tmp_path), capture_output=True, timeout=120)
    assert not (tmp_path / "state" / "cache").exists()
