"""Soak: the product's process writes while the desk edits, deletes, restores, undoes and searches.

Every change on both sides must land (0 lost writes) and no "locked" may reach a person
(the busy timeout and ``with_retry`` absorb the other writer). The desk's changes are
checked against a model of what they should have done.
"""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memorydesk.memory.reviewer import DELETED, Reviewer
from memorydesk.memory.service import MemoryService
from memorydesk.search.agent import search
from memorydesk.search.preamble import build_preamble
from memorydesk.store import open_workspace

pytestmark = pytest.mark.slow

# The product's host process: short BEGIN IMMEDIATE transactions that insert facts (FTS by
# trigger), bump recall counts and soft-delete some of its own facts, with short pauses so it
# writes all through the desk's session.
PRODUCT = textwrap.dedent("""
    import sqlean, sys, time, uuid
    path, ws_id, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    conn = sqlean.connect(path, timeout=5, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 5000")
    print("ready", flush=True)
    ids = []
    for i in range(count):
        conn.execute("BEGIN IMMEDIATE")
        now = int(time.time())
        ids.append(str(uuid.uuid4()))
        conn.execute("INSERT INTO memory_facts_table (id, workspace_id, domain, topic, content, created_at, "
                     "updated_at) VALUES (?, ?, 'product', ?, ?, ?, ?)",
                     (ids[-1], ws_id, f"host-{i}", f"deploy note {i} written by the host process", now, now))
        conn.execute("UPDATE memory_facts_table SET recall_count = recall_count + 1 WHERE id = ?", (ids[i // 2],))
        if i % 25 == 24:
            conn.execute("UPDATE memory_facts_table SET superseded_by = 'system:cleanup' WHERE id = ?",
                         (ids[i - 10],))
        conn.execute("COMMIT")
        time.sleep(0.008)
    print("done", flush=True)
""")

HOST_FACTS = 1500
DESK_STEPS = 240


def test_the_desk_and_the_product_write_together_without_losing_anything(tmp_path: Path) -> None:
    path = tmp_path / "soak.db"
    ws = open_workspace(path, create=True)
    svc = MemoryService(ws, embedder=False)
    rv = Reviewer(ws, "alice", embedder=False)
    rng = random.Random(8)
    ours = [svc.propose_fact(domain=f"desk-{i}", topic=f"t{i}", content=f"desk fact {i} about builds").fact_id
            for i in range(30)]
    model: dict[str, str | None] = dict.fromkeys(ours)  # fact id -> superseded_by
    done: list[dict[str, str | None]] = []  # the model before each change still undoable
    host = subprocess.Popen([sys.executable, "-c", PRODUCT, str(path), ws.workspace_id, str(HOST_FACTS)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    failures: list[str] = []
    try:
        assert host.stdout is not None and host.stdout.readline().strip() == "ready"
        steps = side_by_side = 0
        while steps < DESK_STEPS or (host.poll() is None and steps < 10 * DESK_STEPS):
            steps += 1
            side_by_side += host.poll() is None
            active = [f for f, s in model.items() if s is None]
            deleted = [f for f, s in model.items() if s == DELETED]
            choice = rng.choice(["edit", "delete", "restore", "undo", "search", "search"])
            try:
                if choice == "edit" and active:
                    fid = rng.choice(active)
                    before = dict(model)
                    new = rv.edit_fact(fid, domain="desk", topic="edited", content=f"edited {fid}",
                                       confidence=0.5).ids[1]
                    model[fid], model[new] = new, None
                    done.append(before)
                elif choice == "delete" and active:
                    fid = rng.choice(active)
                    done.append(dict(model))
                    rv.delete_facts([fid])
                    model[fid] = DELETED
                elif choice == "restore" and deleted:
                    fid = rng.choice(deleted)
                    done.append(dict(model))
                    rv.restore_facts([fid])
                    model[fid] = None
                elif choice == "undo" and done:
                    rv.undo()
                    previous = done.pop()
                    for fid in list(model):
                        if fid not in previous:  # an undone edit's new version is removed: the file as it was
                            del model[fid]
                        else:
                            model[fid] = previous[fid]
                else:
                    search(ws, rng.choice(["deploy note", "desk fact builds", "edited", "host process"]),
                           mode=rng.choice(["keyword", "hybrid"]))
                    build_preamble(ws, "nobody", "what do we know about deploy notes and builds")
            except Exception as exc:  # noqa: BLE001 - every failure is a finding here, collected for the assert
                failures.append(f"{choice}: {type(exc).__name__}: {exc}")
        out, err = host.communicate(timeout=300)
    finally:
        if host.poll() is None:
            host.kill()
            host.communicate()
    assert side_by_side >= DESK_STEPS // 4  # the two really wrote side by side
    assert failures == []  # nothing reached a person: no "locked", no stale edit, no crash
    assert host.returncode == 0 and "done" in out, err
    with ws.read() as conn:
        host_rows = conn.exec_driver_sql("SELECT count(*) FROM memory_facts_table WHERE domain = 'product'").scalar()
        cleaned = conn.exec_driver_sql("SELECT count(*) FROM memory_facts_table WHERE domain = 'product' AND "
                                       "superseded_by = 'system:cleanup'").scalar()
        recalls = conn.exec_driver_sql("SELECT sum(recall_count) FROM memory_facts_table "
                                       "WHERE domain = 'product'").scalar()
        indexed = conn.exec_driver_sql("SELECT count(*) FROM memory_facts_fts WHERE memory_facts_fts MATCH "
                                       "'host AND process'").scalar()
        state = dict(conn.exec_driver_sql("SELECT id, superseded_by FROM memory_facts_table "
                                          "WHERE domain LIKE 'desk%' OR topic = 'edited'").all())
    assert (host_rows, cleaned, recalls, indexed) == (HOST_FACTS, HOST_FACTS // 25, HOST_FACTS, HOST_FACTS)
    assert state == model  # every desk change landed exactly as made
    ws.close()
