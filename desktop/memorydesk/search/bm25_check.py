"""The fast keyword path's self-check: the product's SQL and ``bm25`` on a scratch index, bit for bit.

Before its first use in a process the fast path is compared with the product's SQL on a
small scratch index (two workspaces, short texts with many equal scores), first on a
copy of the index as built, then after rows were inserted, edited, superseded and
deleted and the copy followed them (tokenized again, as ``search.copies.bundle`` does). If any
row or any bit of any score differs (say, a SQLite build that fuses multiply-adds, or a
future FTS5 with another formula or tokenizer), only the product's SQL is used.
"""

from __future__ import annotations

import logging
import random
import threading
from typing import Any

import numpy as np
import sqlean

from memorydesk.core.product.fts_query import keyword_terms, scoped_match
from memorydesk.search.bm25 import _fast_rows, _workspace_phrase
from memorydesk.search.copies.bm25_terms import Unsure, ranked_postings, shape_of, term_parts
from memorydesk.search.copies.fts_mirror import KeywordIndex, Retokenizer, TermTable, fts_options
from memorydesk.search.fts import product_sql
from memorydesk.search.scope import RepoScope
from memorydesk.store.product_ddl import fts_statements

__all__ = ["passed"]

log = logging.getLogger("memorydesk.search")

_check_lock = threading.Lock()
_checked: list[bool | None] = [None]


def passed() -> bool:
    """Whether the fast keyword path gave the product's answer on the scratch index (checked once)."""
    if _checked[0] is None:
        with _check_lock:
            if _checked[0] is None:
                try:
                    _checked[0] = _self_check()
                except Exception:
                    log.warning("fast keyword search disabled: its self-check failed", exc_info=True)
                    _checked[0] = False
                if not _checked[0]:
                    log.warning("fast keyword search disabled: it disagreed with FTS5 on the scratch index")
    return bool(_checked[0])


_CHECK_WORDS = ["deploy", "deployment", "deployed", "api", "apis", "rapid", "release", "releases", "rel", "backup",
                "back", "postgres", "post", "cache", "cached", "redis", "kafka", "terraform", "staging", "stage",
                "prod", "production", "review", "reviewer", "rotate", "rotation", "secret", "token", "tokens", "alpha",
                "beta", "gamma", "delta", "kiwi", "banana", "cherry", "x9", "v2", "2024", "build", "builds", "builder",
                "night", "nightly", "weekly", "café", "naïve", "löschfrist", "überall"]
_CHECK_SPACES = ("3f2a9c1e-5b7d-4e21-9a0b-7c6d5e4f3a21", "small-team-42")  # 3/4 and 1/4 of the rows


def _check_row(rng: random.Random, i: int, rows: list[tuple[object, ...]]) -> tuple[object, ...]:
    content = " ".join(rng.choice(_CHECK_WORDS) for _ in range(rng.choice([1, 2, 3, 5, 8, 13, 21, 34, 55])))
    if i % 97 == 5 and rows:
        content = str(rows[-1][4])  # a duplicate now and then
    return (f"c{i:04d}", _CHECK_SPACES[0] if rng.random() < 0.75 else _CHECK_SPACES[1],
            rng.choice(["codebase", "repo:acme-web/x", "repo:acme-api/y", "repo:odd"]),
            "-".join(rng.choice(_CHECK_WORDS) for _ in range(rng.randint(1, 3))), content,
            round(rng.random(), 2), "fact", "c0000" if rng.random() < 0.1 else None, 1_700_000_000 + i)


