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

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import Connection

from memorydesk.search.cache import cached
from memorydesk.store.workspace import Workspace

__all__ = ["ConflictIndex", "FactColumns", "conflict_index", "fact_columns", "fold", "prepare"]

CROSS = "cross_agent"
_FACT_SEP = b"\x01"  # between facts; topic and content of one fact are kept apart by _COL_SEP
_COL_SEP = b"\x00"
_building = threading.Lock()  # two threads asking at once build once


def _hex_ints(text: str | None, width: int) -> np.ndarray:
    """Integers written by ``printf('%016x', …)`` side by side (two's complement for negatives)."""
    data = bytes.fromhex(text or "")
    return np.frombuffer(data, dtype=">i8").astype(np.int64).reshape(-1, width)


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
    def read(cls, ws: Workspace, conn: Connection) -> ConflictIndex:
        raw = conn.connection.driver_connection
        c, f = ws.layout.conflicts.name, ws.layout.facts.name
        (found,) = raw.execute(
            f"SELECT group_concat(printf('%016x%016x%016x%016x', c.rowid, ifnull(fa.rowid, -1), "
            f"ifnull(fb.rowid, -1), c.conflict_type = ?), '') FROM {c} c "
            f"LEFT JOIN {f} fa ON fa.id = c.fact_a_id LEFT JOIN {f} fb ON fb.id = c.fact_b_id",
            (CROSS,)).fetchone()
        table = _hex_ints(found, 4)
        table = table[np.argsort(-table[:, 0], kind="stable")]
        rowid, a, b, cross = table[:, 0].copy(), table[:, 1].copy(), table[:, 2].copy(), table[:, 3] == 1
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        top = int(max(a.max(initial=0), b.max(initial=0))) + 1
        pair = np.where(cross, lo * top + hi, -1)
        dangling = cross & (lo < 0)
        if dangling.any():  # a pair with a missing fact: named by its ids, numbered past every real pair
            names: dict[tuple[str, str], int] = {}
            marks = ",".join("?" * int(dangling.sum()))
            ids = {int(r[0]): (r[1], r[2]) for r in raw.execute(
                f"SELECT rowid, fact_a_id, fact_b_id FROM {c} WHERE rowid IN ({marks})",
                tuple(rowid[dangling].tolist()))}
            base = top * top
            for i in np.flatnonzero(dangling).tolist():
                x, y = ids[int(rowid[i])]
                key = (x, y) if str(x) <= str(y) else (y, x)
                pair[i] = base + names.setdefault(key, len(names))
        return cls(rowid, a, b, pair)


@dataclass(frozen=True)
class FactColumns:
    """By fact rowid: domain and agent codes (-1: none or no such fact); the searchable text."""

    domain: np.ndarray
    agent: np.ndarray
    domains: dict[str, int]
    agents: dict[str, int]
    starts: np.ndarray  # where each fact's text begins in ``text``, in rowid order
    rowids: np.ndarray  # the fact of each start
    text: bytes

    @property
    def nbytes(self) -> int:
        names = sum(len(k) + 100 for k in (*self.domains, *self.agents))
        return int(self.domain.nbytes + self.agent.nbytes + self.starts.nbytes + self.rowids.nbytes
                   + len(self.text) + names)

    @classmethod
    def read(cls, ws: Workspace, conn: Connection) -> FactColumns:
        raw = conn.connection.driver_connection
        f = ws.layout.facts.name
        top = int(raw.execute(f"SELECT ifnull(max(rowid), 0) FROM {f}").fetchone()[0]) + 1
        domain = np.full(top, -1, dtype=np.int32)
        agent = np.full(top, -1, dtype=np.int32)
        domains: dict[str, int] = {}
        agents: dict[str, int] = {}
        rowids: list[int] = []
        pieces: list[bytes] = []
        cursor = raw.execute(f"SELECT rowid, domain, authored_by_agent_id, "
                             f"CAST(lower(topic) AS BLOB), CAST(lower(content) AS BLOB) FROM {f}")
        while chunk := cursor.fetchmany(20_000):
            at = np.fromiter((r[0] for r in chunk), dtype=np.int64, count=len(chunk))
            domain[at] = [domains.setdefault(r[1], len(domains)) if isinstance(r[1], str) else -1 for r in chunk]
            agent[at] = [agents.setdefault(r[2], len(agents)) if isinstance(r[2], str) else -1 for r in chunk]
            rowids.extend(at.tolist())
            pieces.extend(_COL_SEP.join((r[3] or b"", r[4] or b"")) for r in chunk)
        order = np.argsort(np.asarray(rowids, dtype=np.int64), kind="stable")
        pieces = [pieces[i] for i in order.tolist()]
        lengths = np.fromiter((len(p) + 1 for p in pieces), dtype=np.int64, count=len(pieces))
        starts = np.zeros(len(pieces), dtype=np.int64)
        if len(pieces):
            starts[1:] = np.cumsum(lengths)[:-1]
        text = _FACT_SEP.join(pieces) + _FACT_SEP
        return cls(domain, agent, domains, agents, starts, np.asarray(rowids, dtype=np.int64)[order], text)

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


def _built(ws: Workspace, conn: Connection, key: str, build: Any) -> Any:
    with _building:
        found = cached(ws, conn, (key,), lambda: build(ws, conn), size=lambda v: v.nbytes // 16)
    return found if found is not None else build(ws, conn)


def conflict_index(ws: Workspace, conn: Connection) -> ConflictIndex:
    """The conflict rows of this snapshot as integers (kept while the file does not change)."""
    return _built(ws, conn, "conflict-index", ConflictIndex.read)  # type: ignore[no-any-return]


def fact_columns(ws: Workspace, conn: Connection) -> FactColumns:
    """The facts' filter columns of this snapshot (kept while the file does not change)."""
    return _built(ws, conn, "conflict-fact-columns", FactColumns.read)  # type: ignore[no-any-return]


def prepare(ws: Workspace) -> None:
    """Read both ahead, off the UI thread, so the first filter on facts is quick."""
    with ws.read() as conn:
        conflict_index(ws, conn)
        fact_columns(ws, conn)


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
