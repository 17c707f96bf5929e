"""Keyword search the fast way: the product's rows and bm25 scores, bit for bit.

The product's SQL (``fts.product_sql``) is exact by definition and slow on large files:
for every query FTS5 scores every row that matches any term, and its bm25 first counts
the rows matching each phrase, including the workspace phrase, which matches every row
of the workspace (on a 100k-fact file that count alone is more than half of the time).

``_fast_rows`` returns the same rows with the same bm25 values, bit for bit, from pieces
FTS5 computes itself:

- FTS5's bm25 is ``-Σ idf_p · tf_p·(k1+1) / (tf_p + k1·(1 - b + b·D/avgdl))`` over the
  query's phrases in order (``fts5_aux.c``); each summand depends only on its own phrase
  and the row. A one-term query ``{topic content} : (tok*)`` therefore returns, as
  ``-rank``, exactly the summand that phrase adds in the product's query. These per-term
  summands ("postings") are kept per file version, as frequent terms recur. A term seen
  for the first time is counted faster from the index's instances (a temporary
  ``fts5vocab`` table on the connection: tf per row, rows for the idf) and ``%_docsize``,
  with bm25's formula in FTS5's order of operations; the self-check holds those numbers
  to FTS5's own, bit for bit;
- the summands are added in the product's phrase order, as FTS5 adds them (a phrase a
  row does not match adds ``0.0``, which changes nothing);
- the workspace phrase comes last; its summand is computed here with FTS5's formula from
  the row's length (``%_docsize``), the index totals (``%_data``) and the number of rows
  matching the phrase (counted once per file version);
- the best rows are picked with a bound (the workspace summand is below ``idf·(k1+1)``),
  looking up only the rows needed, which are then filtered with the product's own
  predicates (active, this workspace, ``--repo``);
- equal scores keep rowid order: FTS5 sorts the matches (found in rowid order) with
  SQLite's sorter, which keeps the input order of equal keys, spilled runs included.

Before its first use in a process the fast path checks itself against the product's SQL
on a small scratch index (two workspaces, short texts with many equal scores); if any row
or any bit of any score differs (say, a SQLite build that fuses multiply-adds, or a
future FTS5 with another formula), only the product's SQL is used. The first search of
each file version also takes the product's SQL (see ``fast_keyword``).

The per-term parts are kept per file version in the shared cache (``search.cache``).
"""

from __future__ import annotations

import json
import logging
import math
import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import sqlean
from sqlalchemy import Connection

from memorydesk.core.fts_query import FACT_TEXT_COLUMNS, keyword_terms, scoped_match
from memorydesk.search.cache import cached, on_reset, snapshot_version
from memorydesk.search.fts import ROW_COLUMNS, KeywordRow, keyword_row, product_sql
from memorydesk.search.scope import RepoScope
from memorydesk.store import Workspace

__all__ = ["fast_keyword", "fast_path_available"]

log = logging.getLogger("memorydesk.search")

#: FTS5's bm25 constants (``fts5_aux.c``).
_K1 = 1.2
_B = 0.75
_WS_CLAUSE = ") AND (workspace_id : "
_TEXT_COLSET = "{" + " ".join(FACT_TEXT_COLUMNS) + "}"


class _Unsure(Exception):
    """The fast path cannot vouch for this query's answer; the product's SQL gives it."""


@dataclass(frozen=True)
class _IndexShape:
    """What the workspace phrase adds to bm25, for one snapshot of the index."""

    n_row: int
    avgdl: float
    idf: float | None  # None: the product's MATCH has no workspace phrase
    members: np.ndarray | None  # by rowid: rows matching the workspace phrase (None: every row)
    doc_len: np.ndarray | None = None  # by rowid: the row's token count, all columns (-1: no row)


def _varints(blob: bytes) -> list[int]:
    """SQLite varints, as FTS5 stores its sizes."""
    out: list[int] = []
    i, n = 0, len(blob)
    while i < n:
        value = 0
        for k in range(9):
            if i >= n:
                raise _Unsure("truncated varint")
            byte = blob[i]
            i += 1
            if k == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if byte < 0x80:
                break
        out.append(value)
    return out


def _workspace_phrase(match: str) -> str | None:
    """The quoted workspace phrase of the product's MATCH, or None when it has none."""
    at = match.rfind(_WS_CLAUSE)
    if at < 0 or not match.endswith(")"):
        return None
    return match[at + len(_WS_CLAUSE) : -1]


