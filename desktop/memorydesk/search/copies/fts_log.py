"""Which facts changed since a file version, read from the full-text index itself.

Every change to a fact (insert, any update, delete) fires the product's triggers, and
FTS5 writes what the trigger gave it into a new *segment* of the index (one per
statement; docs/product-format.md, "The full-text index"). Segments are later merged into bigger ones, but their
leaf pages are never rewritten in place (the ``secure-delete`` option would; a file
with it set is not followed). So the index itself is a log of what moved:

- the *structure record* (``%_data`` id 10) lists every segment with its first and
  last leaf page; a segment we have not seen, or pages appended to one we have seen
  (an incremental merge writes on), hold everything written since;
- in those pages, the doclist of a *hook term* — a token that every row carries in its
  ``workspace_id`` column — names every row the new data is about: an inserted or
  updated row has an entry there (an update deletes and re-adds all of a row's
  tokens, so even a change of ``superseded_by`` alone shows), a deleted row a delete
  marker. Merged pages also name rows that did not change; the caller compares those
  with what it knows (``search.copies.follow``).

The only thing that can vanish from this log is the delete marker of a row whose
deletion was merged into the oldest segment before we looked; the row count in the
averages record (id 1) then disagrees with ours and the caller rebuilds.

Only the formats this module knows are read (the legacy structure record, leaves with
``detail=full``); anything else raises :class:`Unfollowable`. Leaf format, from
FTS5's own description (``fts5_index.c``): a 4-byte header (offset of the first rowid
if the page continues a doclist, offset of the page footer), then terms and doclists
(the first term on a page in full, later ones prefix-compressed), each doclist a first
rowid, then deltas, each entry followed by a poslist whose size varint carries the
delete flag in its low bit; the footer lists the term offsets. A poslist may run on
into the next pages; the first rowid on a page is written in full.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Segment", "Structure", "Unfollowable", "averages", "changed_parts", "read_structure",
           "touched_rows"]

_STRUCTURE_ID = 10
_AVERAGES_ID = 1
_V2_MARK = b"\xff\x00\x00\x01"
_PAGE_BITS = 37  # FTS5_DATA_PAGE_B + FTS5_DATA_HEIGHT_B + FTS5_DATA_DLI_B: a leaf's id is segid << 37 | pgno


class Unfollowable(Exception):
    """The index cannot be read as a log here; the caller rebuilds what it keeps."""


@dataclass(frozen=True, slots=True)
class Segment:
    segid: int
    level: int
    first: int
    last: int
    tail: bytes  # digest of the leaf at ``last``: tells a segment from a later one with its id


@dataclass(frozen=True, slots=True)
class Structure:
    cookie: int
    write_counter: int
    segments: tuple[Segment, ...]

    @property
    def pages(self) -> int:
        return sum(s.last - s.first + 1 for s in self.segments)


def _varint(b: bytes | memoryview, i: int) -> tuple[int, int]:
    """One SQLite varint at ``i``: (value, next offset)."""
    value = 0
    for k in range(9):
        byte = b[i]
        i += 1
        if k == 8:
            return (value << 8) | byte, i
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, i
    raise Unfollowable("bad varint")  # pragma: no cover - the loop always returns


def _digest(block: bytes) -> bytes:
    return hashlib.blake2b(block, digest_size=16).digest()


def read_structure(raw: Any, fts: str) -> Structure:
    """The index's segments now (the connection's snapshot)."""
    row = raw.execute(f"SELECT block FROM {fts}_data WHERE id = {_STRUCTURE_ID}").fetchone()
    if row is None or row[0] is None:
        raise Unfollowable("no structure record")
    b = bytes(row[0])
    if len(b) < 5 or b[4:8] == _V2_MARK:
        raise Unfollowable("a structure record format this reader does not know")
    try:
        i = 4
        n_level, i = _varint(b, i)
        n_segment, i = _varint(b, i)
        counter, i = _varint(b, i)
        raw_segments: list[tuple[int, int, int, int]] = []
        for level in range(n_level):
            _merging, i = _varint(b, i)
            n, i = _varint(b, i)
            for _ in range(n):
                segid, i = _varint(b, i)
                first, i = _varint(b, i)
                last, i = _varint(b, i)
                raw_segments.append((segid, level, first, last))
    except IndexError as exc:
        raise Unfollowable("truncated structure record") from exc
    if len(raw_segments) != n_segment or i != len(b):
        raise Unfollowable("structure record does not add up")
    tails = _blocks(raw, fts, [(s[0] << _PAGE_BITS) + s[3] for s in raw_segments if s[3] > 0])
    segments = []
    for segid, level, first, last in raw_segments:
        if last <= 0:
            continue
        block = tails.get((segid << _PAGE_BITS) + last)
        if block is None:
            raise Unfollowable("a segment without its last page")
        segments.append(Segment(segid, level, first, last, _digest(block)))
    return Structure(int.from_bytes(b[:4], "big"), counter, tuple(segments))


def averages(raw: Any, fts: str) -> tuple[int, tuple[int, ...]]:
    """Rows in the index and tokens per column (the averages record)."""
    row = raw.execute(f"SELECT block FROM {fts}_data WHERE id = {_AVERAGES_ID}").fetchone()
    if row is None or row[0] is None:
        raise Unfollowable("no averages record")
    b, out, i = bytes(row[0]), [], 0
    while i < len(b):
        value, i = _varint(b, i)
        out.append(value)
    if not out:
        raise Unfollowable("empty averages record")
    return out[0], tuple(out[1:])


def _blocks(raw: Any, fts: str, ids: Sequence[int]) -> dict[int, bytes]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return {int(r[0]): bytes(r[1]) for r in raw.execute(f"SELECT id, block FROM {fts}_data WHERE id IN ({marks})",
                                                         tuple(ids))}


def changed_parts(raw: Any, fts: str, before: Structure, after: Structure) -> list[tuple[int, int, int]]:
    """``(segid, first page, last page)`` of everything written between two structures."""
    known = {s.segid: s for s in before.segments}
    parts: list[tuple[int, int, int]] = []
    grown: list[tuple[Segment, Segment]] = []
    for seg in after.segments:
        old = known.get(seg.segid)
        if old is not None and seg.last == old.last and seg.tail == old.tail and seg.first >= old.first:
            continue  # the same segment (perhaps trimmed at the front by a merge that read it)
        if old is not None and seg.last > old.last and old.first <= seg.first <= old.last:
            grown.append((old, seg))
        else:
            parts.append((seg.segid, seg.first, seg.last))
    if grown:  # an incremental merge wrote on: its earlier pages must be the ones we saw
        ids = [(old.segid << _PAGE_BITS) + old.last for old, _ in grown]
        blocks = _blocks(raw, fts, ids)
        for (old, seg), rowid in zip(grown, ids):
            block = blocks.get(rowid)
            if block is not None and _digest(block) == old.tail:
                parts.append((seg.segid, old.last + 1, seg.last))
            else:
                parts.append((seg.segid, seg.first, seg.last))
    return parts


def touched_rows(raw: Any, fts: str, parts: Iterable[tuple[int, int, int]], hooks: frozenset[bytes],
                 max_pages: int) -> np.ndarray:
    """Rowids in the hook terms' doclists of ``parts`` (sorted, unique).

    Only the pages that can hold a hook term are read: the segment's b-tree (``%_idx``)
    names, for every leaf that holds a term, a prefix of its first term, so the leaf where
    a hook term would start is the last one whose key is not greater than the term.
    Raises :class:`Unfollowable` past ``max_pages`` new pages (cheaper to rebuild).
    """
    parts = list(parts)
    if sum(last - first + 1 for _, first, last in parts) > max_pages:
        raise Unfollowable("too much was written to follow it")
    found: list[int] = []
    for segid, first, last in parts:
        for hook in sorted(hooks):
            row = raw.execute(f"SELECT pgno FROM {fts}_idx WHERE segid = ? AND term <= ? AND pgno >= ? AND pgno <= ? "
                              f"ORDER BY term DESC LIMIT 1", (segid, hook, 2 * first, 2 * last + 1)).fetchone()
            start = max(first, int(row[0]) >> 1) if row is not None else first
            _scan_from(raw, fts, segid, first, start, last, hook, found)
    return np.unique(np.asarray(found, dtype=np.int64))


def _scan_from(raw: Any, fts: str, segid: int, first: int, start: int, last: int, hook: bytes,
               found: list[int]) -> None:
    """Read leaves from ``start`` until the hook term's doclist is behind."""
    batch = 4
    page = start
    state = _ScanState(skip_lead=start > first)
    while page <= last and not state.done:
        stop = min(last, page + batch - 1)
        rows = raw.execute(f"SELECT id, block FROM {fts}_data WHERE id BETWEEN ? AND ? ORDER BY id",
                           ((segid << _PAGE_BITS) + page, (segid << _PAGE_BITS) + stop)).fetchall()
        if len(rows) != stop - page + 1:
            raise Unfollowable("a segment with missing pages")
        for r in rows:
            scan_page(bytes(r[1]), frozenset((hook,)), found, state, until=hook)
            if state.done:
                break
        page = stop + 1
        batch = min(batch * 2, 64)


