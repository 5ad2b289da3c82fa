"""The extension seam every operator feature plugs into: routes behind the guard, its keys of
``/api/data`` (redacted, never replacing a board key), a revision that moves when it changes,
its page configuration, its store resets in the header, boards it sees, and closing."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from cargento.cli import Options
from cargento.diagnose import OwnStore
from cargento.testing.fakes import FakeHarness
from cargento_web import extensions

#: The counting feature beside this file, importable by name as every feature module is.
FEATURE = "cargento_web_tests_counter_feature"


def _load_counter() -> ModuleType:
    loaded = sys.modules.get(FEATURE)
    if loaded is not None:  # one copy per process, the one the server imports by name
        return loaded
    spec = importlib.util.spec_from_file_location(FEATURE, Path(__file__).with_name("counter_feature.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[FEATURE] = module
    spec.loader.exec_module(module)
    return module


counter = _load_counter()


def _post(server: Any, path: str) -> httpx.Response:
    return httpx.post(server.url + path, headers={"Origin": server.url, "Sec-Fetch-Site": "same-origin"}, timeout=5)


def test_a_feature_adds_a_guarded_route_and_document_keys_and_moves_the_revision(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    server = serve(builder_for([("fake", FakeHarness("fake"))], tmp_path), features=[FEATURE])
    first = httpx.get(server.url + "/api/data", timeout=5).json()
    assert first["counter"]["count"] == 0
    assert first["sessions"] == [], "a feature never replaces a board key"
    assert "sk-ant-api03" not in json.dumps(first["counter"]), "a feature's keys are redacted like the board"
    refused = httpx.post(server.url + "/api/test-counter", headers={"Origin": "http://evil.example"}, timeout=5)
    assert refused.status_code == 403, "a feature's state-changing route sits behind the same guard"
    assert _post(server, "/api/test-counter").json() == {"count": 1}
    deadline = time.monotonic() + 5
    second = first
    while time.monotonic() < deadline:
        second = httpx.get(server.url + "/api/data", timeout=5).json()
        if second["counter"]["count"] == 1:
            break
        time.sleep(0.05)
    assert second["counter"]["count"] == 1
    assert second["revision"] > first["revision"], "a page refetches only when the revision moves"
    ext = server.extensions.items[0]
    time.sleep(1.1)  # past the reuse window: the next fetch builds again
    httpx.get(server.url + "/api/data", timeout=5)
    assert ext.boards == server.app.state.live.builds >= 2, "the feature sees every board built"


def test_the_page_carries_the_feature_config_and_names_a_reset_store(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    server = serve(
        builder_for([("fake", FakeHarness("fake"))], tmp_path), features=[FEATURE], state_dir=tmp_path / "st"
    )
    page = httpx.get(server.url + "/", timeout=5).text
    raw = re.search(r'name="cargento-config" content="([^"]*)"', page)
    assert raw is not None
    import html

    config = json.loads(html.unescape(raw.group(1)))
    assert config["features"]["counter"] == {"on": True, "store": str(tmp_path / "st" / "counter.json")}
    assert {"store": "counter", "text": "it held half a write", "at": None} in config["store_resets"]


def test_a_feature_off_for_the_run_adds_nothing(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    server = serve(
        builder_for([("fake", FakeHarness("fake"))], tmp_path), features=[FEATURE], options=Options(no_annotations=True)
    )
    assert "counter" not in httpx.get(server.url + "/api/data", timeout=5).json()
    assert _post(server, "/api/test-counter").status_code in (404, 405)


def test_serving_ends_by_closing_every_feature(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    counter.CLOSED.clear()
    server = serve(builder_for([("fake", FakeHarness("fake"))], tmp_path), features=[FEATURE])
    server.stop()
    assert counter.CLOSED == ["counter"]


def test_a_feature_that_fails_to_start_is_left_out(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def broken(context: Any) -> None:
        raise RuntimeError("no")

    monkeypatch.setattr(counter, "create", broken)
    assert extensions.load_extensions(object(), [FEATURE]) == []  # type: ignore[arg-type]


def test_diagnose_names_every_features_stores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extensions, "FEATURES", (FEATURE,))
    assert extensions.own_stores({"COUNTER_PATH": "/x/counter.json"}) == [
        OwnStore(name="counter", path="/x/counter.json", status="absent")
    ]
    # The run's flags reach each feature, so a store a flag turns off is named, not read.
    off = extensions.own_stores({"COUNTER_PATH": "/x/counter.json"}, Options(no_annotations=True))
    assert [(s.status, s.detail) for s in off] == [("off", "--no-annotations: not read or written this run")]
