"""The full-text index read as a log of what changed (``search.copies.fts_log``).

A scratch table with the product's FTS5 index and triggers, written in random batches
(inserts, edits, supersessions, deletes; one to a hundred statements a transaction):
after each batch every row whose content changed must be among the rows the log
names, or — only for a deletion whose marker FTS5 merged away — the row count must
show that something is missing. Small page sizes make doclists and position lists run
over several pages, and frequent merges move data between segments.
"""

from __future__ import annotations

import random

import pytest
import sqlean

from memorydesk.search.copies import fts_log
from memorydesk.store.product_ddl import fts_statements

FTS = "memory_facts_fts"
SPACES = ("3f2a9c1e-5b7d-4e21-9a0b-7c6d5e4f3a21", "small-team-42")
HOOKS = frozenset({b"03f2a9c1e", b"0small"})  # each workspace id's first token, as the index stores terms
WORDS = [f"w{i}" for i in range(60)] + ["alpha", "beta", "gamma", "x" * 40, "café", "日本語"]


def _scratch(pgsz: int | None, automerge: int | None) -> sqlean.Connection:
    conn = sqlean.connect(":memory:", isolation_level=None)
    conn.execute("CREATE TABLE memory_facts_table (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, topic TEXT, "
                 "content TEXT, superseded_by TEXT)")
    for statement in fts_statements("memory_facts_table"):
        conn.execute(statement)
    for name, value in (("pgsz", pgsz), ("automerge", automerge)):
        if value is not None:
            conn.execute(f"INSERT INTO {FTS}({FTS}, rank) VALUES (?, ?)", (name, value))
    return conn


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.choice([1, 3, 10, 60, 300])))


def _batch(conn: sqlean.Connection, rng: random.Random, ids: list[str], counter: list[int]) -> None:
    conn.execute("BEGIN")
    for _ in range(rng.choice([1, 1, 1, 2, 5, 20, 100])):
        roll = rng.random()
        if roll < 0.5 or not ids:
            counter[0] += 1
            ids.append(f"f{counter[0]}")
            conn.execute("INSERT INTO memory_facts_table VALUES (?, ?, ?, ?, NULL)",
                         (ids[-1], rng.choice(SPACES), rng.choice(WORDS), _text(rng)))
        elif roll < 0.7:
            conn.execute("UPDATE memory_facts_table SET superseded_by = 'system:cleanup' WHERE id = ?",
                         (rng.choice(ids),))
        elif roll < 0.85:
            conn.execute("UPDATE memory_facts_table SET content = ? WHERE id = ?", (_text(rng), rng.choice(ids)))
        else:
            conn.execute("DELETE FROM memory_facts_table WHERE id = ?", (ids.pop(rng.randrange(len(ids))),))
    conn.execute("COMMIT")


def _rows(conn: sqlean.Connection) -> dict[int, tuple]:
    return {r[0]: r[1:] for r in conn.execute("SELECT rowid, id, workspace_id, topic, content, superseded_by "
                                               "FROM memory_facts_table")}


@pytest.mark.parametrize(("seed", "pgsz", "automerge"), [(0, None, None), (1, 64, None), (2, 80, 2), (3, 100, 8)])
def test_every_changed_row_is_named_or_the_count_says_one_is_missing(seed: int, pgsz: int | None,
                                                                      automerge: int | None) -> None:
    rng = random.Random(seed)
    conn = _scratch(pgsz, automerge)
    ids: list[str] = []
    counter = [0]
    structure, state = fts_log.read_structure(conn, FTS), _rows(conn)
    missed_deletions = grown = 0
    try:
        for _ in range(150):
            _batch(conn, rng, ids, counter)
            after = fts_log.read_structure(conn, FTS)
            parts = fts_log.changed_parts(conn, FTS, structure, after)
            named = set(fts_log.touched_rows(conn, FTS, parts, HOOKS, 10**9).tolist())
            now = _rows(conn)
            changed = {rowid for rowid in set(state) | set(now) if state.get(rowid) != now.get(rowid)}
            missing = changed - named
            if missing:  # only deletions, and the count of rows tells
                assert all(rowid not in now for rowid in missing)
                known = (set(state) | {r for r in named if r in now}) - {r for r in named if r not in now}
                assert len(known) != fts_log.averages(conn, FTS)[0]
                missed_deletions += 1
            grown += any(first > 1 for _, first, _ in parts)
            structure, state = after, now
    finally:
        conn.close()
    assert missed_deletions < 15
    if pgsz is not None:
        assert grown > 0  # segments written on by incremental merges were read from where they grew


def test_the_whole_index_names_every_row() -> None:
    rng = random.Random(9)
    conn = _scratch(64, None)
    ids: list[str] = []
    try:
        for _ in range(40):
            _batch(conn, rng, ids, [len(ids) + 10_000 * _])
        structure = fts_log.read_structure(conn, FTS)
        everything = [(s.segid, s.first, s.last) for s in structure.segments]
        named = set(fts_log.touched_rows(conn, FTS, everything, HOOKS, 10**9).tolist())
        assert set(_rows(conn)) <= named
        with pytest.raises(fts_log.Unfollowable):
            fts_log.touched_rows(conn, FTS, everything, HOOKS, max_pages=1)
    finally:
        conn.close()


def test_a_structure_record_of_another_format_is_refused() -> None:
    conn = sqlean.connect(":memory:", isolation_level=None)
    try:
        conn.execute("CREATE VIRTUAL TABLE v2 USING fts5(a, content='', contentless_delete=1)")
        conn.execute("INSERT INTO v2(rowid, a) VALUES (1, 'hello world')")
        with pytest.raises(fts_log.Unfollowable):
            fts_log.read_structure(conn, "v2")
    finally:
        conn.close()