def _self_check(rounds: int = 20) -> bool:
    """Compare the fast path with the product's SQL on a small scratch index, bit for bit.

    Twice: on a copy built from the index, and after rows were inserted, edited,
    superseded and deleted and the copy followed them (tokenized again, as ``follow`` does).
    """
    rng = random.Random(20240531)
    raw = sqlean.connect(":memory:", isolation_level=None)
    fts, facts = "memory_facts_fts", "check_facts"
    try:
        raw.execute(f"CREATE TABLE {facts} (id TEXT NOT NULL PRIMARY KEY, workspace_id TEXT NOT NULL, "
                    "domain TEXT NOT NULL, topic TEXT NOT NULL, content TEXT NOT NULL, confidence REAL, "
                    "memory_type TEXT, superseded_by TEXT, created_at INTEGER)")
        for statement in fts_statements(facts):
            raw.execute(statement)
        rows: list[tuple[object, ...]] = []
        for i in range(300):
            rows.append(_check_row(rng, i, rows))
        raw.executemany(f"INSERT INTO {facts} VALUES (?,?,?,?,?,?,?,?,?)", rows)
        options = fts_options(raw.execute("SELECT sql FROM sqlite_master WHERE name = ?", (fts,)).fetchone()[0])
        if options is None:
            return False
        top = raw.execute(f"SELECT max(rowid) FROM {facts}").fetchone()[0]
        rowids = np.array([r[0] for r in raw.execute(f"SELECT rowid FROM {facts}")], dtype=np.int64)
        index = KeywordIndex.of_rows(*TermTable.build(raw, fts, top), rowids,
                                     lambda size: np.zeros(size, dtype=bool), None)
        phrases = {wid: _workspace_phrase(scoped_match("aa", wid)) for wid in _CHECK_SPACES}
        member_sets = {wid: {r[0] for r in raw.execute(f"SELECT rowid FROM {fts} WHERE {fts} MATCH ?",
                                                       (f"workspace_id : {phrases[wid]}",))} for wid in _CHECK_SPACES}
        compared = _compare(raw, fts, facts, index, phrases, member_sets, rng, rounds)
        # change rows through the triggers, then follow them into the copy
        retok = Retokenizer(options)
        changed: set[int] = set()
        for i in range(300, 340):
            rows.append(_check_row(rng, i, rows))
            raw.execute(f"INSERT INTO {facts} VALUES (?,?,?,?,?,?,?,?,?)", rows[-1])
        for fid in rng.sample([r[0] for r in rows[:300]], 40):
            roll = rng.random()
            if roll < 0.3:
                raw.execute(f"UPDATE {facts} SET content = ? WHERE id = ?", (_check_row(rng, 0, [])[4], fid))
            elif roll < 0.6:
                raw.execute(f"UPDATE {facts} SET superseded_by = 'system:cleanup' WHERE id = ?", (fid,))
            else:
                changed.add(raw.execute(f"SELECT rowid FROM {facts} WHERE id = ?", (fid,)).fetchone()[0])
                raw.execute(f"DELETE FROM {facts} WHERE id = ?", (fid,))
        changed |= {r[0] for r in raw.execute(f"SELECT rowid FROM {facts}")}
        live = {r[0]: r[1:] for r in raw.execute(f"SELECT rowid, topic, content, workspace_id FROM {facts}")}
        tokens = retok.rows(raw, [(rowid, *live[rowid]) for rowid in sorted(changed) if rowid in live], None)
        index.apply({rowid: tokens.get(rowid) for rowid in changed})
        if index.n_row != len(live):
            return False
        member_sets = {wid: {r[0] for r in raw.execute(f"SELECT rowid FROM {fts} WHERE {fts} MATCH ?",
                                                       (f"workspace_id : {phrases[wid]}",))} for wid in _CHECK_SPACES}
        compared += _compare(raw, fts, facts, index, phrases, member_sets, rng, rounds)
        return compared >= 2 * rounds
    finally:
        raw.close()


def _active(raw: Any, facts: str, wid: str, size: int) -> np.ndarray:
    """By rowid: the active facts of workspace ``wid`` (what ``RowPrints.active`` holds for it)."""
    out = np.zeros(size, dtype=bool)
    rowids = [r[0] for r in raw.execute(f"SELECT rowid FROM {facts} WHERE workspace_id = ? AND superseded_by IS NULL",
                                        (wid,))]
    out[[r for r in rowids if r < size]] = True
    return out


def _compare(raw: Any, fts: str, facts: str, index: KeywordIndex, phrases: dict[str, str | None],
             member_sets: dict[str, set[int]], rng: random.Random, rounds: int) -> int:
    """How many queries gave the product's rows and scores (-10**6 as soon as one does not)."""
    compared = 0
    raw.execute("BEGIN")
    try:
        for _ in range(rounds):
            query = " ".join(rng.choice(_CHECK_WORDS)[: rng.choice([2, 3, 4, 9])] for _ in range(rng.randint(1, 4)))
            for wid in _CHECK_SPACES:
                match = scoped_match(query, wid)
                if match is None:
                    continue
                index.phrase = phrases[wid]
                index.members = np.zeros(len(index.doc_len), dtype=bool)
                index.members[sorted(member_sets[wid])] = True
                index.derived.clear()  # the shape depends on the phrase and its rows
                shape = shape_of(index)
                if shape is None:
                    return -10**6
                scope = RepoScope("acme-web") if rng.random() < 0.3 else None
                limit = rng.choice([3, 20])
                scope_sql, scope_params = scope.sql("f") if scope is not None else ("", ())
                want = [(r[0], r[7]) for r in raw.execute(product_sql(fts, facts, scope_sql),
                                                          (match, wid, *scope_params, limit))]
                terms = keyword_terms(query)
                postings = []
                for t in terms:
                    ours = term_parts(*index.table.postings(t), shape)
                    truth = ranked_postings(raw, fts, t)
                    if not (np.array_equal(ours[0], truth[0]) and ours[1].tobytes() == truth[1].tobytes()):
                        return -10**6  # the copy's numbers must be FTS5's own
                    postings.append(ours)
                # with the copies' active bit (as search runs) and asking SQLite (a --repo scope, no bit)
                active = _active(raw, facts, wid, len(index.doc_len))
                for flags in (active, None):
                    try:
                        got = [(r.id, r.bm25) for r in _fast_rows(raw, fts, facts, wid, postings, limit, scope, shape,
                                                                   flags)]
                    except Unsure:
                        continue
                    if [g[0] for g in got] != [w[0] for w in want]:
                        return -10**6
                    if any(float(g[1]).hex() != float(w[1]).hex() for g, w in zip(got, want)):
                        return -10**6
                compared += bool(want)
    finally:
        raw.execute("ROLLBACK")
    return compared
