"""The end-of-session git probe against real repositories made here, and a git that hangs."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from cargento_web.endings.git import probe_git

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env={**os.environ, **GIT_ENV}, check=True, capture_output=True)


def committed_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    (path / "a.txt").write_text("one\n")
    (path / "b.txt").write_text("two\n")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "first")
    return path


def snapshot(repo: Path) -> dict[str, tuple[int, int]]:
    git_dir = repo / ".git"
    return {
        str(p.relative_to(git_dir)): (p.stat().st_mtime_ns, p.stat().st_size) for p in git_dir.rglob("*") if p.is_file()
    }


def test_a_dirty_tree_counts_its_changed_files_and_writes_nothing(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path / "repo")
    (repo / "a.txt").write_text("changed\n")
    (repo / "new.txt").write_text("untracked\n")
    git(repo, "mv", "b.txt", "c.txt")
    # A hook that would write if anything ran it.
    hook = repo / ".git" / "hooks" / "post-index-change"
    hook.write_text(f"#!/bin/sh\ntouch {tmp_path / 'hook-ran'}\n")
    hook.chmod(0o755)
    time.sleep(0.05)
    before = snapshot(repo)
    reading = probe_git(repo, env=dict(os.environ))
    assert reading.status == "dirty" and reading.dirty is True
    assert reading.changed == 4, "a modification, an untracked file and a rename read as its two sides"
    assert snapshot(repo) == before, "the probe wrote nothing into the repository (no index refresh)"
    assert not (tmp_path / "hook-ran").exists()


def test_a_clean_tree(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path / "repo")
    reading = probe_git(repo / ".", env=dict(os.environ))
    assert (reading.status, reading.changed, reading.dirty) == ("clean", 0, False)


def test_not_a_repository_is_unmeasured_never_clean(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    reading = probe_git(plain, env=env)
    assert reading.status == "unmeasured" and reading.dirty is None and reading.changed is None
    assert reading.detail == "not a git repository"
    assert probe_git(tmp_path / "gone", env=env).status == "unmeasured"
    assert probe_git(None, env=env).status == "unmeasured"


def test_a_git_that_hangs_is_killed_at_the_timeout(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path / "repo")
    fake = tmp_path / "bin"
    fake.mkdir()
    marker = tmp_path / "child-alive"
    (fake / "git").write_text(f"#!/bin/sh\n(sleep 30; touch {marker}) &\nsleep 30\n")
    (fake / "git").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
    started = time.monotonic()
    reading = probe_git(repo, env=env, timeout_s=0.5)
    took = time.monotonic() - started
    assert reading.status == "unmeasured" and "did not answer within 0.5 s" in (reading.detail or "")
    assert took < 5, "neither git nor the child it spawned holds the probe"


def test_no_git_on_path_is_unmeasured(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path / "repo")
    assert probe_git(repo, env={"PATH": str(tmp_path / "nothing")}).detail == "no git on PATH"


@pytest.mark.parametrize("name", ["GIT_DIR", "GIT_WORK_TREE"])
def test_the_callers_git_variables_do_not_steer_the_probe(tmp_path: Path, name: str) -> None:
    repo = committed_repo(tmp_path / "repo")
    other = committed_repo(tmp_path / "other")
    (other / "x").write_text("dirty")
    reading = probe_git(repo, env={**os.environ, name: str(other / ".git" if name == "GIT_DIR" else other)})
    assert reading.status == "clean"
