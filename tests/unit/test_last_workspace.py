"""First run without a workspace named: the last one that still exists is reopened."""

from __future__ import annotations

from pathlib import Path

from memorydesk.commands.window import last_workspace


def test_the_last_workspace_that_still_exists_is_reopened(tmp_path: Path) -> None:
    kept = tmp_path / "kept.db"
    kept.write_bytes(b"")
    said: list[str] = []
    gone = tmp_path / "gone.db"
    assert last_workspace([str(gone), str(kept)], said.append) == kept
    assert said == [f"skipping {gone}: it no longer exists"]
    assert last_workspace([str(gone)], said.append) is None
