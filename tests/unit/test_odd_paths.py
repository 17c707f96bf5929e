"""Folders whose names SQLite's ``file:`` URIs would misread (issue 26, point 2).

With ``?`` or ``#`` in a folder name the backup made before the first write used to be
an empty 4 KB database (SQLite opened a stray file in the parent folder), and the
product file was changed anyway; with ``%41`` every write was refused. Every URI is now
built by ``store.engine.file_uri`` (percent-quoted), and the backup is checked — it
opens and holds the source's tables and row counts — before anything is changed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import sqlean

from fixtures.product_fixture import build
from memorydesk import cli
from memorydesk.core.errors import WorkspaceUnusable
from memorydesk.store import files
from memorydesk.store.engine import file_uri

ODD_NAMES = ["q?mark", "hash#tag", "both?q#hash", "pct%41", "pct%", "with space", "new\nline", "ünïcødé ſ",
             "日本語", "x" * 180]


def _counts(path: Path) -> dict[str, int]:
    conn = sqlean.connect(file_uri(path, read_only=True, immutable=True), uri=True)
    try:
        return files.table_counts(conn)
    finally:
        conn.close()


@pytest.mark.parametrize("name", ODD_NAMES, ids=lambda n: n.encode("unicode_escape").decode()[:20])
def test_the_first_change_in_an_odd_folder_backs_up_the_real_file(tmp_path: Path, capsys, name: str) -> None:
    folder = tmp_path / "outer" / name
    if len(name) > 100:  # a long path (SQLite opens paths up to 512 bytes)
        folder = tmp_path / "outer" / name / name
    folder.mkdir(parents=True)
    db = build(folder / "p.db")
    before = _counts(db)
    parent_before = sorted(p.name for p in (tmp_path / "outer").iterdir())
    code = cli.main(["purge", str(db), "f-03", "--reason", "leaked a deploy window"])
    out, err = capsys.readouterr()
    assert code == 1 and "backup" in out, (out, err)  # the backup made first still holds the text: said
    backups = files.backups_beside(db)
    assert len(backups) == 1
    assert _counts(backups[0]) == before and before["memory_facts_table"] == 12  # a whole copy, not 4 KB
    assert sorted(p.name for p in (tmp_path / "outer").iterdir()) == parent_before  # no stray file
    after = _counts(db)
    assert "memdesk_meta" in after and after["memory_facts_table"] == 11


def test_a_backup_that_does_not_hold_the_file_is_refused(tmp_path: Path) -> None:
    db = build(tmp_path / "p.db")
    conn = sqlean.connect(file_uri(db, read_only=True), uri=True)
    counts = files.table_counts(conn)
    conn.close()
    partial = files.write_partial_backup(db, tmp_path / "b.db", verify=True)
    wrong = sqlean.connect(str(partial))
    wrong.execute("DELETE FROM agents_table WHERE id = 'a-ops'")
    wrong.commit()
    wrong.close()
    with pytest.raises(WorkspaceUnusable, match=r"does not hold what the file holds "
                                                r"\(agents_table: 3 rows in the file, 2 in the copy\)"):
        files._verify_backup(db, partial, counts)


def test_file_uri_keeps_every_character(tmp_path: Path) -> None:
    for name in ODD_NAMES[:-1]:
        path = tmp_path / name / "w.db"
        path.parent.mkdir()
        conn = sqlean.connect(file_uri(path, read_only=False), uri=True)
        conn.execute("CREATE TABLE t (x)")
        conn.close()
        assert path.is_file(), name
        shutil.rmtree(path.parent)


def test_a_path_longer_than_sqlite_opens_is_one_sentence(tmp_path: Path, capsys) -> None:
    folder = tmp_path
    for _ in range(3):
        folder = folder / ("y" * 200)
    folder.mkdir(parents=True)
    path = folder / "p.db"
    path.write_bytes(b"SQLite format 3\x00" + bytes(4080))
    for argv in (["check", path], ["search", path, "deploy"], ["salvage", path, tmp_path / "out.db"]):
        code = cli.main([str(a) for a in argv])
        _out, err = capsys.readouterr()
        assert code == 2 and err.count("\n") == 1 and "at most 512 bytes" in err, err
