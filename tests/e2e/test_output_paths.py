"""No command writes an output over its own input or workspace (issue 26, point 1).

``--receipts-out ws.db`` used to replace the workspace with the receipts file (exit 0).
Every command with an output path now refuses, through ``core.outputs``, a path that is
the input by name, through ``..``, a symbolic link or a hard link, a file SQLite keeps
beside it, or a file inside the data folder: one sentence, exit 2, nothing written.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers import SHARED_DATA, sha256
from memorydesk import cli
from memorydesk.core.errors import BadInput
from memorydesk.core.outputs import refuse_overwriting_input

NORMAL = SHARED_DATA / "memoryos" / "normal" / "data"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def imported(tmp_path: Path, capsys) -> Path:
    if not NORMAL.is_dir():
        pytest.skip("../shared/data is not present in this checkout")
    ws = tmp_path / "ws.db"
    code, _out, err = run(capsys, "import", "memoryos", NORMAL, ws, "--timezone", "Europe/Berlin")
    assert code == 0, err
    return ws


def _aliases(ws: Path) -> list[Path]:
    folder = ws.parent
    (folder / "sub").mkdir()
    os.link(ws, folder / "hard.db")
    (folder / "sym.db").symlink_to(ws)
    return [ws, folder / "hard.db", folder / "sym.db", folder / "sub" / ".." / ws.name, Path(f"{ws}-wal"),
            Path(f"{ws}-shm")]


def test_receipts_out_never_replaces_the_workspace(imported: Path, capsys) -> None:
    before = sha256(imported)
    for alias in _aliases(imported):
        code, out, err = run(capsys, "import", "memoryos", NORMAL, imported, "--timezone", "Europe/Berlin",
                             "--receipts-out", alias)
        assert code == 2 and out == "" and err.count("\n") == 1, (alias, err)
        assert f"--receipts-out {alias}" in err and "nothing was written" in err
    assert sha256(imported) == before
    code, out, _err = run(capsys, "check", imported)
    assert code == 0 and "no problems found" in out


def test_receipts_out_inside_the_data_folder_is_refused(tmp_path: Path, capsys) -> None:
    data = tmp_path / "data"
    if not NORMAL.is_dir():
        pytest.skip("../shared/data is not present in this checkout")
    import shutil

    shutil.copytree(NORMAL, data)
    victim = next(data.glob("users/*/short_term.json"))
    before = victim.read_bytes()
    code, _out, err = run(capsys, "import", "memoryos", data, tmp_path / "ws.db", "--timezone", "Europe/Berlin",
                          "--receipts-out", victim)
    assert code == 2 and "lies inside" in err and str(data) in err
    assert victim.read_bytes() == before and not (tmp_path / "ws.db").exists()


def test_salvage_shot_and_demo_refuse_their_input(imported: Path, capsys) -> None:
    before = sha256(imported)
    for alias in _aliases(imported):
        code, _out, err = run(capsys, "salvage", imported, alias, "--quiet")
        assert code == 2 and "OUT.db" in err and err.count("\n") == 1, err
        code, _out, err = run(capsys, "shot", imported, "--tab", "facts", "--out", alias)
        assert code == 2 and "--out" in err and err.count("\n") == 1, err
    code, _out, err = run(capsys, "demo", "create", f"{imported}-wal", "--facts", "200", "--quiet")
    assert code == 2 and "the file SQLite keeps beside" in err
    assert sha256(imported) == before and not Path(f"{imported}-wal").exists()


def test_the_helper_lets_other_paths_through(tmp_path: Path) -> None:
    ws = tmp_path / "ws.db"
    ws.write_bytes(b"x")
    assert refuse_overwriting_input(tmp_path / "out.jsonl", [ws, tmp_path / "data"], "--x") == tmp_path / "out.jsonl"
    assert refuse_overwriting_input("-", [ws], "--x") == Path("-")  # standard output is never a file
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(BadInput, match="a loop of symbolic links"):
        refuse_overwriting_input(loop, [ws], "--x")


def test_lineage_export_never_writes_over_the_workspace(imported: Path, capsys) -> None:
    before = sha256(imported)
    for alias in _aliases(imported):
        code, _out, err = run(capsys, "lineage", "export", imported, "--out", alias)
        assert code == 2 and "the export file" in err and err.count("\n") == 1, err
    assert sha256(imported) == before


# -- issue 35, point 1: the backup made before the first change is never written over ---------------

def _product_copy(tmp_path: Path, capsys) -> tuple[Path, Path]:
    """The product sample, copied, changed once (receipts stored): the change made its backup."""
    from helpers import SAMPLE_DB

    if not SAMPLE_DB.is_file():
        pytest.skip("../shared/data is not present in this checkout")
    ws = tmp_path / "w.db"
    ws.write_bytes(SAMPLE_DB.read_bytes())
    receipts = Path(__file__).resolve().parents[2] / "resources" / "examples" / "receipts.jsonl"
    code, _out, err = run(capsys, "lineage", "ingest", ws, receipts)  # the first change: its backup is made first
    assert code == 0, err
    from memorydesk.store import files

    [backup] = files.backups_beside(ws)
    return ws, backup


def _writers(ws: Path, out: Path) -> list[list]:
    """Every command that writes a file it is given, aimed at ``out``."""
    data = NORMAL if NORMAL.is_dir() else ws.parent
    return [["lineage", "export", ws, "--out", out], ["lineage", "export", ws, "--format", "otlp-json", "--out", out],
            ["shot", ws, "--tab", "facts", "--out", out],
            ["import", "memoryos", data, ws, "--timezone", "UTC", "--dry-run", "--receipts-out", out],
            ["import", "memoryos", data, ws, "--timezone", "UTC", "--receipts-out", out],
            ["salvage", ws, out, "--quiet"], ["demo", "create", out, "--force", "--facts", "200", "--quiet"]]


def test_no_writer_writes_over_a_backup_beside_the_workspace(tmp_path: Path, capsys) -> None:
    ws, backup = _product_copy(tmp_path, capsys)
    before, workspace_before = sha256(backup), sha256(ws)
    os.link(backup, tmp_path / "hard-link.jsonl")
    (tmp_path / "link.png").symlink_to(backup)
    partial = tmp_path / f".{backup.name}.partial-4242"  # a backup being written (or left by a kill)
    build = tmp_path / ".w.db.building-4242"  # a demo build in progress
    for path in (partial, build):
        path.write_bytes(b"not yet")
    aliases = [backup, tmp_path / "hard-link.jsonl", tmp_path / "link.png", Path(f"{backup}-wal"), partial, build]
    for alias in aliases:
        for argv in _writers(ws, alias):
            code, out, err = run(capsys, *argv)
            assert code == 2 and err.count("\n") == 1 and "nothing was written" in err, (argv, err)
            assert err.startswith("memory-desk: ") and (backup.name in err or "Memory Desk builds" in err), err
    assert sha256(backup) == before and sha256(ws) == workspace_before
    assert partial.read_bytes() == build.read_bytes() == b"not yet" and not Path(f"{backup}-wal").exists()


def test_a_backup_is_known_by_its_name_wherever_it_lies(tmp_path: Path, capsys) -> None:
    ws, backup = _product_copy(tmp_path, capsys)
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    kept = moved / backup.name  # a backup copied away from its workspace is still a backup
    kept.write_bytes(backup.read_bytes())
    before = sha256(kept)
    code, _out, err = run(capsys, "demo", "create", kept, "--force", "--facts", "200", "--quiet")
    assert code == 2 and "a backup Memory Desk made of w.db" in err and sha256(kept) == before


def test_demo_create_force_says_what_it_replaces(tmp_path: Path, capsys) -> None:
    ws, _backup = _product_copy(tmp_path, capsys)
    code, _out, err = run(capsys, "demo", "create", ws, "--facts", "200", "--quiet")
    assert code == 2 and "already exists (a workspace of" in err and "with 291 facts" in err, err
    other = tmp_path / "notes.txt"
    other.write_text("my notes")
    code, _out, err = run(capsys, "demo", "create", other, "--force", "--facts", "200", "--embed", "0", "--quiet")
    assert code == 0 and err.splitlines()[0] == (f"memory-desk: replacing {other} (8 bytes, not a workspace "
                                                 "Memory Desk can read)"), err


def test_a_backup_is_never_opened_for_writing(tmp_path: Path, capsys) -> None:
    """A command that writes into the workspace it is given refuses a backup: it stays as it was."""
    ws, backup = _product_copy(tmp_path, capsys)
    before = sha256(backup)
    receipts = Path(__file__).resolve().parents[2] / "resources" / "examples" / "receipts.jsonl"
    for argv in (["lineage", "ingest", backup, receipts], ["check", backup, "--repair"],
                 ["purge", backup, "f-1", "--reason", "why"],
                 ["import", "memoryos", NORMAL, backup, "--timezone", "UTC"]):
        code, _out, err = run(capsys, *argv)
        assert code == 2 and err.count("\n") == 1 and "Memory Desk only reads it" in err, (argv, err)
    code, out, _err = run(capsys, "agents", backup)  # reading it is fine
    assert code == 0 and out
    assert sha256(backup) == before
