"""Purge says where the text really is, and what it did (issue 26, points 6 and 7).

6. With another reader open, purge said the text stays in ``ws.db-wal``; it is in
   ``ws.db`` (the reader's snapshot keeps SQLite from overwriting those pages). Purge now
   waits a few seconds, then names the files that hold it (found byte for byte), the
   reader, and when the text goes: at the next write-open of the file. Checked with a
   byte search of every file beside the workspace.
7. ``--backups erase`` exited 2 ("nothing was changed") after it had purged, because
   another fact holds the same sentence; a backup is now judged by the purged fact's
   rows and by bytes no other fact holds.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from fixtures import damage
from fixtures.product_fixture import build
from memorydesk import cli
from memorydesk.store import files, open_workspace

TEXT = b"Deploys go out through ArgoCD every weekday at 10:00"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def beside(path: Path) -> dict[str, bool]:
    """Every file in the workspace's folder, and whether its bytes hold the text."""
    return {p.name: TEXT in p.read_bytes() for p in sorted(path.parent.iterdir()) if p.is_file()}


def test_purge_names_where_the_text_is_while_a_reader_holds_it(tmp_path: Path, capsys) -> None:
    ws = build(tmp_path / "ws.db")
    code, _out, _err = run(capsys, "purge", ws, "f-06", "--reason", "adopt first", "--backups", "delete")
    assert code == 0 and files.backups_beside(ws) == []
    with damage.reader_holding(ws):
        code, out, _err = run(capsys, "purge", ws, "f-03", "--reason", "leaked a deploy window")
        held = beside(ws)
    assert code == 1
    where = [name for name, has in held.items() if has]
    assert where == ["ws.db"]  # the old page in the file itself, not the log
    line = next(x for x in out.splitlines() if x.startswith("the erased text is still in"))
    assert line.startswith("the erased text is still in ws.db:") and "ws.db-wal" not in line
    assert "(pid " in line and "next write-open of ws.db" in line
    with open_workspace(ws):  # the next write-open, as any command that writes makes it
        pass
    assert not any(beside(ws).values())


def test_erasing_a_backup_is_judged_by_the_purged_facts_rows(tmp_path: Path, capsys) -> None:
    ws = build(tmp_path / "ws.db")
    conn = sqlite3.connect(ws)
    conn.execute("UPDATE memory_facts_table SET content = ? WHERE id = 'f-04'", (TEXT.decode(),))  # the same words
    conn.commit()
    conn.close()
    code, out, _err = run(capsys, "purge", ws, "f-03", "--reason", "leaked", "--backups", "erase")
    assert code == 0, out
    backup = files.backups_beside(ws)
    assert len(backup) == 1 and f"erased its rows from backup {backup[0].name}" in out
    assert "the text is in no file beside the workspace" in out and "nothing was changed" not in out
    with open_workspace(backup[0], read_only=True) as old, old.read() as c:
        ids = {r[0] for r in c.exec_driver_sql("SELECT id FROM memory_facts_table")}
    assert "f-03" not in ids and "f-04" in ids  # the other fact, with the same sentence, stays
    code, out, _err = run(capsys, "purge", ws, "f-03", "--reason", "again")
    assert code == 2 and "no fact f-03" in _err  # nothing left anywhere to purge


def test_a_blank_reason_is_refused_everywhere_as_the_window_refuses_it(tmp_path: Path, capsys) -> None:
    """Issue 35, point 7: ``purge --reason "   "`` purged (exit 0); the window refuses a blank reason.
    One rule (``core.inputs.check_reason``): the command line, the memory layer and the window."""
    from memorydesk.core.errors import BadInput
    from memorydesk.memory.actions.purge import purge
    from memorydesk.memory.actions.purge_items import purge_items_outcome

    ws = build(tmp_path / "ws.db")
    before = ws.read_bytes()
    for blank in ("   ", "\t \n", ""):
        code, out, err = run(capsys, "purge", ws, "f-03", "--reason", blank)
        assert code == 2 and out == "" and err.count("\n") == 1 and "give a reason" in err, err
    assert ws.read_bytes() == before and files.backups_beside(ws) == []
    with open_workspace(ws) as opened:
        for call in (lambda: purge(opened, "Ann", ["f-03"], "  "),
                     lambda: purge_items_outcome(opened, "Ann", "working_item", ["x"], " \t")):
            try:
                call()
            except BadInput as exc:
                assert "give a reason" in str(exc)
            else:
                raise AssertionError("a blank reason was accepted")
        with opened.read() as conn:
            assert conn.exec_driver_sql("SELECT content FROM memory_facts_table WHERE id = 'f-03'").scalar()
    code, _out, err = run(capsys, "purge", ws, "f-03", "--reason", "  leaked a deploy window  ", "--backups", "delete")
    assert code == 0, err


LONG = ("Rotate the vault root token on the first Monday of each quarter; the unseal keys are split "
        "between five holders and three of them must meet in person. ") * 40  # ~6 kB: past a page's room


def _pieces(path: Path) -> bool:
    """Whether the file's bytes hold any 48-byte piece of LONG (how an attacker greps for it)."""
    data = path.read_bytes() if path.exists() else b""
    raw = LONG.encode()
    return any(raw[o:o + 48] in data for o in range(0, len(raw) - 48, 16))


def test_purge_names_the_log_too_when_a_reader_holds_a_long_text(tmp_path: Path, capsys) -> None:
    """Issue 35, point 5: with a reader holding the file, purge named ``w.db`` (or nothing) but not
    ``w.db-wal``: a text longer than a page continues on overflow pages, so the whole text is in
    neither file in one piece, yet both hold it. Purge now searches slices of it too."""
    import subprocess
    import sys

    ws = build(tmp_path / "w.db")
    code, _out, _err = run(capsys, "purge", ws, "f-06", "--reason", "adopt first", "--backups", "delete")
    assert code == 0
    conn = sqlite3.connect(ws)
    conn.execute("UPDATE memory_facts_table SET content = ? WHERE id = 'f-03'", (LONG,))
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the text in w.db
    conn.close()
    reader = subprocess.Popen([sys.executable, "-c", damage.READER.replace('conn.execute("BEGIN")',
                               'conn.execute("SELECT 1"); print("open", flush=True); sys.stdin.readline(); '
                               'conn.execute("BEGIN")'), str(ws)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout.readline().strip() == "open"  # the reader keeps the log from being reset
        conn = sqlite3.connect(ws)
        conn.execute("UPDATE memory_facts_table SET recall_count = recall_count + 1 WHERE id = 'f-03'")
        conn.commit()  # the row's pages again, now in w.db-wal as well
        conn.close()
        reader.stdin.write("go\n")
        reader.stdin.flush()
        assert reader.stdout.readline().strip() == "reading"
        code, out, _err = run(capsys, "purge", ws, "f-03", "--reason", "a secret in a long note")
        held = {p.name for p in (ws, Path(f"{ws}-wal")) if _pieces(p)}
    finally:
        reader.communicate("", timeout=30)
    assert code == 1 and held == {"w.db", "w.db-wal"}
    line = next(x for x in out.splitlines() if "erased text" in x)
    assert line.startswith("the erased text is still in w.db and w.db-wal:"), line
    with open_workspace(ws):  # the next write-open, once the reader is gone
        pass
    assert not _pieces(ws) and not _pieces(Path(f"{ws}-wal"))
