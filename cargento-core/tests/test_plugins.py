"""Every PluginRecord status is reachable, and one broken plugin never stops another."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cargento.plugins import Ok, load_registry


def _third_party(records: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in records.items() if k.startswith(("x", "dup"))}


def test_loaded_plugin_from_entry_point(fake_dist: Callable[..., Path], good_plugin: str) -> None:
    fake_dist("cargento-harness-xgood", "xgood", "xgood_plugin", good_plugin.format(key="xgood"))
    reg = load_registry(only=["xgood"])
    rec = reg.records["xgood"]
    assert rec.status == "loaded"
    assert rec.dist == "cargento-harness-xgood" and rec.version == "1.0"
    assert "discover" in rec.hooks and "harness_info" in rec.hooks
    assert reg.loaded() == ["xgood"]


def test_import_error_is_recorded_and_others_load(fake_dist: Callable[..., Path], good_plugin: str) -> None:
    fake_dist("cargento-harness-xbad", "xbad", "xbad_plugin", "raise ImportError('no such thing')\n")
    fake_dist("cargento-harness-xok", "xok", "xok_plugin", good_plugin.format(key="xok"))
    reg = load_registry(only=["xbad", "xok"])
    assert reg.records["xbad"].status == "import-error"
    assert "no such thing" in (reg.records["xbad"].error or "")
    assert reg.records["xbad"].traceback
    assert reg.records["xok"].status == "loaded"
    assert [r.name for r in reg.failed()] == ["xbad"]


def test_incompatible_core_is_not_imported(fake_dist: Callable[..., Path]) -> None:
    fake_dist(
        "cargento-harness-xold",
        "xold",
        "xold_plugin",
        "raise SystemExit('must not be imported')\n",
        requires="cargento-core>=9,<10",
    )
    reg = load_registry(only=["xold"])
    assert reg.records["xold"].status == "incompatible"
    assert ">=9" in (reg.records["xold"].error or "")


def test_unknown_hook_is_invalid(fake_dist: Callable[..., Path], good_plugin: str) -> None:
    src = good_plugin.format(key="xodd") + "\n@hookimpl\ndef read_sessions(ref, ctx):\n    return None\n"
    fake_dist("cargento-harness-xodd", "xodd", "xodd_plugin", src)
    reg = load_registry(only=["xodd"])
    assert reg.records["xodd"].status == "invalid"
    assert "read_sessions" in (reg.records["xodd"].error or "")
    assert reg.loaded() == []
    assert reg.pm.get_plugin("xodd") is None


def test_wrong_signature_is_invalid(fake_dist: Callable[..., Path], good_plugin: str) -> None:
    src = good_plugin.format(key="xsig").replace("def discover(ctx)", "def discover(ctx, extra_argument)")
    fake_dist("cargento-harness-xsig", "xsig", "xsig_plugin", src)
    reg = load_registry(only=["xsig"])
    assert reg.records["xsig"].status == "invalid"


def test_key_mismatch_is_invalid(fake_dist: Callable[..., Path], good_plugin: str) -> None:
    fake_dist("cargento-harness-xkey", "xkey", "xkey_plugin", good_plugin.format(key="other"))
    reg = load_registry(only=["xkey"])
    assert reg.records["xkey"].status == "invalid"
    assert "differs" in (reg.records["xkey"].error or "")


def test_missing_required_hook_is_invalid(fake_dist: Callable[..., Path], good_plugin: str) -> None:
    src = good_plugin.format(key="xhalf").split("@hookimpl\ndef read_session")[0]
    fake_dist("cargento-harness-xhalf", "xhalf", "xhalf_plugin", src)
    reg = load_registry(only=["xhalf"])
    assert reg.records["xhalf"].status == "invalid"
    assert "read_session" in (reg.records["xhalf"].error or "")


def test_duplicate_id(fake_dist: Callable[..., Path], good_plugin: str) -> None:
    fake_dist("cargento-harness-dupa", "dupx", "dupa_plugin", good_plugin.format(key="dupx"))
    fake_dist("cargento-harness-dupb", "dupx", "dupb_plugin", good_plugin.format(key="dupx"))
    reg = load_registry(only=["dupx"])
    statuses = sorted(r.status for r in reg.records.values() if r.name == "dupx")
    assert statuses == ["duplicate", "loaded"]


def test_each_harness_answers_its_own_hooks_after_all_have_loaded(
    fake_dist: Callable[..., Path], good_plugin: str
) -> None:
    """A hook called on one harness while the plugins load (harness_info, for each as it
    registers) answers that harness's own implementation afterwards too, not the plugin that
    registered last."""
    for key in ("xone", "xtwo", "xthree"):
        fake_dist(f"cargento-harness-{key}", key, f"{key}_plugin", good_plugin.format(key=key))
    reg = load_registry(only=["xone", "xtwo", "xthree"])
    assert reg.loaded() == ["xone", "xthree", "xtwo"]
    for key in reg.loaded():
        info = reg.call(key, "harness_info")
        assert isinstance(info, Ok) and info.value.key == key
        assert reg.harnesses[key].key == key


def test_allow_and_block_lists_from_environment(fake_dist: Callable[..., Path], good_plugin: str) -> None:
    fake_dist("cargento-harness-xa", "xa", "xa_plugin", good_plugin.format(key="xa"))
    fake_dist("cargento-harness-xb", "xb", "xb_plugin", good_plugin.format(key="xb"))
    reg = load_registry(env={"CARGENTO_LOAD_PLUGINS": "xa"})
    assert reg.records["xa"].status == "loaded"
    assert reg.records["xb"].status == "blocked"
    reg = load_registry(env={"CARGENTO_BLOCK_PLUGINS": "xa"})
    assert reg.records["xa"].status == "blocked"
    assert reg.records["xb"].status == "loaded"
    assert not [r for r in reg.failed() if r.name in ("xa", "xb")]
