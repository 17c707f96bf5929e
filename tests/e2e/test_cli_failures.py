"""Every way the command line was seen to fail, and what it does now: one line, the right exit code.

Exit codes: 0 ok, 1 problems found, 2 bad input / unusable file / refused, 70 our bug.
Most cases call ``memorydesk.cli.main`` in this process (what the ``memory-desk``
script runs); the ones that could hang or need real bytes on the command line run it
as a subprocess with a timeout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import sqlean

from fixtures import damage
from helpers import sha256
from memorydesk import cli
from memorydesk.store import files, open_workspace

RECEIPT = {"runId": "r1", "userScope": "u", "assistantScope": "a", "tier": "stm", "status": "committed",
           "version": 1, "atUtc": "2025-01-01T00:00:00Z", "sourceVersion": "x"}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and err.startswith("memory-desk: ") and "Traceback" not in err, err
    return err


def spawn(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONIOENCODING": "utf-8"})


def receipts_file(tmp_path: Path, *rows: dict | str) -> Path:
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def five_commands(path: Path, tmp_path: Path) -> list[list[str]]:
    good = receipts_file(tmp_path, RECEIPT)
    return [["check", path], ["check", path, "--repair"], ["search", path, "deploy", "--mode", "keyword"],
            ["preamble", path, "--agent", "a-coder", "--task", "how do we deploy the web app"],
            ["lineage", "ingest", path, good]]


# --- damaged files --------------------------------------------------------------------------

def test_an_unsupported_file_format_is_one_sentence_in_every_command(capsys, product_db: Path, tmp_path) -> None:
    damage.set_header_int(product_db, 44, 9)
    before = sha256(product_db)
    for argv in five_commands(product_db, tmp_path):
        code, out, err = run(capsys, *argv)
        said = one_line(err)  # what is wrong, field by field (issue 35, point 3), and the way through it
        assert code == 2 and "the file's header is damaged" in said and "bytes 44–47 (the schema format) hold 9" \
            in said and "salvage" in said, argv
    assert sha256(product_db) == before and files.backups_beside(product_db) == []


def test_random_header_bytes_never_crash(capsys, product_db: Path, tmp_path: Path) -> None:
    damage.checkpoint(product_db)
    clean = product_db.read_bytes()
    rng = __import__("random").Random(99)
    for trial in range(8):
        path = tmp_path / f"noise-{trial}.db"
        path.write_bytes(clean[:32] + rng.randbytes(68) + clean[100:])
        for argv in five_commands(path, tmp_path):
            code, _out, err = run(capsys, *argv)
            assert code in (0, 1, 2), (trial, argv, err)
            assert all(line.startswith("memory-desk: ") for line in err.splitlines()), err


def test_text_that_is_not_utf8_is_reported_by_check_and_read_by_everything_else(capsys, product_db: Path) -> None:
    damage.not_utf8(product_db, "memory_facts_table", "content")
    damage.not_utf8(product_db, "memory_beliefs_table", "provenance_fact_ids")
    code, out, _err = run(capsys, "check", product_db, "--json")
    assert code == 1 and json.loads(out)["summary"]["text_not_utf8"] == 13
    for mode in ("keyword", "hybrid"):
        code, out, _err = run(capsys, "search", product_db, "pnpm turbo build", "--mode", mode)
        assert code == 0 and "turbo\ufffd" in out, mode
    code, out, _err = run(capsys, "preamble", product_db, "--agent", "a-coder", "--task", "how does the build work")
    assert code == 0 and "\ufffd" in out


def test_an_index_that_disagrees_with_its_table_is_found_and_repair_refuses(capsys, product_db: Path) -> None:
    damage.checkpoint(product_db)
    index = damage.root_page(product_db, "sqlite_autoindex_memory_facts_table_1")
    size = damage.page_size(product_db)
    page = product_db.read_bytes()[(index - 1) * size:index * size]
    damage.flip_byte(product_db, (index - 1) * size + page.index(b"f-03") + 3)
    before = sha256(product_db)
    code, out, _err = run(capsys, "check", product_db, "--json")
    assert code == 1 and json.loads(out)["summary"]["sqlite_corrupt"] >= 1
    code, _out, err = run(capsys, "check", product_db, "--repair")
    assert code == 2 and "writes nothing into a damaged file" in one_line(err)
    assert sha256(product_db) == before and files.backups_beside(product_db) == []


def test_a_zeroed_table_root_is_not_called_clean(capsys, product_db: Path) -> None:
    damage.checkpoint(product_db)
    damage.zero_page(product_db, damage.root_page(product_db, "agents_table"))
    code, out, _err = run(capsys, "check", product_db)
    assert code == 1 and "sqlite_corrupt\tagents_table" in out


# --- paths ----------------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [["check", "{p}"], ["check", "{p}", "--repair"], ["search", "{p}", "x"],
                                  ["preamble", "{p}", "--agent", "a"], ["lineage", "ingest", "{p}", "{r}"],
                                  ["purge", "{p}", "f-1", "--reason", "r"], ["canary", "{p}"]])
def test_no_command_creates_a_workspace_by_accident(capsys, tmp_path: Path, argv: list[str]) -> None:
    receipts = receipts_file(tmp_path, RECEIPT)
    for name in ("typo.db", "dangling.db", "loop.db"):
        path = tmp_path / name
        if name == "dangling.db":
            path.symlink_to(tmp_path / "missing-target.db")
        if name == "loop.db":
            path.symlink_to(tmp_path / "loop2.db")
            (tmp_path / "loop2.db").symlink_to(path)
        before = sorted(p.name for p in tmp_path.iterdir())
        code, _out, err = run(capsys, *[a.format(p=path, r=receipts) for a in argv])
        assert code == 2 and str(path) in one_line(err), (name, argv)
        assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing made, no link removed


def test_a_fifo_is_refused_at_once_by_every_command(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo)
    for argv in five_commands(fifo, tmp_path):
        result = spawn(*argv, timeout=60)
        assert result.returncode == 2 and "named pipe" in one_line(result.stderr), argv


def test_a_locked_file_refuses_repair_without_leaving_a_backup(capsys, product_db: Path) -> None:
    holder = sqlean.connect(str(product_db), isolation_level=None)
    holder.execute("PRAGMA journal_mode = WAL")
    holder.execute("DROP TRIGGER memory_facts_ad")  # the full-text index falls behind: a repair must write
    holder.execute("DELETE FROM memory_facts_table WHERE id = 'f-11'")
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("UPDATE memory_facts_table SET recall_count = 1 WHERE id = 'f-01'")
    try:
        code, _out, err = run(capsys, "check", product_db, "--repair")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert code == 2 and "locked by another program" in one_line(err)
    assert files.backups_beside(product_db) == []


def test_a_full_disk_loses_nothing_and_says_so(capsys, tmp_path: Path, product_db: Path) -> None:
    with damage.small_disk(tmp_path, 6) as disk:
        path = disk / "ws.db"
        path.write_bytes(product_db.read_bytes())
        receipts = receipts_file(tmp_path, RECEIPT)
        damage.fill(disk)
        before = sha256(path)
        for argv in (["check", path, "--repair"], ["lineage", "ingest", path, receipts],
                     ["purge", path, "f-01", "--reason", "x"]):
            code, _out, err = run(capsys, *argv)
            assert code == 2 and "disk is full" in one_line(err), argv
        code, out, err = run(capsys, "check", path)  # reading still works (immutable)
        assert code == 1 and "summary:" in out and "the disk is full: opened immutable" in err
        code, out, _err = run(capsys, "search", path, "pnpm", "--mode", "keyword")
        assert code == 0 and "1 hit" in out
        assert sha256(path) == before and files.backups_beside(path) == []
        assert sorted(p.name for p in disk.iterdir()) == ["filler", "ws.db", "ws.db-shm", "ws.db-wal"] or \
            sorted(p.name for p in disk.iterdir()) == ["filler", "ws.db"]


# --- inputs ---------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, words", [
    (["search", "{p}", "deploy \udcc3(", "--mode", "hybrid"], "not valid UTF-8 (byte 0xc3"),
    (["search", "{p}", "deploy", "--mode", "semantic", "--limit", "99999999999999999999999"], "between 0 and 1,000"),
    (["preamble", "{p}", "--agent", "\udcff"], "not valid UTF-8 (byte 0xff"),
    (["search", "{p}", "deploy", "--repo", "r" * 300], "300 characters long; at most 200"),
    (["lineage", "classify", "{r}", "--fresh-for", "1000000000d"], "longer than ten years"),
    (["demo", "create", "{d}", "--now", "99999999999999999999"], "outside 2000-01-01 .. 2100-01-01"),
    (["check"], "the following arguments are required: workspace"),
])
def test_bad_arguments_are_one_line(capsys, product_db: Path, tmp_path: Path, argv: list[str], words: str) -> None:
    receipts = receipts_file(tmp_path, RECEIPT)
    code, out, err = run(capsys, *[a.format(p=product_db, r=receipts, d=tmp_path / "demo.db") for a in argv])
    assert code == 2 and out == "" and words in one_line(err)
    assert not (tmp_path / "demo.db").exists()


@pytest.mark.parametrize("row, words", [
    ('{"x-big": 1' + "9" * 5000 + "}", "an integer of 5,001 digits"),
    ({"runId": "\ud800"}, "lone surrogate"),
    ({"runId": "a\x00b"}, "NUL character"),
    ({"runId": "r" * 10_000_000}, "longer than 65,536 bytes"),
    ({"sourceVersion": "v" * 1_000_000}, "longer than 65,536 bytes"),
    ({"outcomeReceipt": "o" * 600}, "field 'outcomeReceipt' is 600 characters long"),
    ('{"x-f": 1e400}', "1e400 is out of range"),
])
def test_receipts_are_bounded(capsys, tmp_path: Path, row, words: str) -> None:
    if isinstance(row, dict):
        text = json.dumps(RECEIPT | row)
    else:
        text = json.dumps(RECEIPT)[:-1] + "," + row[1:]
    path = receipts_file(tmp_path, RECEIPT, text)
    for argv in (["lineage", "classify", path, "--json"], ["lineage", "ingest", tmp_path / "ws.db", path]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and f"{path}: line 2: " in one_line(err) and words in err, argv


def test_ingesting_a_file_twice_stores_it_once(capsys, tmp_path: Path) -> None:
    ws = tmp_path / "ws.db"
    open_workspace(ws, create=True).close()
    path = receipts_file(tmp_path, RECEIPT, RECEIPT | {"tier": "mtm"}, RECEIPT | {"receiptId": "x-1"},
                         RECEIPT | {"receiptId": "x-1", "status": "failed"})
    assert run(capsys, "lineage", "ingest", ws, path)[1] == (
        f"stored 3 receipts of 1 runs in {ws}; skipped 1 already stored (the same receiptId, or the same fields)\n")
    assert run(capsys, "lineage", "ingest", ws, path)[1] == (
        f"stored 0 receipts of 1 runs in {ws}; skipped 4 already stored (the same receiptId, or the same fields)\n")


# --- purge ----------------------------------------------------------------------------------

def test_purge_says_where_the_text_still_is(capsys, product_db: Path) -> None:
    with damage.reader_holding(product_db) as reader:
        code, out, _err = run(capsys, "purge", product_db, "f-03", "--reason", "wrong", "--actor", "alice")
    assert code == 1
    assert "1 fact version(s) purged" in out and f"(pid {reader.pid})" in out
    assert "still holds the text" in out  # the backup made when the file was adopted
    code, out, _err = run(capsys, "purge", product_db, "f-03", "--reason", "wrong", "--backups", "delete")
    assert code == 0 and "deleted backup" in out and out.endswith("the text is in no file beside the workspace\n")
    code, _out, err = run(capsys, "purge", product_db, "f-03", "--reason", "again")
    assert code == 2 and "no fact f-03" in one_line(err)


# --- our own bugs ---------------------------------------------------------------------------

def test_a_bug_exits_70_with_one_line_naming_the_log(capsys, monkeypatch, tmp_path: Path, product_db: Path) -> None:
    """A deliberate fault stands in for a bug (there is no known one to trigger)."""
    from memorydesk.commands import check

    def broken(args):
        raise KeyError("a bug")

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(check, "run", broken)
    code, out, err = run(capsys, "check", product_db)
    assert code == 70 and out == ""
    line = one_line(err)
    assert "internal error (KeyError: 'a bug'); this is a bug in Memory Desk" in line
    log = Path(line.split("the traceback is in ")[1].split(";")[0])
    assert log.parent == tmp_path / "state" / "memory-desk" / "log"
    assert "Traceback" in log.read_text() and "KeyError: 'a bug'" in log.read_text()


def test_no_traceback_reaches_the_terminal(tmp_path: Path) -> None:
    """One real process end to end: a damaged file, then bad bytes on the command line."""
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"SQLite format 3\x00" + os.urandom(8000))
    result = spawn("check", junk)
    assert result.returncode == 2 and "Traceback" not in result.stderr and result.stderr.count("\n") == 1
    raw = subprocess.run([os.fsencode(sys.executable), b"-m", b"memorydesk", b"search", os.fsencode(junk),
                          b"deploy \xc3("], capture_output=True, timeout=60)
    assert raw.returncode == 2 and b"not valid UTF-8" in raw.stderr and raw.stderr.count(b"\n") == 1
