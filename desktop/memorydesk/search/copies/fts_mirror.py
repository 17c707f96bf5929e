"""An in-memory copy of the full-text index, kept in step with the file.

What bm25 needs from FTS5, for every row of the index:

- for every term, the rows whose topic or content hold it and how often (``tf``);
  a query's prefix term ``tok*`` adds up the terms starting with ``tok``, which lie
  side by side in the sorted term list;
- the row's length in tokens over all its columns, and whether it matches the
  workspace phrase of the product's MATCH;
- the row count and the tokens of the whole index.

Everything is read through FTS5's own interfaces, never from its storage: the copy is
built once from the index's instances (a temporary ``fts5vocab`` table, aggregated in
SQLite; a row's length is its number of instances), the workspace phrase's rows from a
MATCH. Later a changed row is read again from the fact table and tokenized by a scratch
FTS5 table on the connection with the same tokenizer (``Retokenizer``, its own
``fts5vocab`` again). Changed rows go into an overlay (their entries in the base arrays
are ignored), merged back by the next rebuild. That the copy holds FTS5's numbers is
checked through FTS5 itself: bm25 of one phrase, as FTS5 ranks it, must equal the
copy's to the bit (``search.copies.bm25_terms.agrees``).
"""

from __future__ import annotations

import bisect
import json
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["KeywordIndex", "Retokenizer", "RowTokens", "TermTable", "fts_options"]

_TEXT_COLUMNS = (0, 1)  # topic, content: the columns the product's query matches
_FTS_ARGS = re.compile(r"USING\s+fts5\s*\((.*)\)\s*;?\s*$", re.IGNORECASE | re.DOTALL)


def fts_options(create_sql: str | None) -> tuple[str, ...] | None:
    """The product's FTS5 arguments apart from ``content=``/``content_rowid=``, or None.

    None: options this copy does not reproduce (another column list, ``detail``,
    ``columnsize``, contentless tables, prefix indexes…); such an index is not copied.
    """
    if not create_sql:
        return None
    found = _FTS_ARGS.search(create_sql)
    if found is None or any(q in found.group(1) for q in "'\"`[("):
        return None
    args = [a.strip() for a in found.group(1).split(",")]
    kept = tuple(a for a in args if not re.match(r"content(_rowid)?\s*=", a, re.IGNORECASE))
    if kept != ("topic", "content", "workspace_id"):
        return None
    return kept


@dataclass
class RowTokens:
    """One row as the index holds it: topic/content term counts, its length (tokens in all
    columns), whether it matches the workspace phrase."""

    terms: dict[str, int]
    length: int
    member: bool


