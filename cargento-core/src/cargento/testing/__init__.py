"""The plugin test kit: fake homes, golden stores, hypothesis strategies, fakes and the contracts.

Opt in from a plugin's ``tests/conftest.py`` with ``pytest_plugins = ["cargento.testing.fixtures"]``.
"""

from cargento.testing.contract import HarnessContract
from cargento.testing.demo_contract import DemoContract
from cargento.testing.homes import (
    build_tree,
    copy_golden,
    golden_root,
    make_context,
    snapshot_tree,
)

__all__ = [
    "DemoContract",
    "HarnessContract",
    "build_tree",
    "copy_golden",
    "golden_root",
    "make_context",
    "snapshot_tree",
]