class _ScanState:
    """Where a scan of consecutive leaves stands between two pages."""

    __slots__ = ("carry", "done", "skip_lead", "term", "wanted")

    def __init__(self, skip_lead: bool = False) -> None:
        self.term = b""
        self.wanted = False
        self.carry: int | None = None  # poslist bytes to skip at the start of the next page; None: none open
        self.done = False
        self.skip_lead = skip_lead  # the first page may open with an earlier term's doclist: skip to its term


def scan_pages(pages: Sequence[bytes], hooks: frozenset[bytes], out: list[int]) -> None:
    """Append to ``out`` the rowid of every doclist entry of a hook term in ``pages``.

    ``pages`` are consecutive leaves of one segment, the first starting with a term.
    Terms are compared as stored, with FTS5's index prefix byte (``0`` for the main index).
    """
    state = _ScanState()
    for page in pages:
        scan_page(page, hooks, out, state)


def scan_page(page: bytes, hooks: frozenset[bytes], out: list[int], state: _ScanState,
              until: bytes | None = None) -> None:
    """One leaf of ``scan_pages``; with ``until``, stop (``state.done``) once past that term."""
    n = len(page)
    if n < 4:
        raise Unfollowable("short leaf page")
    first_rowid = (page[0] << 8) | page[1]
    footer = (page[2] << 8) | page[3]
    if footer > n or footer < 4:
        raise Unfollowable("bad leaf header")
    starts: list[int] = []
    i, at = footer, 0
    while i < n:
        byte = page[i]
        if byte < 0x80:
            i += 1
            at += byte
        else:
            delta, i = _varint(page, i)
            at += delta
        starts.append(at)
    carry = state.carry
    if carry is None and state.skip_lead:
        if not starts:
            raise Unfollowable("an indexed leaf without a term")
        state.skip_lead = False
        first_rowid = 0  # the doclist it continues belongs to a term before the one looked for
    elif carry is None:
        if first_rowid or not starts or starts[0] != 4:
            raise Unfollowable("a part that does not start with a term")
    elif not first_rowid and not starts:
        if carry < footer - 4:
            raise Unfollowable("a page that ends a poslist early")
        state.carry = carry - (footer - 4)  # the whole page continues one poslist
        return
    elif 4 + carry != (first_rowid or starts[0]):
        raise Unfollowable("a poslist does not end where the page says")
    if first_rowid:
        state.carry = _doclist(page, first_rowid, starts[0] if starts else footer, footer, state.wanted, out)
    term = state.term
    for k, start in enumerate(starts):
        i = start
        if k == 0:
            size, i = _varint(page, i)
            term = page[i : i + size]
        else:
            keep, i = _varint(page, i)
            size, i = _varint(page, i)
            term = term[:keep] + page[i : i + size]
        i += size
        if until is not None and term > until:
            state.done = True
            return
        state.wanted = term in hooks
        state.term = term
        state.carry = _doclist(page, i, starts[k + 1] if k + 1 < len(starts) else footer, footer, state.wanted, out)
    state.term = term


def _doclist(page: bytes, i: int, end: int, footer: int, wanted: bool, out: list[int]) -> int:
    """Doclist entries from ``i`` to ``end``: the poslist bytes left for the next page."""
    rowid, first = 0, True
    while i < end:
        byte = page[i]
        if byte < 0x80:
            value = byte
            i += 1
        else:
            value, i = _varint(page, i)
        rowid = value if first else rowid + value
        first = False
        byte = page[i]
        if byte < 0x80:
            size = byte
            i += 1
        else:
            size, i = _varint(page, i)
        if wanted:
            out.append(rowid)
        i += size >> 1
    if i > end and end != footer:
        raise Unfollowable("a poslist runs into the next term")
    return i - end
