"""First run: the demo workspace lives in the data folder, is built once with progress,
reused afterwards, rebuilt on request; a recent workspace that is gone is skipped."""

from __future__ import annotations

from pathlib import Path

import pytest

from memorydesk.commands.window import demo_workspace, last_workspace
from memorydesk.store import open_workspace


@pytest.mark.slow
def test_the_demo_is_built_once_in_the_data_folder_and_reused(tmp_path: Path) -> None:
    said: list[str] = []
    path = demo_workspace(tmp_path / "data", progress=said.append, facts=200)
    assert path == tmp_path / "data" / "demo" / "workspace.db"
    assert any("facts" in line for line in said) and said[-1] == f"demo workspace ready: {path}"
    with open_workspace(path, read_only=True) as ws:
        assert ws.name == "Acme demo"
    built = path.stat().st_ino, path.stat().st_mtime_ns
    said.clear()
    assert demo_workspace(tmp_path / "data", progress=said.append, facts=200) == path
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == built
    assert said == [f"using the demo workspace {path} (--fresh builds a new one)"]
    assert [p.name for p in path.parent.iterdir() if "building" in p.name] == []


@pytest.mark.slow
def test_fresh_builds_a_new_demo_in_place(tmp_path: Path) -> None:
    path = demo_workspace(tmp_path, facts=200)
    before = path.stat().st_ino
    assert demo_workspace(tmp_path, fresh=True, facts=200) == path
    assert path.stat().st_ino != before  # a new file moved into place


def test_the_last_workspace_that_still_exists_is_reopened(tmp_path: Path) -> None:
    kept = tmp_path / "kept.db"
    kept.write_bytes(b"")
    said: list[str] = []
    gone = tmp_path / "gone.db"
    assert last_workspace([str(gone), str(kept)], said.append) == kept
    assert said == [f"skipping {gone}: it no longer exists"]
    assert last_workspace([str(gone)], said.append) is None
