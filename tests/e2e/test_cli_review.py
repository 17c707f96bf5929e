"""``memory-desk review`` as a user runs it: exit codes, --kind, --fail-on, --json, read-only."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", "review", *args], capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from fixtures.review_corpus import build

    return build(tmp_path_factory.mktemp("cli-review") / "corpus.db").path


def test_json_exit_codes_and_read_only(corpus: Path) -> None:
    before = hashlib.sha256(corpus.read_bytes()).hexdigest()
    listed = run(str(corpus), "--json")
    assert listed.returncode == 1, listed.stderr  # critical findings (a policy holds a secret)
    rows = json.loads(listed.stdout)
    assert rows[0]["severity"] == "critical"
    assert all(set(r) == {"kind", "severity", "item_kind", "item_id", "field", "evidence", "state"} for r in rows)
    text = listed.stdout
    assert "AKIAZ3MSJV4WQ5RXB7NE" not in text and "sk_live_51Hx9Kq2Lm8Np4Rt6Vw3Yz7B" not in text  # masked
    only = json.loads(run(str(corpus), "--json", "--kind", "duplicate").stdout)
    assert only and {r["kind"] for r in only} == {"duplicate"}
    assert run(str(corpus), "--kind", "duplicate").returncode == 0  # duplicates are low or medium
    assert run(str(corpus), "--kind", "duplicate", "--fail-on", "low").returncode == 1
    assert hashlib.sha256(corpus.read_bytes()).hexdigest() == before
    assert _rows(corpus, "memdesk_review_items") == _rows(corpus, "memdesk_review_state") == 0  # nothing kept


def _rows(path: Path, table: str) -> int:
    import sqlean

    conn = sqlean.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def test_text_output_and_bad_input(tmp_path: Path, product_db: Path) -> None:
    plain = run(str(product_db))
    assert plain.returncode == 0 and "Unreachable facts (1):" in plain.stdout
    missing = run(str(tmp_path / "nope.db"))
    assert missing.returncode == 2 and missing.stderr.startswith("memory-desk: ") and "Traceback" not in missing.stderr
    bad = run(str(product_db), "--kind", "gossip")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert run(str(product_db), "--fail-on", "urgent").returncode == 2


def test_bad_text_gives_findings_or_notes_never_a_traceback(tmp_path: Path) -> None:
    import sqlean

    from memorydesk.memory.service import MemoryService
    from memorydesk.store import open_workspace

    path = tmp_path / "odd.db"
    with open_workspace(path, create=True) as ws:
        svc = MemoryService(ws, embedder=False)
        big = svc.propose_fact(domain="ops", topic="dump",
                               content="password: Vx8#mQ2!zR5w " + ("x" * 1_100_000)).fact_id
        svc.propose_fact(domain="ops", topic="rtl", content="שלום \u202eevil\u202c עולם مرحبا")
        odd = svc.propose_fact(domain="ops", topic="latin1", content="placeholder").fact_id
        table = ws.layout.facts.name
    conn = sqlean.connect(str(path))
    conn.execute(f"UPDATE {table} SET content = CAST(X'636166E920746F6B656E3A20' || hex('Xk29fLq8zPw3Nv7R') AS TEXT) "
                 "WHERE id = ?", (odd,))
    conn.commit()
    conn.close()
    done = run(str(path), "--json")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    rows = json.loads(done.stdout)
    assert {(r["kind"], r["item_id"]) for r in rows} >= {("secret", big)}
    assert any(r["evidence"].get("rule") == "bidi_control" for r in rows)
    assert "no usable embedding" in done.stderr  # facts without embeddings: skipped and counted
    assert "not valid UTF-8" in done.stderr and "only the first 1,000,000" in done.stderr


def test_a_secret_in_a_note_or_working_item_is_purged_from_the_command_line(tmp_path: Path) -> None:
    from fixtures import agent_notes

    key = "sk_live_51Hx9Kq2Lm8Np4Rt6Vw3Yz7B"
    path = agent_notes.with_note(tmp_path / "notes.db", f"- deploy with {key}", f"the payments key is {key}")
    rows = json.loads(run(str(path), "--json", "--kind", "secret").stdout)
    where = {r["item_kind"]: r["item_id"] for r in rows}
    assert set(where) == {"note", "working_item"}
    purge = [sys.executable, "-m", "memorydesk", "purge", str(path), "--reason", "a live key"]
    nothing = subprocess.run(purge, capture_output=True, text=True, timeout=600)
    assert nothing.returncode == 2 and "--note" in nothing.stderr and "Traceback" not in nothing.stderr
    done = subprocess.run([*purge, "--note", where["note"], "--working-item", where["working_item"]],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 agent note(s) purged" in done.stdout and "1 working-memory item(s) purged" in done.stdout
    assert run(str(path), "--json", "--kind", "secret").stdout.strip() == "[]"
    assert key.encode() not in path.read_bytes()
    again = subprocess.run([*purge, "--working-item", where["working_item"]], capture_output=True, text=True,
                           timeout=600)
    assert again.returncode == 2 and "no working-memory item" in again.stderr


_WATCHED = """
import sys
from memorydesk.search.copies import follow
build = follow._build
def watched(*args):
    print("copies built", file=sys.stderr, flush=True)
    return build(*args)
follow._build = watched
from memorydesk.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


def test_a_one_shot_review_builds_no_copies_for_a_few_checks(corpus: Path) -> None:
    """Its recall checks (a few duplicate clusters and corrections) run on the product's SQL: no
    copies of the file are built for a process that ends right after (they were, on a thread,
    while the text was scanned)."""
    done = subprocess.run([sys.executable, "-c", _WATCHED, "review", str(corpus), "--json"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    assert {r["kind"] for r in json.loads(done.stdout)} >= {"duplicate", "losing_correction"}  # checks ran
    assert "copies built" not in done.stderr
