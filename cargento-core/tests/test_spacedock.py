"""A first officer's ``spacedock status --boot`` output: exactly one complete JSON object
naming absolute directories, or not a boot at all."""

from __future__ import annotations

import json

from cargento.spacedock import MAX_BOOT_BYTES, is_boot_command, parse_boot


def test_a_boot_names_absolute_workflow_and_entity_directories_and_its_snapshot() -> None:
    text = json.dumps(
        {
            "workflow_dirs": ["/w/a/docs/plans", "relative/ignored", {"dir": "C:\\w\\b"}],
            "entity_dir": "/w/a/docs/plans/.state",
            "dispatchable": [{"slug": "x", "current": "ideation", "next": "build"}, {"no": "slug"}, "junk"],
        }
    )
    boot = parse_boot("\n" + text + "\n")
    assert boot is not None
    assert boot.workflow_dirs == ("/w/a/docs/plans", "C:\\w\\b")
    assert boot.entity_dirs == ("/w/a/docs/plans/.state",)
    assert [(d.slug, d.current, d.next) for d in boot.dispatchable] == [("x", "ideation", "build")]


def test_anything_but_one_complete_boot_object_is_not_a_boot() -> None:
    boot = json.dumps({"workflow_dir": "/w/a"})
    assert parse_boot(boot) is not None
    assert parse_boot(boot + "\ntrailing words") is None
    assert parse_boot("Booted: " + boot) is None
    assert parse_boot(json.dumps([{"workflow_dir": "/w/a"}])) is None
    assert parse_boot(json.dumps({"entity_dir": "/w/a"})) is None, "no workflow directory, no strip source"
    assert parse_boot(json.dumps({"workflow_dir": "docs/plans"})) is None, "only absolute directories"
    assert parse_boot(json.dumps({"workflow_dir": "/w/a", "pad": "x" * MAX_BOOT_BYTES})) is None, "bounded"


def test_the_boot_command_is_recognised_in_a_shell_line() -> None:
    assert is_boot_command("spacedock status --boot --json")
    assert is_boot_command("cd /w && $SPACEDOCK_BIN status --workflow-dir docs --boot")
    assert not is_boot_command("spacedock status --json")
    assert not is_boot_command("echo spacedock; status --boot")
    assert not is_boot_command(["spacedock", "status", "--boot"])
