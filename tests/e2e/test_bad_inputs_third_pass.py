"""Bad inputs that used to exit 70 or hang (issue 26, points 8, 9 and 12): one sentence, exit 2.

- ``import memoryos`` with numbers out of SQLite's range (2^63, 1e308 in a count, 400- and
  5,000-digit integers) and a lone surrogate ``\\ud800``;
- ``audit --queries`` with 5,000-digit numbers, deep nesting, a lone surrogate; a UTF-8
  byte-order mark is accepted;
- a workspace whose full-text table was dropped or that lacks a column: the commands say
  what is missing, ``check`` names it, ``salvage`` still reads it;
- a FIFO or a device named as an input is refused before it is opened; ``-`` reads standard
  input up to a limit the message states.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sqlean

from fixtures.product_fixture import build
from helpers import SHARED_DATA
from memorydesk import cli

NORMAL = SHARED_DATA / "memoryos" / "normal" / "data"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_sentence(code: int, err: str) -> str:
    assert code == 2 and err.count("\n") == 1 and err.startswith("memory-desk: ") and "internal error" not in err, err
    return err


def spawn(*argv, stdin: bytes | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", *map(str, argv)], capture_output=True,
                          timeout=timeout, input=stdin, env={**os.environ, "PYTHONIOENCODING": "utf-8"})


MEMORYOS_EDITS = {
    "n_visit_2_63": ("mid_term.json", r'"N_visit": \d+', '"N_visit": 9223372036854775808', "out of range"),
    "n_visit_1e308": ("mid_term.json", r'"N_visit": \d+', '"N_visit": 1e308', "out of range"),
    "digits_400": ("mid_term.json", r'"N_visit": \d+', '"N_visit": 1' + "0" * 400, "401 digits"),
    "digits_5000": ("mid_term.json", r'"N_visit": \d+', '"N_visit": 1' + "0" * 5000, "5,001 digits"),
    "surrogate": ("short_term.json", r'"user_input": "', '"user_input": "\\\\ud800', "lone surrogate"),
}


@pytest.mark.parametrize("case", sorted(MEMORYOS_EDITS))
def test_memoryos_numbers_and_text_out_of_range_are_one_sentence(tmp_path: Path, capsys, case: str) -> None:
    if not NORMAL.is_dir():
        pytest.skip("../shared/data is not present in this checkout")
    data = tmp_path / "data"
    shutil.copytree(NORMAL, data)
    name, pattern, replacement, words = MEMORYOS_EDITS[case]
    target = data / "users" / "lena_k" / name
    target.write_text(re.sub(pattern, replacement, target.read_text(), count=1))
    code, _out, err = run(capsys, "import", "memoryos", data, tmp_path / "ws.db", "--timezone", "Europe/Berlin")
    assert words in one_sentence(code, err) and f"users/lena_k/{name}" in err
    assert not (tmp_path / "ws.db").exists()


def _queries(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "q.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def test_audit_queries_refuse_what_json_cannot_hold_and_accept_a_bom(tmp_path: Path, capsys) -> None:
    ws = build(tmp_path / "ws.db")
    cases = {
        '[{"query": "deploy", "expect": [], "n": 1' + "0" * 5000 + "}]": "5,001 digits",
        "[" * 100_000 + "]" * 100_000: "nested too deeply",
        '[{"query": "\\ud800", "expect": []}]': "lone surrogate",
        '[{"query": "deploy", "expect": [], "x": NaN}]': "NaN is not allowed",
    }
    for text, words in cases.items():
        code, _out, err = run(capsys, "audit", "recall", ws, "--queries", _queries(tmp_path, text))
        assert words in one_sentence(code, err) and "q.json" in err, err
    bom = b"\xef\xbb\xbf" + json.dumps([{"query": "pnpm turbo build", "expect": ["f-01"]}]).encode()
    code, out, err = run(capsys, "audit", "recall", ws, "--queries", _queries(tmp_path, bom))
    assert code == 0 and "1 of 1" in out, err


@pytest.mark.parametrize("damage", ["no_fts", "no_column"])
def test_a_workspace_missing_parts_says_what_is_missing(tmp_path: Path, capsys, damage: str) -> None:
    ws = build(tmp_path / "ws.db")
    conn = sqlean.connect(str(ws))
    conn.execute("DROP TABLE memory_facts_fts" if damage == "no_fts"
                 else "ALTER TABLE memory_facts_table DROP COLUMN confidence")
    conn.commit()
    conn.close()
    missing = "memory_facts_fts" if damage == "no_fts" else "memory_facts_table.confidence"
    for argv in (["search", ws, "deploy"], ["search", ws, "deploy", "--mode", "keyword"], ["agents", ws],
                 ["check", ws, "--repair"]):
        code, _out, err = run(capsys, *argv)
        assert missing in one_sentence(code, err) and "salvage" in err, argv
    code, out, _err = run(capsys, "check", ws)
    assert code == 1 and "schema_incomplete" in out and missing in out
    code, out, _err = run(capsys, "salvage", ws, tmp_path / "saved.db", "--quiet")
    assert code == 0 and "memory_facts_table: 12 row(s) copied" in out
    code, out, _err = run(capsys, "search", tmp_path / "saved.db", "pnpm", "--mode", "keyword")
    assert code == 0 and "f-01" in out


def test_a_fifo_or_a_device_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    ws = build(tmp_path / "ws.db")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for source in (fifo, Path("/dev/zero")):
        for argv in (["audit", "recall", ws, "--queries", source], ["lineage", "classify", source],
                     ["lineage", "ingest", ws, source]):
            done = spawn(*argv, timeout=60)  # used to hang, or to grow until the kernel killed it
            err = done.stderr.decode()
            assert done.returncode == 2 and err.count("\n") == 1, (argv, err)
            assert ("named pipe" if source == fifo else "character device") in err and "'-'" in err


def test_standard_input_is_read_up_to_a_stated_limit(tmp_path: Path) -> None:
    from memorydesk.core.inputs import QUERIES_MAX

    ws = build(tmp_path / "ws.db")
    done = spawn("audit", "recall", ws, "--queries", "-", stdin=b" " * (QUERIES_MAX + 10), timeout=120)
    err = done.stderr.decode()
    assert done.returncode == 2 and "more than 64 MB" in err and err.count("\n") == 1, err
    good = json.dumps([{"query": "pnpm turbo build", "expect": ["f-01"]}]).encode()
    done = spawn("audit", "recall", ws, "--queries", "-", stdin=good)
    assert done.returncode == 0, done.stderr.decode()


def test_a_file_over_the_limit_is_refused_by_its_size(tmp_path: Path, capsys) -> None:
    from memorydesk.core.inputs import QUERIES_MAX

    ws = build(tmp_path / "ws.db")
    big = tmp_path / "big.json"
    with big.open("wb") as fh:
        fh.truncate(QUERIES_MAX + 1)  # sparse: no disk used
    code, _out, err = run(capsys, "audit", "recall", ws, "--queries", big)
    assert "at most 64 MB are read" in one_sentence(code, err) and "big.json" in err


def test_messages_name_the_file_they_are_about(tmp_path: Path, capsys) -> None:
    ws = build(tmp_path / "ws.db")
    code, _out, err = run(capsys, "audit", "recall", ws, "--queries", _queries(tmp_path, '[{"expect": []}]'))
    assert "entry 1 has no" in one_sentence(code, err) and str(tmp_path / "q.json") in err
    conn = sqlean.connect(str(ws))
    conn.execute("CREATE TABLE memdesk_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT INTO memdesk_meta VALUES ('schema_version', 'six')")
    conn.commit()
    conn.close()
    code, _out, err = run(capsys, "check", ws)
    assert "unreadable Memory Desk schema version" in one_sentence(code, err) and str(ws) in err
