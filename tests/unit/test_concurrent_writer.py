"""Living next to the product: another process writes facts while the service works."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sqlalchemy import func, select

from memorydesk.memory.reviewer import Reviewer
from memorydesk.memory.service import MemoryService
from memorydesk.store import open_workspace

# Stands in for the product's host process: plain SQLite, WAL, busy timeout, short
# write transactions (BEGIN IMMEDIATE) that fire the FTS triggers.
PRODUCT_WRITER = textwrap.dedent("""
    import sqlean, sys, time, uuid
    path, ws_id, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    conn = sqlean.connect(path, timeout=5, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 5000")
    print("ready", flush=True)
    for i in range(count):
        conn.execute("BEGIN IMMEDIATE")
        now = int(time.time())
        conn.execute(
            "INSERT INTO memory_facts_table (id, workspace_id, domain, topic, content, created_at, updated_at) "
            "VALUES (?, ?, 'product', ?, ?, ?, ?)",
            (str(uuid.uuid4()), ws_id, f"host-{i}", f"written by the host process number {i}", now, now))
        conn.execute("UPDATE memory_facts_table SET recall_count = recall_count + 1 WHERE domain = 'product' "
                     "AND topic = 'host-0'")
        conn.execute("COMMIT")
    print("done", flush=True)
""")

HOST_FACTS = 400
OUR_FACTS = 60


@pytest.mark.slow
@pytest.mark.parametrize("round_", range(10))
def test_service_and_product_write_the_same_file(tmp_path: Path, round_: int) -> None:
    path = tmp_path / "shared.db"
    ws = open_workspace(path, create=True)
    svc = MemoryService(ws, embedder=False)
    reviewer = Reviewer(ws, "alice", embedder=False)
    facts = ws.layout.facts
    host = subprocess.Popen([sys.executable, "-c", PRODUCT_WRITER, str(path), ws.workspace_id, str(HOST_FACTS)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert host.stdout.readline().strip() == "ready"
        seen_host: list[int] = []
        ours = []
        for i in range(OUR_FACTS):
            ours.append(svc.propose_fact(domain="desk", topic=f"t{i}", content=f"desk fact {i} text", now=None))
            if i % 10 == 9:
                reviewer.delete_facts([ours[-1].fact_id])
            with ws.read() as conn:
                seen_host.append(conn.execute(select(func.count()).select_from(facts)
                                              .where(facts.c.domain == "product")).scalar())
        out, err = host.communicate(timeout=120)
    finally:
        if host.poll() is None:
            host.kill()
    assert host.returncode == 0, err
    assert "done" in out
    with ws.read() as conn:
        host_rows = conn.execute(select(func.count()).select_from(facts).where(facts.c.domain == "product")).scalar()
        desk_rows = conn.execute(select(func.count()).select_from(facts).where(facts.c.domain == "desk")).scalar()
        deleted = conn.execute(select(func.count()).select_from(facts)
                               .where(facts.c.superseded_by == "human:deleted")).scalar()
        fts_hits = conn.exec_driver_sql("SELECT count(*) FROM memory_facts_fts WHERE memory_facts_fts MATCH "
                                        "'host AND process'").scalar()
    assert (host_rows, desk_rows, deleted) == (HOST_FACTS, OUR_FACTS, OUR_FACTS // 10)
    assert fts_hits == HOST_FACTS
    assert seen_host == sorted(seen_host)  # our reads saw the host's writes as they landed
    ws.close()
