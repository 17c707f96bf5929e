"""FTS5's bm25, term by term, from the copy of the index; and the check that it is FTS5's own.

FTS5's bm25 is ``-Σ idf_p · tf_p·(k1+1) / (tf_p + k1·(1 - b + b·D/avgdl))`` over the
query's phrases in order (``fts5_aux.c``); each summand depends only on its own phrase
and the row. ``term_parts`` gives the summand of the phrase ``term*`` for every row
holding it, in FTS5's order of operations; ``shape_of`` what every summand shares (the
row count, the average length, the workspace phrase's idf).

``agrees`` asks FTS5 itself: a one-phrase query's ``rank`` is minus that summand, so the
rows it ranks and their ranks, bit for bit, must be the copy's. That holds the copy's
row count, its tokens, the term's rows and their lengths to the index's, through the
index's own query (``search.copies.bundle`` asks after a build and after every change
it follows).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from memorydesk.core.product.fts_query import FACT_TEXT_COLUMNS
from memorydesk.search.copies.fts_mirror import KeywordIndex

__all__ = ["B", "K1", "IndexShape", "Unsure", "agrees", "ranked_postings", "shape_of", "term_parts"]

#: FTS5's bm25 constants (``fts5_aux.c``).
K1 = 1.2
B = 0.75
_TEXT_COLSET = "{" + " ".join(FACT_TEXT_COLUMNS) + "}"


class Unsure(Exception):
    """The copy cannot vouch for this answer; the product's SQL gives it."""


@dataclass(frozen=True)
class IndexShape:
    """What the workspace phrase adds to bm25, for one snapshot of the index."""

    n_row: int
    avgdl: float
    idf: float | None  # None: the product's MATCH has no workspace phrase
    members: np.ndarray | None  # by rowid: rows matching the workspace phrase (None: every row)
    doc_len: np.ndarray | None = None  # by rowid: the row's token count, all columns (-1: no row)
    norm: np.ndarray | None = None  # by rowid: k1·(1 - b + b·D/avgdl), the length term of bm25's denominator


def shape_of(index: KeywordIndex) -> IndexShape | None:
    """What the workspace phrase adds to bm25, from the copy of the index (worked out once per change)."""
    if index.n_row <= 0:
        return None
    known = index.derived.get("shape")
    if known is not None and known[0] == index.epoch:
        return known[1]  # type: ignore[no-any-return]
    avgdl = float(index.tokens) / float(index.n_row)
    # bm25's length term per row, in FTS5's order of operations (the same bits as computed row by row)
    norm = K1 * (1 - B + B * index.doc_len.astype(np.float64) / avgdl)
    if index.phrase is None:
        shape = IndexShape(index.n_row, avgdl, None, None, index.doc_len, norm)
    else:
        n_hit = index.n_hit
        idf = math.log((index.n_row - n_hit + 0.5) / (n_hit + 0.5))
        if idf <= 0.0:
            idf = 1e-6
        members = None if n_hit == index.n_row else index.members
        shape = IndexShape(index.n_row, avgdl, idf, members, index.doc_len, norm)
    index.derived["shape"] = (index.epoch, shape)
    return shape


def term_parts(rows: np.ndarray, tf: np.ndarray, shape: IndexShape) -> tuple[np.ndarray, np.ndarray]:
    """What the phrase ``term*`` adds to the bm25 of ``rows`` (which hold it ``tf`` times)."""
    if not len(rows):
        return rows, np.zeros(0, dtype=np.float64)
    doc_len = shape.doc_len
    assert doc_len is not None
    if int(rows[-1]) >= len(doc_len) or bool((doc_len[rows] < 0).any()):
        raise Unsure("a row without a size")
    n_hit = len(rows)
    idf = math.log((shape.n_row - n_hit + 0.5) / (n_hit + 0.5))
    if idf <= 0.0:
        idf = 1e-6
    tf = np.asarray(tf, dtype=np.float64)
    if shape.norm is not None:
        norm = shape.norm[rows]
    else:
        norm = K1 * (1 - B + B * doc_len[rows].astype(np.float64) / shape.avgdl)
    # fts5Bm25Function's summand, in its order of operations
    return rows, idf * ((tf * (K1 + 1.0)) / (tf + norm))


def ranked_postings(raw: Any, fts: str, term: str) -> tuple[np.ndarray, np.ndarray]:
    """FTS5's own summand for ``term*`` per row: ``-rank`` of a one-phrase query."""
    quoted = '"' + term.replace('"', '""') + '"'
    rows = raw.execute(f"SELECT rowid, rank FROM {fts} WHERE {fts} MATCH ?",
                       (f"{_TEXT_COLSET} : ({quoted}*)",)).fetchall()
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    arr = np.array(rows, dtype=np.float64)
    return arr[:, 0].astype(np.int64), -arr[:, 1]  # rank = -1.0 * (0.0 + summand): the summand exactly


def agrees(raw: Any, fts: str, index: KeywordIndex, terms: list[str]) -> bool:
    """Whether FTS5 ranks the phrase ``term*`` of each of ``terms`` exactly as the copy does: the same
    rows, every summand the same to the bit."""
    shape = shape_of(index)
    for term in terms:
        truth = ranked_postings(raw, fts, term)
        if shape is None:
            if len(truth[0]):
                return False
            continue
        try:
            ours = term_parts(*index.table.postings(term), shape)
        except Unsure:
            return False
        if not (np.array_equal(ours[0], truth[0]) and ours[1].tobytes() == truth[1].tobytes()):
            return False
    return True
