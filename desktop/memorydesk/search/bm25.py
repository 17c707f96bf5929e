"""Keyword search the fast way: the product's rows and bm25 scores, bit for bit.

The product's SQL (``fts.product_sql``) is exact by definition and slow on large files:
for every query FTS5 scores every row that matches any term, and its bm25 first counts
the rows matching each phrase, including the workspace phrase, which matches every row
of the workspace (on a 100k-fact file that count alone is more than half of the time).

``_fast_rows`` returns the same rows with the same bm25 values, bit for bit, from the
copy of the index search keeps (``search.copies.fts_mirror``, kept in step by ``search.copies.follow``):

- FTS5's bm25 is ``-Σ idf_p · tf_p·(k1+1) / (tf_p + k1·(1 - b + b·D/avgdl))`` over the
  query's phrases in order (``fts5_aux.c``); each summand depends only on its own phrase
  and the row. A prefix term ``tok*`` matches the indexed terms that start with ``tok``;
  its ``tf`` in a row is the number of such tokens in topic and content, its idf comes
  from the number of rows holding one, ``D`` is the row's length (its tokens in all
  columns), all read from the copy and put through bm25's formula in FTS5's order of
  operations (``search.copies.bm25_terms``); the self-check holds those numbers to FTS5's
  own, bit for bit;
- the summands are added in the product's phrase order, as FTS5 adds them (a phrase a
  row does not match adds ``0.0``, which changes nothing);
- the workspace phrase comes last; its summand is computed here with FTS5's formula from
  the row's length, the index totals and the number of rows matching the phrase;
- the best rows are picked with a bound (the workspace summand is below ``idf·(k1+1)``),
  looking up only the rows needed, which are then filtered with the product's own
  predicates (active, this workspace, ``--repo``);
- equal scores keep rowid order: FTS5 sorts the matches (found in rowid order) with
  SQLite's sorter, which keeps the input order of equal keys, spilled runs included.

Before its first use in a process the fast path checks itself against the product's SQL
on a small scratch index (two workspaces, short texts with many equal scores), first as
built, then after rows were changed and the copy followed them; if any row or any bit of
any score differs (say, a SQLite build that fuses multiply-adds, or a future FTS5 with
another formula or tokenizer), only the product's SQL is used (``bm25_check``; the gate
and the call are ``keyword.fast_keyword``). Until the copy of a file exists (it is built
after the second search) keyword search runs the product's SQL.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from memorydesk.search.copies.bm25_terms import K1 as _K1
from memorydesk.search.copies.bm25_terms import IndexShape as _IndexShape
from memorydesk.search.copies.bm25_terms import Unsure as _Unsure
from memorydesk.search.fts import ROW_COLUMNS, KeywordRow, keyword_row
from memorydesk.search.scope import RepoScope

__all__: list[str] = []  # the fast path's parts; ``keyword.fast_keyword`` calls them

log = logging.getLogger("memorydesk.search")

_WS_CLAUSE = ") AND (workspace_id : "


def _workspace_phrase(match: str) -> str | None:
    """The quoted workspace phrase of the product's MATCH, or None when it has none."""
    at = match.rfind(_WS_CLAUSE)
    if at < 0 or not match.endswith(")"):
        return None
    return match[at + len(_WS_CLAUSE) : -1]


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
    if top < 16 * len(candidates) + 65_536:  # dense: one slot per rowid
        # bincount adds the weights in the order given, from 0.0: phrase by phrase, as FTS5 does
        score = np.bincount(candidates, weights=np.concatenate([parts for _, parts in lists]), minlength=top + 1)
        return candidates, score[candidates]
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
    active: np.ndarray | None = None,
) -> list[KeywordRow]:
    """The product's rows for one query, from its terms' postings.

    ``active`` (by rowid: an active fact of this workspace, from search's copies at this
    snapshot): the product's join is applied here and every candidate scored at once;
    without it (or with a ``--repo`` scope) the join is asked of SQLite, best rows first.
    """
    cand, partial = _within(shape.members, *_summed(postings))
    if active is not None and scope is None:
        cand, partial = _within(active, cand, partial)
        return _read_rows(raw, facts, _best_active(cand, partial, limit, shape))
    n = len(cand)
    if n == 0:
        return []
    bound = shape.idf * (_K1 + 1.0) * (1.0 + 1e-9) if shape.idf is not None else 0.0
    scope_sql, scope_params = scope.sql("f") if scope is not None else ("", ())
    kept_sql = (f"SELECT f.rowid FROM {facts} f "
                f"WHERE f.rowid IN (SELECT value FROM json_each(?)) AND f.workspace_id = ? "
                f"AND f.superseded_by IS NULL{scope_sql}")
    ranked: list[tuple[float, int]] = []
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
            ranked.extend(_scored(raw, fts, kept_sql, workspace_id, scope_params, rowids,
                                  partial[part[first[fresh]]], shape))
        ranked.sort(key=lambda item: (-item[0], item[1]))  # equal scores: FTS5's sorter keeps rowid order
        if floor is None:
            break
        if len(ranked) >= limit and floor + bound < ranked[limit - 1][0]:
            break  # nobody left can reach (or tie) the last place
        take = min(n, take * 4)
    return _read_rows(raw, facts, ranked[:limit])


