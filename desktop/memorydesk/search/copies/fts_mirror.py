"""An in-memory copy of the full-text index, kept in step with the file.

What bm25 needs from FTS5, for every row of the index:

- for every term, the rows whose topic or content hold it and how often (``tf``);
  a query's prefix term ``tok*`` adds up the terms starting with ``tok``, which lie
  side by side in the sorted term list;
- the row's length in tokens per column (``%_docsize``), and whether it matches the
  workspace phrase of the product's MATCH;
- the row count and tokens per column of the whole index (the averages record).

The copy is built once from the index's own instances (a temporary ``fts5vocab`` table,
aggregated in SQLite), so its numbers are FTS5's. Later a changed row is read again
from the file and tokenized by a scratch FTS5 table on the connection with the same
tokenizer (``Retokenizer``); its per-column lengths must equal what the real index holds
for the row (``%_docsize``), otherwise the change is not followed. Changed rows go into
an overlay (their entries in the base arrays are ignored), merged back by the next
rebuild.
"""

from __future__ import annotations

import bisect
import json
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["DocSizes", "KeywordIndex", "Retokenizer", "RowTokens", "TermTable", "fts_options", "varints"]

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


def varints(blob: bytes) -> list[int]:
    """SQLite varints, as FTS5 stores its sizes (ValueError: a truncated one)."""
    out, i, n = [], 0, len(blob)
    while i < n:
        value = 0
        for k in range(9):
            if i >= n:
                raise ValueError("truncated varint")
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


@dataclass
class RowTokens:
    """One row as the index holds it: topic/content term counts, column lengths, phrase match."""

    terms: dict[str, int]
    sizes: tuple[int, ...]
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
    def build(cls, raw: Any, fts: str, keep_going: Callable[[], bool] = lambda: True) -> TermTable:
        """From the index's instances in topic and content (one pass, aggregated in SQLite)."""
        raw.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.memdesk_fts_instances "
                    f"USING fts5vocab(main, {fts}, instance)")
        top = raw.execute(f"SELECT max(id) FROM {fts}_docsize").fetchone()[0] or 0
        row_type = np.int32 if top < 2**31 else np.int64
        terms: list[str] = []
        entries: list[int] = []  # (term, row) entries per term
        row_parts: list[np.ndarray] = []
        tf_parts: list[np.ndarray] = []
        pending: list[str] = []
        pending_counts: list[int] = []

        def flush() -> None:
            """Turn the instances gathered so far into (row, tf) entries, a slice of terms at a time."""
            if not pending:
                return
            docs = np.fromstring(",".join(pending), dtype=np.int64, sep=",")  # rowids as decimal text
            term_of = np.repeat(np.arange(len(pending_counts), dtype=np.int64), pending_counts)
            if len(docs) != len(term_of):
                raise ValueError("instances do not add up")
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

        cursor = raw.execute("SELECT term, count(*), group_concat(doc) "
                             "FROM temp.memdesk_fts_instances WHERE col IN ('topic', 'content') GROUP BY term")
        gathered = 0
        for i, (term, count, hexdocs) in enumerate(cursor):
            if i % 4096 == 0 and not keep_going():
                raise InterruptedError
            terms.append(term)
            pending.append(hexdocs)
            pending_counts.append(count)
            gathered += count
            if gathered >= 100_000:  # small slices: each parse holds the GIL only briefly, and little memory
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
        return cls(terms, offsets, rows, small_tf)

    @property
    def nbytes(self) -> int:
        extra = len(self.extra_of) * 400
        return int(self.rows.nbytes + self.tf.nbytes + self.offsets.nbytes + self.dirty.nbytes + self._text_bytes
                   + extra)

    @property
    def overlay_rows(self) -> int:
        return self.n_dirty

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