class TermTable:
    """Every term's rows and counts: sorted terms, one CSR block, and an overlay of changed rows."""

    def __init__(self, terms: list[str], offsets: np.ndarray, rows: np.ndarray, tf: np.ndarray) -> None:
        self.terms, self.offsets, self.rows, self.tf = terms, offsets, rows, tf
        self.dirty = np.zeros(0, dtype=bool)  # by rowid: base entries no longer current
        self.n_dirty = 0
        self.extra: dict[str, dict[int, int]] = {}  # term -> {rowid: tf} for dirty rows
        self.extra_of: dict[int, list[str]] = {}
        self._extra_sorted: list[str] | None = []
        self._text_bytes = sum(len(t) + 56 for t in terms)

    @classmethod
    def build(cls, raw: Any, fts: str, top: int,
              keep_going: Callable[[], bool] = lambda: True) -> tuple[TermTable, np.ndarray]:
        """From the index's instances (one pass, aggregated in SQLite): the table of topic and content
        terms, and every row's length (its instances in all columns), by rowid up to ``top``."""
        raw.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.memdesk_fts_instances "
                    f"USING fts5vocab(main, {fts}, instance)")
        row_type = np.int32 if top < 2**31 else np.int64
        lengths = np.zeros(top + 1, dtype=np.int64)
        terms: list[str] = []
        entries: list[int] = []  # (term, row) entries per term
        row_parts: list[np.ndarray] = []
        tf_parts: list[np.ndarray] = []
        pending: list[str] = []
        pending_counts: list[int] = []
        other: list[str] = []  # rows of instances in the workspace column (they count in a row's length)

        def parse(texts: list[str]) -> np.ndarray:
            docs = np.fromstring(",".join(texts), dtype=np.int64, sep=",")  # rowids as decimal text
            if len(docs) and (int(docs.min()) < 0 or int(docs.max()) > top):
                raise ValueError("an indexed row the fact table does not have")
            return docs

        def flush() -> None:
            """Turn the instances gathered so far into (row, tf) entries, a slice of terms at a time."""
            if other:
                lengths[:] += np.bincount(parse(other), minlength=top + 1)
                other.clear()
            if not pending:
                return
            docs = parse(pending)
            term_of = np.repeat(np.arange(len(pending_counts), dtype=np.int64), pending_counts)
            if len(docs) != len(term_of):
                raise ValueError("instances do not add up")
            lengths[:] += np.bincount(docs, minlength=top + 1)
            # instances of a term come in row order, so equal neighbours are one row
            new_term = np.r_[True, term_of[1:] != term_of[:-1]]
            if len(docs) > 1 and bool((docs[1:] < docs[:-1])[~new_term[1:]].any()):
                raise ValueError("instances out of order")
            starts = np.flatnonzero(new_term | np.r_[True, docs[1:] != docs[:-1]])
            row_parts.append(docs[starts].astype(row_type))  # small types at once: the parts add up to the copy
            tf_parts.append(np.diff(np.r_[starts, len(docs)]).astype(np.uint32))
            entries.extend(np.bincount(term_of[starts], minlength=len(pending_counts)).tolist())
            pending.clear()
            pending_counts.clear()

        text = "col != 'workspace_id'"
        cursor = raw.execute(f"SELECT term, sum({text}), group_concat(CASE WHEN {text} THEN doc END), "
                             f"group_concat(CASE WHEN NOT {text} THEN doc END) "
                             "FROM temp.memdesk_fts_instances GROUP BY term")
        gathered = 0
        for i, (term, count, docs, in_other) in enumerate(cursor):
            if i % 4096 == 0 and not keep_going():
                raise InterruptedError
            if in_other:
                other.append(in_other)
            if count:
                terms.append(term)
                pending.append(docs)
                pending_counts.append(count)
                gathered += count
            if gathered >= 100_000 or len(other) >= 4096:  # small slices: each parse holds the GIL briefly
                flush()
                gathered = 0
        flush()
        if terms != sorted(terms):
            raise ValueError("terms out of order")
        rows = np.concatenate(row_parts) if row_parts else np.zeros(0, dtype=row_type)
        row_parts.clear()
        tf = np.concatenate(tf_parts) if tf_parts else np.zeros(0, dtype=np.uint32)
        tf_parts.clear()
        offsets = np.zeros(len(terms) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum(entries)
        small_tf = tf.astype(np.uint16) if len(tf) == 0 or int(tf.max()) < 2**16 else tf
        return cls(terms, offsets, rows, small_tf), lengths

    @property
    def nbytes(self) -> int:
        extra = len(self.extra_of) * 400
        return int(self.rows.nbytes + self.tf.nbytes + self.offsets.nbytes + self.dirty.nbytes + self._text_bytes
                   + extra)

    @property
    def overlay_rows(self) -> int:
        return self.n_dirty

    def entries(self, term: str) -> int:
        """About how many rows hold a term starting with ``term`` (the base arrays' count, no overlay)."""
        upper = term[:-1] + chr(ord(term[-1]) + 1)
        lo, hi = bisect.bisect_left(self.terms, term), bisect.bisect_left(self.terms, upper)
        return int(self.offsets[hi] - self.offsets[lo])

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """Rows holding a term that starts with ``term`` (sorted), and their summed counts."""
        upper = term[:-1] + chr(ord(term[-1]) + 1)
        lo, hi = bisect.bisect_left(self.terms, term), bisect.bisect_left(self.terms, upper)
        a, b = int(self.offsets[lo]), int(self.offsets[hi])
        rows, tf = self.rows[a:b], self.tf[a:b]
        if self.n_dirty and len(rows):
            inside = rows < len(self.dirty)
            keep = np.ones(len(rows), dtype=bool)
            keep[inside] = ~self.dirty[rows[inside]]
            rows, tf = rows[keep], tf[keep]
        extra_rows: list[int] = []
        extra_tf: list[int] = []
        if self.extra:
            names = self._extra_names()
            for name in names[bisect.bisect_left(names, term) : bisect.bisect_left(names, upper)]:
                found = self.extra[name]
                extra_rows.extend(found)
                extra_tf.extend(found.values())
        if hi - lo <= 1 and not extra_rows:
            return rows.astype(np.int64), tf.astype(np.float64)
        all_rows = np.concatenate([rows.astype(np.int64), np.asarray(extra_rows, dtype=np.int64)])
        all_tf = np.concatenate([tf.astype(np.float64), np.asarray(extra_tf, dtype=np.float64)])
        if not len(all_rows):
            return all_rows, all_tf
        top = int(all_rows.max()) + 1
        if len(all_rows) * 16 >= top:  # dense enough: add up by rowid in one pass
            summed = np.bincount(all_rows, weights=all_tf, minlength=top)
            held = np.bincount(all_rows, minlength=top) > 0
            unique = np.flatnonzero(held)
            return unique, summed[unique]
        unique, where = np.unique(all_rows, return_inverse=True)
        return unique, np.bincount(where, weights=all_tf, minlength=len(unique))

    def _extra_names(self) -> list[str]:
        if self._extra_sorted is None:
            self._extra_sorted = sorted(self.extra)
        return self._extra_sorted

    def replace(self, rowid: int, terms: dict[str, int] | None) -> None:
        """Row ``rowid`` now holds ``terms`` (topic/content counts), or is gone (None)."""
        if rowid >= len(self.dirty):
            grown = np.zeros(max(rowid + 1, 2 * len(self.dirty), 1024), dtype=bool)
            grown[: len(self.dirty)] = self.dirty
            self.dirty = grown
        if not self.dirty[rowid]:
            self.dirty[rowid] = True
            self.n_dirty += 1
        for name in self.extra_of.pop(rowid, []):
            bucket = self.extra.get(name)
            if bucket is not None:
                bucket.pop(rowid, None)
                if not bucket:
                    del self.extra[name]
                    self._extra_sorted = None
        if terms:
            for name, count in terms.items():
                if name not in self.extra:
                    self.extra[name] = {}
                    self._extra_sorted = None
                self.extra[name][rowid] = count
            self.extra_of[rowid] = list(terms)


class Retokenizer:
    """A scratch FTS5 table on one connection, with the product's tokenizer, to read rows as FTS5 does."""

    TABLE = "memdesk_retoken"

    def __init__(self, options: tuple[str, ...]) -> None:
        self.options = options
        self._lock = threading.Lock()

    def _prepare(self, raw: Any) -> None:
        t = self.TABLE
        raw.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{t} USING fts5({', '.join(self.options)}, content='')")
        raw.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{t}_instances USING fts5vocab(temp, {t}, instance)")
        raw.execute(f"INSERT INTO temp.{t}({t}) VALUES ('delete-all')")

    def _fill(self, raw: Any, texts: Iterable[tuple[int, Any, Any, Any]]) -> None:
        """One statement, so FTS5 writes one segment."""
        payload = json.dumps([list(row) for row in texts], ensure_ascii=False)
        raw.execute(f"INSERT INTO temp.{self.TABLE}(rowid, topic, content, workspace_id) "
                    "SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)", (payload,))

    def rows(self, raw: Any, texts: Iterable[tuple[int, str | None, str | None, str | None]],
             phrase: str | None) -> dict[int, RowTokens]:
        """``(rowid, topic, content, workspace_id)`` as the index holds them."""
        t = self.TABLE
        texts = list(texts)
        with self._lock:
            self._prepare(raw)
            try:
                self._fill(raw, texts)
                out = {int(row[0]): RowTokens({}, 0, False) for row in texts}  # no token at all: length 0
                for doc, length in raw.execute(f"SELECT doc, count(*) FROM temp.{t}_instances GROUP BY doc"):
                    out[doc].length = length
                for term, doc, count in raw.execute(
                        f"SELECT term, doc, count(*) FROM temp.{t}_instances "
                        f"WHERE col IN ('topic', 'content') GROUP BY term, doc"):
                    out[doc].terms[term] = count
                if phrase is not None:
                    for (rowid,) in raw.execute(f"SELECT rowid FROM temp.{t} WHERE {t} MATCH ?",
                                                (f"workspace_id : {phrase}",)):
                        out[rowid].member = True
                return out
            finally:
                raw.execute(f"INSERT INTO temp.{t}({t}) VALUES ('delete-all')")


class KeywordIndex:
    """The copy of the index bm25 reads: terms, row lengths, workspace phrase members, totals."""

    def __init__(self, table: TermTable, doc_len: np.ndarray, members: np.ndarray, phrase: str | None) -> None:
        self.table, self.doc_len, self.members, self.phrase = table, doc_len, members, phrase
        live = doc_len >= 0
        self.n_row = int(live.sum())  # rows in the index
        self.tokens = int(doc_len[live].sum())  # tokens in the index, all columns
        self.epoch = 0  # bumped by every change, for values derived from the copy
        self.derived: dict[str, tuple[int, Any]] = {}  # name -> (epoch, value) of values worked out from the copy

    @classmethod
    def of_rows(cls, table: TermTable, lengths: np.ndarray, rowids: np.ndarray, members: Callable[[int], np.ndarray],
                phrase: str | None) -> KeywordIndex:
        """The copy for the fact table's ``rowids`` (each a row of the index, of its number of instances,
        ``lengths`` by rowid); ``members(size)`` gives the workspace phrase's rows. ValueError when the
        index has instances of a row the table does not have."""
        size = max(len(lengths), int(rowids.max()) + 1 if len(rowids) else 0)
        doc_len = np.full(size, -1, dtype=np.int64)
        doc_len[rowids] = lengths[rowids] if len(rowids) else 0
        if int(doc_len[: len(lengths)].clip(0).sum()) != int(lengths.sum()):
            raise ValueError("the index holds rows the fact table does not have")
        return cls(table, doc_len, members(size), phrase)

    @property
    def n_hit(self) -> int:
        return int(self.members.sum())

    @property
    def nbytes(self) -> int:
        return int(self.table.nbytes + self.doc_len.nbytes + self.members.nbytes)

    def apply(self, changed: dict[int, RowTokens | None]) -> None:
        """Rows that changed (None: gone)."""
        for rowid, row in changed.items():
            self.table.replace(rowid, row.terms if row is not None else None)
            if rowid >= len(self.doc_len):
                size = max(rowid + 1, int(len(self.doc_len) * 1.25) + 1024)
                grown = np.full(size, -1, dtype=np.int64)
                grown[: len(self.doc_len)] = self.doc_len
                self.doc_len = grown
                members = np.zeros(size, dtype=bool)
                members[: len(self.members)] = self.members
                self.members = members
            old = int(self.doc_len[rowid])
            if old >= 0:
                self.n_row -= 1
                self.tokens -= old
            if row is not None:
                self.n_row += 1
                self.tokens += row.length
            self.doc_len[rowid] = row.length if row is not None else -1
            self.members[rowid] = row.member if row is not None else False
        self.epoch += 1