def _within(flags: np.ndarray | None, cand: np.ndarray, partial: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The candidates whose rowid ``flags`` marks (None: all of them)."""
    if flags is None or not len(cand):
        return cand, partial
    inside = cand < len(flags)
    keep = np.zeros(len(cand), dtype=bool)
    keep[inside] = flags[cand[inside]]
    return cand[keep], partial[keep]


def _best_active(cand: np.ndarray, partial: np.ndarray, limit: int, shape: _IndexShape) -> list[tuple[float, int]]:
    """(full bm25 score (positive), rowid) of the ``limit`` best candidates, all of them kept by
    the product's join: every candidate scored at once, equal scores in rowid order."""
    if not len(cand):
        return []
    rowids, first = np.unique(cand, return_index=True)  # a row is there once per term, with the same sum
    parts = partial[first]
    if shape.idf is None:
        scores = parts
    else:
        doc_len, norm = shape.doc_len, shape.norm
        if doc_len is None or norm is None or int(rowids[-1]) >= len(doc_len) or bool((doc_len[rowids] < 0).any()):
            raise _Unsure("a row without a size")
        # the workspace phrase's summand as ``_scored`` computes it, element by element (the same bits)
        tf = 1.0
        scores = parts + shape.idf * ((tf * (_K1 + 1.0)) / (tf + norm[rowids]))
    if not bool(np.isfinite(scores).all()):
        raise _Unsure("a score that is not finite")
    if len(scores) > limit:
        kth = np.partition(scores, len(scores) - limit)[len(scores) - limit]  # the limit-th best
        at = np.flatnonzero(scores >= kth)
        rowids, scores = rowids[at], scores[at]
    order = np.lexsort((rowids, -scores))[:limit]  # best first; equal scores: FTS5's sorter keeps rowid order
    return list(zip(scores[order].tolist(), rowids[order].tolist()))


def _read_rows(raw: Any, facts: str, best: list[tuple[float, int]]) -> list[KeywordRow]:
    """The rows of ``best`` ((score, rowid), in order) as keyword results."""
    if not best:
        return []
    rows = {r[0]: r[1:] for r in raw.execute(
        f"SELECT f.rowid, {ROW_COLUMNS} FROM {facts} f WHERE f.rowid IN (SELECT value FROM json_each(?))",
        (json.dumps([rowid for _, rowid in best]),)).fetchall()}
    if len(rows) != len({rowid for _, rowid in best}):
        raise _Unsure("a row the copies hold is not in the file")
    return [keyword_row(rows[rowid], -score) for score, rowid in best]


def _scored(raw: Any, fts: str, kept_sql: str, workspace_id: str, scope_params: tuple[object, ...],
            rowids: np.ndarray, partial: np.ndarray, shape: _IndexShape) -> list[tuple[float, int]]:
    """(full bm25 score (positive), rowid) of the rows among ``rowids`` the product's join keeps.

    Only rowids are read here (a query may rank thousands of candidates); the rows' lengths
    come from the copy of the index, which holds this snapshot's. The ten rows returned are
    read once, at the end.
    """
    kept = [r[0] for r in raw.execute(kept_sql, (json.dumps(rowids.tolist()), workspace_id,
                                                  *scope_params)).fetchall()]
    if not kept:
        return []
    part_of = dict(zip(rowids.tolist(), partial.tolist()))
    parts = np.array([part_of[r] for r in kept], dtype=np.float64)
    if shape.idf is None:
        return list(zip(parts.tolist(), kept))
    at = np.array(kept, dtype=np.int64)
    if shape.norm is None or shape.doc_len is None or int(at.max()) >= len(shape.doc_len) \
            or bool((shape.doc_len[at] < 0).any()):
        raise _Unsure("a row without a size")
    length_term = shape.norm[at]
    # fts5Bm25Function, the workspace phrase's summand, in FTS5's order of operations (numpy's
    # float64 arithmetic element by element is the same IEEE arithmetic as FTS5's doubles)
    tf = 1.0
    scores = parts + shape.idf * ((tf * (_K1 + 1.0)) / (tf + length_term))
    return list(zip(scores.tolist(), kept))