@dataclass
class DocSizes:
    """Every row's length per column (``%_docsize``), by rowid; -1: no such row."""

    sizes: np.ndarray  # (capacity, n_col) int32
    totals: list[int] = field(default_factory=list)
    count: int = 0

    @classmethod
    def build(cls, raw: Any, fts: str, n_col: int) -> DocSizes:
        ids_hex, lens_hex, sizes_hex = raw.execute(
            f"SELECT group_concat(printf('%016x', id), ''), group_concat(printf('%04x', length(sz)), ''), "
            f"group_concat(hex(sz), '') FROM {fts}_docsize").fetchone()
        ids = np.frombuffer(bytes.fromhex(ids_hex or ""), dtype=">u8").astype(np.int64)
        lens = np.frombuffer(bytes.fromhex(lens_hex or ""), dtype=">u2").astype(np.int64)
        blob = np.frombuffer(bytes.fromhex(sizes_hex or ""), dtype=np.uint8)
        if len(ids) != len(lens) or int(lens.sum()) != len(blob) or (len(ids) and int(ids.min()) < 0):
            raise ValueError("docsize records that do not add up")
        top = int(ids.max()) if len(ids) else 0
        if top > 64 * len(ids) + 1_000_000:
            raise ValueError("rowids too sparse for a table by rowid")
        sizes = np.full((top + 1, n_col), -1, dtype=np.int32)
        ends = np.cumsum(lens)
        begins = ends - lens
        plain = lens == n_col
        if plain.any():  # one byte per column (every count below 128): the bytes are the counts
            at = np.flatnonzero(plain)
            packed = blob[begins[at][:, None] + np.arange(n_col)]
            small = (packed < 0x80).all(axis=1)
            sizes[ids[at[small]]] = packed[small]
            plain[at[~small]] = False
        for i in np.flatnonzero(~plain).tolist():
            values = varints(blob[begins[i] : ends[i]].tobytes())
            if len(values) != n_col:
                raise ValueError("a docsize record of another shape")
            sizes[ids[i]] = values
        present = sizes[:, 0] >= 0
        totals = [int(x) for x in sizes[present].sum(axis=0, dtype=np.int64)]
        return cls(sizes, totals, int(present.sum()))

    def lengths(self) -> np.ndarray:
        """Tokens per row over all columns (what bm25 divides by); -1 for no row."""
        out = self.sizes.sum(axis=1, dtype=np.int64)
        out[self.sizes[:, 0] < 0] = -1
        return out

    def set(self, rowid: int, sizes: Sequence[int] | None) -> None:
        if rowid >= len(self.sizes):
            grown = np.full((max(rowid + 1, int(len(self.sizes) * 1.25) + 1024), self.sizes.shape[1]), -1,
                            dtype=np.int32)
            grown[: len(self.sizes)] = self.sizes
            self.sizes = grown
        old = self.sizes[rowid]
        if old[0] >= 0:
            self.totals = [t - int(v) for t, v in zip(self.totals, old)]
            self.count -= 1
        if sizes is None:
            self.sizes[rowid] = -1
        else:
            self.sizes[rowid] = sizes
            self.totals = [t + int(v) for t, v in zip(self.totals, sizes)]
            self.count += 1


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
        with self._lock:
            self._prepare(raw)
            try:
                self._fill(raw, texts)
                out: dict[int, RowTokens] = {}
                for rowid, blob in raw.execute(f"SELECT id, sz FROM temp.{t}_docsize"):
                    out[int(rowid)] = RowTokens({}, tuple(varints(bytes(blob))), False)
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

    def first_tokens(self, raw: Any, values: list[str]) -> dict[int, str]:
        """The first token of each text in its ``workspace_id`` column, by 1-based position."""
        t = self.TABLE
        with self._lock:
            self._prepare(raw)
            try:
                self._fill(raw, [(i, None, None, v) for i, v in enumerate(values, 1)])
                return {doc: term for term, doc in raw.execute(
                    f"SELECT term, doc FROM temp.{t}_instances WHERE col = 'workspace_id' AND offset = 0")}
            finally:
                raw.execute(f"INSERT INTO temp.{t}({t}) VALUES ('delete-all')")


class KeywordIndex:
    """The copy of the index bm25 reads: terms, row lengths, workspace phrase members, totals."""

    def __init__(self, table: TermTable, docs: DocSizes, members: np.ndarray, phrase: str | None,
                 n_row: int, totals: tuple[int, ...]) -> None:
        self.table, self.docs, self.members, self.phrase = table, docs, members, phrase
        self.n_row, self.totals = n_row, totals
        self.doc_len = docs.lengths()
        self.epoch = 0  # bumped by every change, for values derived from the copy
        self.derived: dict[str, tuple[int, Any]] = {}  # name -> (epoch, value) of values worked out from the copy

    @property
    def n_hit(self) -> int:
        return int(self.members.sum())

    @property
    def nbytes(self) -> int:
        return int(self.table.nbytes + self.docs.sizes.nbytes + self.doc_len.nbytes + self.members.nbytes)

    def consistent(self, n_row: int, totals: tuple[int, ...]) -> bool:
        """Whether the copy's rows and tokens add up to the index's own totals."""
        return self.docs.count == n_row and tuple(self.docs.totals) == tuple(totals)

    def apply(self, changed: dict[int, RowTokens | None], n_row: int, totals: tuple[int, ...]) -> None:
        """Rows that changed (None: gone), then the index's new totals."""
        for rowid, row in changed.items():
            self.table.replace(rowid, row.terms if row is not None else None)
            self.docs.set(rowid, row.sizes if row is not None else None)
            if rowid >= len(self.doc_len):
                grown = np.full(len(self.docs.sizes), -1, dtype=np.int64)
                grown[: len(self.doc_len)] = self.doc_len
                self.doc_len = grown
                members = np.zeros(len(self.docs.sizes), dtype=bool)
                members[: len(self.members)] = self.members
                self.members = members
            self.doc_len[rowid] = sum(row.sizes) if row is not None else -1
            self.members[rowid] = row.member if row is not None else False
        self.n_row, self.totals = n_row, totals
        self.epoch += 1
