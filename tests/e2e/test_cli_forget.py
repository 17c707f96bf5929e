"""``memory-desk forget-check`` (issue 39, point 2; docs/cli.md): exit 0 gone everywhere, 1 still
somewhere or a path that cannot tell (named), 2 bad input; read-only unless ``--save``."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import sha256
from memorydesk import cli
from memorydesk.store import open_workspace

pytestmark = pytest.mark.slow  # the check's semantic paths load the real embedding model

TEXT = "ArgoCD every weekday"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_exit_codes_follow_the_verdict_from_delete_to_purge(product_db: Path, capsys) -> None:
    code, out, _ = run(capsys, "forget-check", product_db, "f-03")
    assert code == 1 and out.splitlines()[0].startswith("fact f-03: still returned by")
    assert "still returns it the fact's own row" in out.replace("  ", " ")
    code, _out, _ = run(capsys, "purge", product_db, "f-03", "--reason", "OPS-7", "--backups", "erase")
    assert code == 0
    code, out, _ = run(capsys, "forget-check", product_db, "f-03")  # its text is gone: the text paths cannot tell
    assert code == 1 and "could not tell" in out.splitlines()[0] and "check its words with --text" in out
    assert "still returns it" not in out
    code, out, _ = run(capsys, "forget-check", product_db, "--text", TEXT)
    assert code == 0 and out.splitlines()[0] == "the typed text (20 characters): gone from all 18 paths"


def test_read_only_unless_saved(product_db: Path, capsys) -> None:
    before = sha256(product_db)
    code, _out, _ = run(capsys, "forget-check", product_db, "f-03", "--json")
    assert code == 1 and sha256(product_db) == before
    code, out, _ = run(capsys, "forget-check", product_db, "f-03", "--save", "--reason", "OPS-7", "--actor", "otto")
    assert code == 1 and "kept in the history" in out
    with open_workspace(product_db, read_only=True) as ws, ws.read() as conn:
        rows = conn.exec_driver_sql("SELECT entity, action, actor, reason FROM memdesk_history").all()
    assert rows == [("forget", "check", "otto", "OPS-7")]


@pytest.mark.parametrize("argv, said", [
    ((), "give FACT_IDs or --text"),
    (("f-03", "--text", TEXT), "give FACT_IDs or --text"),
    (("no-such-fact",), "no fact no-such-fact in"),
    (("--text", "  ab  "), "at least 4 characters"),
    (("f-03", "--reason", "x"), "--reason and --actor go with --save"),
    (("f-03", "--json", "--markdown"), "not allowed with argument"),
])
def test_bad_input_is_one_line_and_exit_2(product_db: Path, capsys, argv, said) -> None:
    before = sha256(product_db)
    code, out, err = run(capsys, "forget-check", product_db, *argv)
    assert code == 2 and out == "" and said in err and err.count("\n") == 1 and err.startswith("memory-desk: ")
    assert sha256(product_db) == before