def _index_shape(raw: Any, fts: str, phrase: str | None, lengths: bool = True) -> _IndexShape | None:
    """Row count, average length, the workspace phrase's idf and rows, every row's length.

    None: not ours to do (a rank function configured for the table).
    """
    if raw.execute(f"SELECT 1 FROM {fts}_config WHERE k = 'rank'").fetchall():
        return None  # a rank function configured for the table: leave it to FTS5
    block = raw.execute(f"SELECT block FROM {fts}_data WHERE id = 1").fetchone()
    if block is None or block[0] is None:
        return None
    sizes = _varints(bytes(block[0]))
    n_row, n_token = sizes[0], sum(sizes[1:])
    if n_row <= 0:
        return None
    avgdl = float(n_token) / float(n_row)
    doc_len = _doc_lengths(raw, fts, len(sizes) - 1) if lengths else None
    if phrase is None:
        return _IndexShape(n_row, avgdl, None, None, doc_len)
    expr = f"workspace_id : {phrase}"
    n_hit = int(raw.execute(f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ?", (expr,)).fetchone()[0])
    idf = math.log((n_row - n_hit + 0.5) / (n_hit + 0.5))
    if idf <= 0.0:
        idf = 1e-6
    members = None
    if n_hit != n_row:
        ids = np.fromiter((r[0] for r in raw.execute(f"SELECT rowid FROM {fts} WHERE {fts} MATCH ?", (expr,))),
                          dtype=np.int64)
        members = np.zeros(int(ids.max()) + 1 if len(ids) else 1, dtype=bool)
        members[ids] = True
    return _IndexShape(n_row, avgdl, idf, members, doc_len)


def _doc_lengths(raw: Any, fts: str, n_col: int) -> np.ndarray | None:
    """Every indexed row's token count (what bm25 reads from ``%_docsize``), by rowid."""
    rows = raw.execute(f"SELECT id, sz FROM {fts}_docsize").fetchall()
    if not rows or n_col <= 0:
        return None
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    if int(ids.min()) < 0 or int(ids.max()) > 64 * len(rows) + 1_000_000:
        return None  # rowids too sparse for a table by rowid
    out = np.full(int(ids.max()) + 1, -1, dtype=np.int64)
    blobs = [bytes(r[1]) if r[1] is not None else b"" for r in rows]
    plain = np.fromiter((len(b) == n_col for b in blobs), dtype=bool, count=len(blobs))
    if plain.any():  # one byte per column (every count below 128): add the bytes up
        packed = np.frombuffer(b"".join(b for b, p in zip(blobs, plain) if p), dtype=np.uint8).reshape(-1, n_col)
        small = (packed < 0x80).all(axis=1)
        at = np.flatnonzero(plain)
        out[ids[at[small]]] = packed[small].sum(axis=1, dtype=np.int64)
        plain[at[~small]] = False
    for i in np.flatnonzero(~plain).tolist():
        out[ids[i]] = sum(_varints(blobs[i]))
    return out


_INSTANCES = "memdesk_fts_instances"


def _instances_table(raw: Any, fts: str) -> bool:
    """A temporary ``fts5vocab`` view of the index's instances on this connection (not in the file)."""
    try:
        raw.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{_INSTANCES} USING fts5vocab(main, {fts}, instance)")
        return True
    except sqlean.Error:
        return False


def _term_postings_counted(raw: Any, term: str, shape: _IndexShape) -> tuple[np.ndarray, np.ndarray]:
    """``_term_postings`` from the index's instances: bm25's own formula on the same numbers.

    ``term*`` matches the indexed terms that start with ``term``; counting its instances in
    topic/content per row gives tf, the rows counted give the idf, ``%_docsize`` the length.
    About twice as fast as asking FTS5 to rank, and held to the same bits by the self-check.
    """
    upper = term[:-1] + chr(ord(term[-1]) + 1)  # terms are [a-z0-9]+: everything starting with ``term``
    docs = np.fromiter((r[0] for r in raw.execute(
        f"SELECT doc FROM temp.{_INSTANCES} WHERE term >= ? AND term < ? AND col IN ('topic', 'content')",
        (term, upper))), dtype=np.int64)
    if not len(docs):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    rowids, counts = np.unique(docs, return_counts=True)
    doc_len = shape.doc_len
    assert doc_len is not None
    if int(rowids[-1]) >= len(doc_len) or bool((doc_len[rowids] < 0).any()):
        raise _Unsure("an instance of a row without a size")
    n_hit = len(rowids)
    idf = math.log((shape.n_row - n_hit + 0.5) / (n_hit + 0.5))
    if idf <= 0.0:
        idf = 1e-6
    tf = counts.astype(np.float64)
    d = doc_len[rowids].astype(np.float64)
    # fts5Bm25Function's summand, in its order of operations
    return rowids, idf * ((tf * (_K1 + 1.0)) / (tf + _K1 * (1 - _B + _B * d / shape.avgdl)))


def _term_postings(raw: Any, fts: str, term: str, shape: _IndexShape) -> tuple[np.ndarray, np.ndarray]:
    """Rows matching ``term*`` in topic/content, and what that phrase adds to their bm25."""
    if shape.doc_len is not None and _instances_table(raw, fts):
        return _term_postings_counted(raw, term, shape)
    rows = raw.execute(f"SELECT rowid, rank FROM {fts} WHERE {fts} MATCH ?",
                       (f"{_TEXT_COLSET} : ({term}*)",)).fetchall()
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    arr = np.array(rows, dtype=np.float64)
    rowids = arr[:, 0].astype(np.int64)
    if len(rowids) > 1 and not bool(np.all(rowids[1:] > rowids[:-1])):
        raise _Unsure("postings out of rowid order")
    return rowids, -arr[:, 1]  # rank = -1.0 * (0.0 + summand): the summand exactly


_spare: list[np.ndarray] = []  # zeroed float64 buffers, one slot per rowid, lent to one search at a time
_spare_lock = threading.Lock()
on_reset(_spare.clear)


def _borrow(n: int) -> np.ndarray:
    with _spare_lock:
        for i, buf in enumerate(_spare):
            if len(buf) >= n:
                return _spare.pop(i)
    return np.zeros(max(n, 1024), dtype=np.float64)


def _give_back(buf: np.ndarray) -> None:
    with _spare_lock:
        if len(_spare) < 2:
            _spare.append(buf)


def _summed(postings: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Candidate rowids and their summed bm25 parts, added in phrase order as FTS5 adds them.

    A row matching several terms may appear once per term (with the same sum each time).
    """
    lists = [(rows, parts) for rows, parts in postings if len(rows)]
    if not lists:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    if len(lists) == 1:
        return lists[0]  # one phrase: 0.0 + part is the part
    candidates = np.concatenate([rows for rows, _ in lists])
    top = max(int(rows[-1]) for rows, _ in lists)
    if top < 16 * len(candidates) + 65_536:  # dense: one slot per rowid, in a reused zeroed buffer
        score = _borrow(top + 1)
        try:
            for rows, parts in lists:
                score[rows] += parts
            return candidates, score[candidates]
        finally:
            for rows, _ in lists:
                score[rows] = 0.0
            _give_back(score)
    matched, where = np.unique(candidates, return_inverse=True)
    acc = np.zeros(len(matched), dtype=np.float64)
    start = 0
    for rows, parts in lists:
        acc[where[start : start + len(rows)]] += parts
        start += len(rows)
    return matched, acc


def _fast_rows(
    raw: Any,
    fts: str,
    facts: str,
    workspace_id: str,
    postings: Sequence[tuple[np.ndarray, np.ndarray]],
    limit: int,
    scope: RepoScope | None,
    shape: _IndexShape,
) -> list[KeywordRow]:
    """The product's rows for one query, from its terms' postings."""
    cand, partial = _summed(postings)
    if shape.members is not None and len(cand):
        inside = cand < len(shape.members)
        keep = np.zeros(len(cand), dtype=bool)
        keep[inside] = shape.members[cand[inside]]
        cand, partial = cand[keep], partial[keep]
    n = len(cand)
    if n == 0:
        return []
    bound = shape.idf * (_K1 + 1.0) * (1.0 + 1e-9) if shape.idf is not None else 0.0
    scope_sql, scope_params = scope.sql("f") if scope is not None else ("", ())
    row_sql = (f"SELECT f.rowid, {ROW_COLUMNS} FROM {facts} f "
               f"WHERE f.rowid IN (SELECT value FROM json_each(?)) AND f.workspace_id = ? "
               f"AND f.superseded_by IS NULL{scope_sql}")
    ranked: list[tuple[float, int, Sequence[Any]]] = []
    done: set[int] = set()
    take = min(n, max(4 * limit, 64))  # entries: a row may be there once per term it matches
    while True:
        if take < n:
            part = np.argpartition(-partial, take - 1)[:take]
            floor: float | None = float(partial[part].min())  # every row outside ``part`` scores ≤ floor
        else:
            part, floor = np.arange(n), None
        ids, first = np.unique(cand[part], return_index=True)
        fresh = [i for i, rowid in enumerate(ids.tolist()) if rowid not in done]
        if fresh:
            rowids = ids[fresh]
            done.update(rowids.tolist())
            ranked.extend(_scored(raw, fts, row_sql, workspace_id, scope_params, rowids,
                                  partial[part[first[fresh]]], shape))
        ranked.sort(key=lambda item: (-item[0], item[1]))  # equal scores: FTS5's sorter keeps rowid order
        if floor is None:
            break
        if len(ranked) >= limit and floor + bound < ranked[limit - 1][0]:
            break  # nobody left can reach (or tie) the last place
        take = min(n, take * 4)
    return [keyword_row(r, -score) for score, _, r in ranked[:limit]]


def _scored(raw: Any, fts: str, row_sql: str, workspace_id: str, scope_params: tuple[object, ...],
            rowids: np.ndarray, partial: np.ndarray, shape: _IndexShape) -> list[tuple[float, int, Sequence[Any]]]:
    """The rows among ``rowids`` the product's join keeps, with their full bm25 score (positive)."""
    ids = json.dumps([int(x) for x in rowids])
    rows = raw.execute(row_sql, (ids, workspace_id, *scope_params)).fetchall()
    if not rows:
        return []
    part_of = dict(zip(rowids.tolist(), partial.tolist()))
    if shape.idf is None:
        return [(part_of[r[0]], r[0], r[1:]) for r in rows]
    kept = json.dumps([r[0] for r in rows])
    sizes = dict(raw.execute(f"SELECT id, sz FROM {fts}_docsize WHERE id IN (SELECT value FROM json_each(?))",
                             (kept,)).fetchall())
    out: list[tuple[float, int, Sequence[Any]]] = []
    idf, avgdl, tf = shape.idf, shape.avgdl, 1.0
    for r in rows:
        blob = sizes.get(r[0])
        if blob is None:
            raise _Unsure("row without a size")
        d = float(sum(_varints(bytes(blob))))
        # fts5Bm25Function, the workspace phrase's summand, in FTS5's order of operations
        ws_part = idf * ((tf * (_K1 + 1.0)) / (tf + _K1 * (1 - _B + _B * d / avgdl)))
        out.append((part_of[r[0]] + ws_part, r[0], r[1:]))
    return out


def fast_keyword(conn: Connection, ws: Workspace, query: str, match: str, limit: int,
                  scope: RepoScope | None) -> list[KeywordRow] | None:
    """``keyword_rows``' answer the fast way, or None when the product's SQL must give it.

    The first search of each file version takes the product's SQL: counting the workspace
    phrase's rows costs about one product query, so a file that changes between searches,
    or a one-shot command, gains nothing from it (and never runs the self-check).
    """
    if snapshot_version(ws, conn) is None:
        return None
    raw = conn.connection.driver_connection
    fts, facts = ws.layout.fts, ws.layout.facts.name
    phrase = _workspace_phrase(match)
    try:
        shape = cached(ws, conn, ("fts-shape", phrase), lambda: _index_shape(raw, fts, phrase), after=2)
        if shape is None or not fast_path_available():
            return None
        postings = [
            cached(ws, conn, ("fts-term", term), lambda term=term: _term_postings(raw, fts, term, shape),
                   size=lambda v: len(v[0]))
            for term in keyword_terms(query)
        ]
        return _fast_rows(raw, fts, facts, ws.workspace_id, postings, limit, scope, shape)  # type: ignore[arg-type]
    except (_Unsure, sqlean.Error):
        return None


# --- the fast path's self-check -----------------------------------------------------------

_check_lock = threading.Lock()
_checked: list[bool | None] = [None]


def fast_path_available() -> bool:
    """Whether the fast keyword path gave the product's answer on the scratch index."""
    if _checked[0] is None:
        with _check_lock:
            if _checked[0] is None:
                try:
                    _checked[0] = _self_check()
                except Exception:  # noqa: BLE001 - any surprise means: use the product's SQL
                    log.warning("fast keyword search disabled: its self-check failed", exc_info=True)
                    _checked[0] = False
                if not _checked[0]:
                    log.warning("fast keyword search disabled: it disagreed with FTS5 on the scratch index")
    return bool(_checked[0])


_CHECK_WORDS = (
    "deploy deployment deployed api apis rapid release releases rel backup back postgres post cache cached "
    "redis kafka terraform staging stage prod production review reviewer rotate rotation secret token tokens "
    "alpha beta gamma delta kiwi banana cherry x9 v2 2024 build builds builder night nightly weekly "
    "café naïve löschfrist überall"
).split()


def _self_check(rounds: int = 30) -> bool:
    """Compare the fast path with the product's SQL on a small scratch index, bit for bit."""
    from memorydesk.store.product_ddl import fts_statements

    rng = random.Random(20240531)
    raw = sqlean.connect(":memory:", isolation_level=None)
    fts, facts = "memory_facts_fts", "check_facts"
    try:
        raw.execute(f"CREATE TABLE {facts} (id TEXT NOT NULL PRIMARY KEY, workspace_id TEXT NOT NULL, "
                    "domain TEXT NOT NULL, topic TEXT NOT NULL, content TEXT NOT NULL, confidence REAL, "
                    "memory_type TEXT, superseded_by TEXT, created_at INTEGER)")
        for statement in fts_statements(facts):
            raw.execute(statement)
        spaces = ("3f2a9c1e-5b7d-4e21-9a0b-7c6d5e4f3a21", "small-team-42")  # 3/4 and 1/4 of the rows
        rows: list[tuple[object, ...]] = []
        for i in range(300):
            content = " ".join(rng.choice(_CHECK_WORDS) for _ in range(rng.choice([1, 2, 3, 5, 8, 13, 21, 34, 55])))
            if i % 97 == 5:
                content = str(rows[-1][4])  # a duplicate now and then
            rows.append((f"c{i:04d}", spaces[0] if rng.random() < 0.75 else spaces[1],
                         rng.choice(["codebase", "repo:acme-web/x", "repo:acme-api/y", "repo:odd"]),
                         "-".join(rng.choice(_CHECK_WORDS) for _ in range(rng.randint(1, 3))), content,
                         round(rng.random(), 2), "fact", "c0000" if rng.random() < 0.1 else None, 1_700_000_000 + i))
        raw.executemany(f"INSERT INTO {facts} VALUES (?,?,?,?,?,?,?,?,?)", rows)
        raw.execute("BEGIN")
        shapes: dict[str | None, _IndexShape | None] = {}
        postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        compared = 0
        for _ in range(rounds):
            query = " ".join(rng.choice(_CHECK_WORDS)[: rng.choice([2, 3, 4, 9])] for _ in range(rng.randint(1, 4)))
            for wid in spaces:
                match = scoped_match(query, wid)
                if match is None:
                    continue
                scope = RepoScope("acme-web") if rng.random() < 0.3 else None
                limit = rng.choice([3, 20])
                scope_sql, scope_params = scope.sql("f") if scope is not None else ("", ())
                want = [(r[0], r[7]) for r in raw.execute(product_sql(fts, facts, scope_sql),
                                                          (match, wid, *scope_params, limit))]
                phrase = _workspace_phrase(match)
                if phrase not in shapes:
                    shapes[phrase] = _index_shape(raw, fts, phrase)
                shape = shapes[phrase]
                if shape is None:
                    return False
                terms = keyword_terms(query)
                for t in terms:
                    if t not in postings:
                        postings[t] = _term_postings(raw, fts, t, shape)
                        ranked = _term_postings(raw, fts, t, replace(shape, doc_len=None))
                        if not (np.array_equal(postings[t][0], ranked[0])
                                and postings[t][1].tobytes() == ranked[1].tobytes()):
                            return False  # the counted postings must be FTS5's own numbers
                try:
                    got = [(r.id, r.bm25) for r in _fast_rows(raw, fts, facts, wid, [postings[t] for t in terms],
                                                               limit, scope, shape)]
                except _Unsure:
                    continue
                if [g[0] for g in got] != [w[0] for w in want]:
                    return False
                if any(float(g[1]).hex() != float(w[1]).hex() for g, w in zip(got, want)):
                    return False
                compared += bool(want)
        raw.execute("ROLLBACK")
        return compared >= rounds
    finally:
        raw.close()
