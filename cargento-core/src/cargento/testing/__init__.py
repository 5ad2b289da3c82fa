"""The plugin test kit: fake homes, golden stores, hypothesis strategies, fakes and the contracts.

Opt in from a plugin's ``tests/conftest.py`` with ``pytest_plugins = ["cargento.testing.fixtures"]``.
"""

from cargento.testing.contract import HarnessContract
from cargento.testing.demo_contract import DemoContract
from cargento.testing.homes import (
    build_tree,
    copy_golden,
    make_context,
    snapshot_tree,
)
from cargento.testing.testdata import (
    MissingTestData,
    captures_root,
    golden_root,
    require_captures_root,
    require_golden_root,
)

__all__ = [
    "DemoContract",
    "HarnessContract",
    "MissingTestData",
    "build_tree",
    "captures_root",
    "copy_golden",
    "golden_root",
    "make_context",
    "require_captures_root",
    "require_golden_root",
    "snapshot_tree",
]
