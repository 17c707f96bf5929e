"""The conflict list's filters on facts (domain, agent, text) answered from arrays in memory.

Asking SQLite, row by row, whether either fact of a conflict row has a domain, an agent
or a text takes seconds on a 1,000,000-fact file (hundreds of thousands of rows, two
fact lookups each, a fact table without an index on its agent column, a scan of every
text). Instead, for one file version (``search.cache.cached``: kept while the file does
not change, counted against its budget), two things are read once:

- ``ConflictIndex``: every conflict row, newest first, as integers: its rowid, the rowids
  of its two facts (-1: a missing fact) and, for a ``cross_agent`` row, a number naming its
  pair of facts in either order (-1 for a contradiction), so the list folds in numpy;
- ``FactColumns``: by fact rowid, a code for the domain and for the authoring agent, and
  the text the filter searches, ``lower(topic)`` and ``lower(content)`` as SQLite lowers
  them (ASCII only, as the SQL filter did), in one UTF-8 buffer where a substring is
  found with ``bytes.find`` (a substring of UTF-8 text is a substring of its bytes).

A filter is then a mask over facts, turned into a mask over rows (either fact matches
each condition) and folded; the other clauses (type, state, time, fact) still come from
SQL, as rowids. ``prepare`` builds both ahead (the tab calls it once the list is known),
so the first filter does not pay for them.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import Connection

from memorydesk.search.cache import cached
from memorydesk.store.workspace import Workspace

__all__ = ["ConflictIndex", "FactColumns", "fact_columns", "fact_mask", "fold", "prepare", "prepare_later", "row_mask"]

CROSS = "cross_agent"
_FACT_SEP = b"\x01"  # between facts; topic and content of one fact are kept apart by _COL_SEP
_COL_SEP = b"\x00"
log = logging.getLogger("memorydesk.browse")
_building = threading.Lock()  # two threads asking at once build once


def _hex_ints(text: bytes | None, width: int) -> np.ndarray:
    """Integers written by ``printf('%016x', …)`` side by side (two's complement for negatives)."""
    data = bytes.fromhex((text or b"").decode("ascii"))
    return np.frombuffer(data, dtype=">i8").astype(np.int64).reshape(-1, width)


class _Odd(Exception):
    """Something the arrays cannot hold faithfully (a separator inside an id…): the SQL filter answers."""


def _names(joined: bytes | None, n: int) -> list[bytes]:
    """``n`` values joined by byte 1 (by ``group_concat``)."""
    parts = (joined or b"").split(_FACT_SEP) if n else []
    if len(parts) != n:
        raise _Odd("a separator inside a value")
    return parts


def _codes(values: list[bytes]) -> tuple[np.ndarray, dict[str, int]]:
    """A code per value (-1 for byte 2, which stands for NULL) and the names of the codes."""
    table: dict[bytes, int] = {_NULL: -1}
    codes = np.fromiter((table.setdefault(v, len(table) - 1) for v in values), dtype=np.int32, count=len(values))
    return codes, {k.decode("utf-8", "surrogateescape"): v for k, v in table.items() if k != _NULL}


_NULL = b"\x02"


@dataclass(frozen=True)
class ConflictIndex:
    """Every conflict row, newest first: its rowid, its facts' rowids (-1: missing), its pair (-1: none)."""

    rowid: np.ndarray
    a: np.ndarray
    b: np.ndarray
    pair: np.ndarray

    @property
    def nbytes(self) -> int:
        return int(self.rowid.nbytes + self.a.nbytes + self.b.nbytes + self.pair.nbytes)

    @classmethod
    def read(cls, ws: Workspace, raw: Any, rowid_of: dict[bytes, int]) -> ConflictIndex:
        """From one pass over the conflict table; ``rowid_of`` names the facts by id."""
        c = ws.layout.conflicts.name
        head, fact_a, fact_b = raw.execute(
            f"SELECT group_concat(printf('%016x%016x', rowid, ifnull(conflict_type = ?, 0)), ''), "
            f"group_concat(ifnull(CAST(fact_a_id AS TEXT), char(2)), char(1)), "
            f"group_concat(ifnull(CAST(fact_b_id AS TEXT), char(2)), char(1)) FROM {c}", (CROSS,)).fetchone()
        table = _hex_ints(head, 2)
        n = len(table)
        a_ids, b_ids = _names(fact_a, n), _names(fact_b, n)
        order = np.argsort(-table[:, 0], kind="stable")
        rowid, cross = table[order, 0], table[order, 1] == 1
        get = rowid_of.get
        a = np.fromiter((get(x, -1) for x in a_ids), dtype=np.int64, count=n)[order]
        b = np.fromiter((get(x, -1) for x in b_ids), dtype=np.int64, count=n)[order]
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        top = int(max(a.max(initial=0), b.max(initial=0))) + 1
        pair = np.where(cross, lo * top + hi, -1)
        dangling = np.flatnonzero(cross & (lo < 0))
        if len(dangling):  # a pair with a missing fact: named by its ids, numbered past every real pair
            numbers: dict[tuple[bytes, bytes], int] = {}
            for i in dangling.tolist():
                x, y = a_ids[int(order[i])], b_ids[int(order[i])]
                pair[i] = top * top + numbers.setdefault((x, y) if x <= y else (y, x), len(numbers))
        return cls(rowid, a, b, pair)


@dataclass(frozen=True)
class FactColumns:
    """By fact rowid: domain and agent codes (-1: none or no such fact); the searchable text; and the
    conflict rows as integers (``index``)."""

    domain: np.ndarray
    agent: np.ndarray
    domains: dict[str, int]
    agents: dict[str, int]
    starts: np.ndarray  # where each fact's text begins in ``text``, in rowid order
    rowids: np.ndarray  # the fact of each start
    text: bytes
    index: ConflictIndex

    @property
    def nbytes(self) -> int:
        names = sum(len(k) + 100 for k in (*self.domains, *self.agents))
        return int(self.domain.nbytes + self.agent.nbytes + self.starts.nbytes + self.rowids.nbytes
                   + len(self.text) + names + self.index.nbytes)

    @classmethod
    def read(cls, ws: Workspace, conn: Connection) -> FactColumns | None:
        """Two passes over the facts (their ids, then their columns) and one over the conflicts."""
        raw = conn.connection.driver_connection
        f = ws.layout.facts.name
        kept = raw.text_factory
        raw.text_factory = bytes  # the text as stored, and nothing decoded on the way
        try:
            by_id, joined = raw.execute(f"SELECT group_concat(printf('%016x', rowid), ''), "
                                        f"group_concat(CAST(id AS TEXT), char(1)) FROM {f} WHERE id IS NOT NULL"
                                        ).fetchone()
            id_rowids = _hex_ints(by_id, 1)[:, 0].tolist()
            rowid_of = dict(zip(_names(joined, len(id_rowids)), id_rowids, strict=True))
            if len(rowid_of) != len(id_rowids):
                raise _Odd("two facts with one id")
            heads, domains, agents, text = raw.execute(
                f"SELECT group_concat(printf('%016x', rowid), ''), "
                f"group_concat(ifnull(CAST(domain AS TEXT), char(2)), char(1)), "
                f"group_concat(ifnull(CAST(authored_by_agent_id AS TEXT), char(2)), char(1)), "
                f"group_concat(CAST(lower(ifnull(topic, '')) AS BLOB) || x'00' || "
                f"CAST(lower(ifnull(content, '')) AS BLOB), x'01') FROM {f}").fetchone()
            index = ConflictIndex.read(ws, raw, rowid_of)
            del rowid_of
        except _Odd:
            return None
        finally:
            raw.text_factory = kept
        rowids = _hex_ints(heads, 1)[:, 0]
        n = len(rowids)
        text = bytes(text or b"") + _FACT_SEP
        ends = np.flatnonzero(np.frombuffer(text, dtype=np.uint8) == 1)
        if len(ends) != max(n, 1) or (n and not bool((np.diff(rowids) > 0).all())):
            return None  # a fact's text holds the separator, or the scan was not in rowid order
        starts = np.r_[0, ends[:-1] + 1][:n].astype(np.int64)
        top = int(rowids.max()) + 1 if n else 1
        domain = np.full(top, -1, dtype=np.int32)
        agent = np.full(top, -1, dtype=np.int32)
        domain_codes, domain_names = _codes(_names(domains, n))
        agent_codes, agent_names = _codes(_names(agents, n))
        domain[rowids], agent[rowids] = domain_codes, agent_codes
        return cls(domain, agent, domain_names, agent_names, starts, rowids, text, index)

    def with_text(self, needle: str) -> np.ndarray | None:
        """Rowids of the facts whose lowered topic or content holds ``needle`` (None: not searchable here)."""
        want = needle.lower().encode("utf-8", "surrogatepass")
        if not want or _FACT_SEP in want or _COL_SEP in want:
            return None
        text, found, at = self.text, [], 0
        find = text.find
        while (at := find(want, at)) >= 0:
            found.append(at)
            at = find(_FACT_SEP, at) + 1  # the rest of this fact cannot add anything
        where = np.searchsorted(self.starts, np.asarray(found, dtype=np.int64), side="right") - 1
        return self.rowids[where]


def fact_columns(ws: Workspace, conn: Connection) -> FactColumns | None:
    """The facts' filter columns and the conflict rows of this snapshot, kept while the file does not
    change (None: a file these arrays cannot hold; the SQL filter answers)."""
    with _building:
        found = cached(ws, conn, ("conflict-filters",), lambda: _or_none(FactColumns.read(ws, conn)),
                       size=lambda v: v[0].nbytes // 16 if v[0] is not None else 0)
    return found[0] if found is not None else FactColumns.read(ws, conn)


def _or_none(value: FactColumns | None) -> tuple[FactColumns | None]:
    return (value,)  # cached() takes None as "not kept": a tuple keeps "cannot" too


def prepare(ws: Workspace) -> None:
    """Read the arrays ahead, off the UI thread, so the first filter on facts is quick."""
    with ws.read() as conn:
        fact_columns(ws, conn)


def prepare_later(ws: Workspace) -> None:
    """``prepare`` on a thread of its own (the tab's queue stays free for what the user asks); a
    failure (the workspace closed meanwhile) only means the first filter reads the arrays itself."""
    def run() -> None:
        try:
            prepare(ws)
        except Exception as exc:  # noqa: BLE001 - a read ahead that failed costs nothing but time
            log.debug("conflict filters not read ahead: %s", exc)

    threading.Thread(target=run, name="memorydesk-conflict-filters", daemon=True).start()


def fact_mask(cols: FactColumns, *, domain: str | None, agent: str | None, text: str) -> list[np.ndarray] | None:
    """One mask over fact rowids per condition given (None: a condition these arrays cannot answer)."""
    masks: list[np.ndarray] = []
    if domain:
        masks.append(cols.domain == cols.domains.get(domain, -2))
    if agent:
        masks.append(cols.agent == cols.agents.get(agent, -2))
    if text.strip():
        rowids = cols.with_text(text.strip())
        if rowids is None:
            return None
        mask = np.zeros(len(cols.domain), dtype=bool)
        mask[rowids] = True
        masks.append(mask)
    return masks


def row_mask(index: ConflictIndex, masks: list[np.ndarray]) -> np.ndarray:
    """Rows where, for every fact mask, fact a or fact b is in it."""
    keep = np.ones(len(index.rowid), dtype=bool)
    for mask in masks:
        padded = np.append(mask, False)  # position -1: a missing fact matches nothing
        keep &= padded[index.a] | padded[index.b]
    return keep


def fold(index: ConflictIndex, keep: np.ndarray) -> tuple[np.ndarray, int]:
    """The line keys of the kept rows, newest first (a pair's line at its newest row), and the row count."""
    at = np.flatnonzero(keep)
    pairs = index.pair[at]
    cross = np.flatnonzero(pairs >= 0)
    first = np.ones(len(at), dtype=bool)
    if len(cross):
        _, earliest = np.unique(pairs[cross], return_index=True)
        first[cross] = False
        first[cross[earliest]] = True
    return index.rowid[at[first]], len(at)
