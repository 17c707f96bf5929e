"""Search's copies of a file, kept in step while agents keep writing it.

Search keeps exact copies of what it reads most (``FileState``): the full-text index
(``mirror``), our vector index (``vector_copy``), the temporal voice's list
(``recent``), and a 128-bit fingerprint of every fact row (its id, workspace, domain,
topic, content, supersession and creation time). They are built once, off the caller's
thread, after the second search of a workspace (a one-shot command never pays for
them). From then on a search whose snapshot shows a newer file version first brings
the copies to that version, reading only what changed:

1. the full-text index names every row that any statement touched since the version
   the copies show (``fts_log``: new segments, and the rows in them);
2. those rows are read again; a row whose fingerprint is unchanged was only moved by a
   merge of the index; the others (and rows past the last rowid known) are the change;
3. each changed row is tokenized as FTS5 tokenizes it (``mirror.Retokenizer``) and must
   have exactly the column lengths ``%_docsize`` holds for it; the copy of the index,
   the temporal lists and the fingerprints take the new rows; the vector copy compares
   its chunk table with the file's (``vector_copy``);
4. the copies' row count and tokens per column must equal the index's averages record.

What cannot be followed this way — a schema change (``VACUUM`` and ``rebuild`` count
as one), more new index pages than ``CacheSettings.max_follow_pages``, a format this
code does not know, any check above failing — drops the copies and rebuilds them off
the caller's thread; until then searches run the product's SQL. Nothing ever waits
for a rebuild.

A search uses the copies only when its snapshot shows exactly their version; a search
on an older snapshot than the copies runs the product's SQL. Following and reading
happen under one lock, so a search never sees a copy half-way through a change.

Memory: ``CacheSettings.max_bytes`` bounds the whole; the copy of the index and the
fingerprints come first (keyword search and following depend on them), the vector copy
only if it fits beside them. ``cache_report()`` says what is held.
"""

from __future__ import annotations

import contextlib
import heapq
import logging
import os
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sqlean
from sqlalchemy import Connection

from memorydesk.core.fts_query import scoped_match
from memorydesk.search.cache import snapshot_version
from memorydesk.search.fts_log import Structure, Unfollowable, averages, changed_parts, read_structure, touched_rows
from memorydesk.search.mirror import DocSizes, KeywordIndex, Retokenizer, RowTokens, TermTable, fts_options
from memorydesk.search.recent import DEPTH, FactRow, Recent
from memorydesk.search.scope import RepoScope
from memorydesk.search.vector_copy import CopyUnusable, VectorCopy
from memorydesk.store import Workspace

__all__ = ["CacheSettings", "FileState", "cache_report", "configure", "forget", "settings", "using",
           "wait_ready"]

log = logging.getLogger("memorydesk.search")

_MB = 1024 * 1024
_ROW_COLUMNS = "rowid, id, workspace_id, domain, topic, content, superseded_by, created_at"


def _default_max_bytes() -> int:
    try:
        return int(float(os.environ.get("MEMORY_DESK_SEARCH_CACHE_MB", "2048")) * _MB)
    except ValueError:
        log.warning("MEMORY_DESK_SEARCH_CACHE_MB is not a number; keeping the default of 2048 MB")
        return 2048 * _MB


@dataclass
class CacheSettings:
    """How much search may keep, and when it builds it.

    ``max_bytes``: the bound on everything ``cache_report`` counts (the environment
    variable ``MEMORY_DESK_SEARCH_CACHE_MB`` sets the default; 2 GB otherwise).
    ``build_after``: the search (per workspace object) that starts the build.
    ``background``: build on a thread (False: build inside that search; for tests).
    ``max_follow_pages``: beyond this many new index pages, rebuild instead of following.
    """

    max_bytes: int = field(default_factory=lambda: _default_max_bytes())
    build_after: int = 2
    background: bool = True
    max_follow_pages: int = 4096


_settings = CacheSettings()


def settings() -> CacheSettings:
    return _settings


def configure(**changes: Any) -> CacheSettings:
    """Change the settings (unknown names raise); returns the settings in force."""
    for name, value in changes.items():
        if not hasattr(_settings, name):
            raise TypeError(f"no cache setting {name!r}")
        setattr(_settings, name, value)
    return _settings


def _fingerprint(row: tuple[Any, ...]) -> int:
    """A 64-bit digest of a fact row's columns (the creation time by its text, so -1 and -2 differ)."""
    return hash((row[1], row[2], row[3], row[4], row[5], row[6], repr(row[7])))


class RowPrints:
    """A fingerprint of every fact row, by rowid (``present`` false: no row).

    The digest is Python's own hash of the row's values (SipHash for text), seeded per
    process; two different rows agree on it with a chance of about 2⁻⁶⁴.
    """

    def __init__(self, capacity: int) -> None:
        self.prints = np.zeros(capacity, dtype=np.int64)
        self.present = np.zeros(capacity, dtype=bool)
        self.count = 0
        self.max_rowid = 0

    @property
    def nbytes(self) -> int:
        return int(self.prints.nbytes + self.present.nbytes)

    def known(self, rowid: int) -> int | None:
        if rowid < len(self.present) and self.present[rowid]:
            return int(self.prints[rowid])
        return None

    def fill(self, rowids: np.ndarray, prints: np.ndarray) -> None:
        """Every row at once (the build)."""
        self.prints[rowids] = prints
        self.present[rowids] = True
        self.count = int(self.present.sum())
        self.max_rowid = int(rowids.max()) if len(rowids) else 0

    def set(self, rowid: int, value: int | None) -> None:
        if rowid >= len(self.present):
            grow = max(rowid + 1, int(len(self.present) * 1.25) + 1024)
            prints = np.zeros(grow, dtype=np.int64)
            prints[: len(self.prints)] = self.prints
            present = np.zeros(grow, dtype=bool)
            present[: len(self.present)] = self.present
            self.prints, self.present = prints, present
        if self.present[rowid]:
            self.count -= 1
        self.present[rowid] = value is not None
        if value is not None:
            self.prints[rowid] = value
            self.count += 1
            self.max_rowid = max(self.max_rowid, rowid)


def _fact_row(row: tuple[Any, ...]) -> FactRow:
    return FactRow(int(row[0]), row[1], row[2], row[3], row[6], row[7])


def _scan_rows(raw: Any, ws: Workspace, prints: RowPrints, keep_going: Any) -> Recent:
    """One pass over the fact table: every row's fingerprint, and the workspace's temporal list."""
    wid = ws.workspace_id
    rowids: list[int] = []
    digests: list[int] = []
    newest: list[tuple[Any, int, str]] = []  # (created_at, rowid, id) of active rows of the workspace
    other: list[FactRow] = []  # the same, when created_at is not a plain integer
    trimmed = False
    cursor = raw.execute(f"SELECT {_ROW_COLUMNS} FROM {ws.layout.facts.name}")
    while True:
        chunk = cursor.fetchmany(20_000)
        if not chunk:
            break
        if not keep_going():
            raise InterruptedError
        for row in chunk:
            rowids.append(row[0])
            digests.append(_fingerprint(row))
            if row[2] == wid and row[6] is None:
                if type(row[7]) is int:
                    newest.append((row[7], row[0], row[1]))
                else:
                    other.append(_fact_row(row))
        if len(newest) > 200_000:  # keep memory flat on a big file: only the newest can matter
            newest = heapq.nlargest(DEPTH, newest)
            trimmed = True
    prints.fill(np.asarray(rowids, dtype=np.int64), np.asarray(digests, dtype=np.int64))
    kept = [FactRow(rowid, fid, wid, None, None, created) for created, rowid, fid in heapq.nlargest(DEPTH, newest)]
    return Recent.from_rows(wid, None, kept + Recent.newest_rows(other, DEPTH),
                            complete=not trimmed and len(newest) <= DEPTH)

class FileState:
    """Every copy search keeps of one file, at one version."""

    def __init__(self, version: int, schema: int) -> None:
        self.version = version
        self.schema = schema
        self.structure: Structure | None = None
        self.keyword: KeywordIndex | None = None
        self.retok: Retokenizer | None = None
        self.hooks: frozenset[bytes] = frozenset()
        self.rows = RowPrints(0)
        self.recent: dict[str | None, Recent] = {}
        self.vectors: VectorCopy | None = None
        self.notes: list[str] = []
        self.phrase: str | None = None
        self.workspaces: set[str] = set()  # workspace ids whose first token is a hook
        self.terms: OrderedDict[str, tuple[int, np.ndarray, np.ndarray]] = OrderedDict()
        self.term_elements = 0
        self.followed = 0  # versions followed since the build
        self.last_follow: dict[str, float] = {}

    # --- building -------------------------------------------------------------------------

    @classmethod
    def build(cls, ws: Workspace, conn: Connection, version: int, keep_going: Any = lambda: True) -> FileState:
        raw = conn.connection.driver_connection
        schema = int(raw.execute("PRAGMA schema_version").fetchone()[0])
        st = cls(version, schema)
        fts, facts = ws.layout.fts, ws.layout.facts.name
        budget = _settings.max_bytes
        sql = raw.execute("SELECT sql FROM sqlite_master WHERE name = ?", (fts,)).fetchone()
        options = fts_options(sql[0] if sql else None)
        secure = raw.execute(f"SELECT 1 FROM {fts}_config WHERE k IN ('secure-delete', 'rank')").fetchall()
        if options is None or secure:
            raise Unfollowable("a full-text index with options this copy does not reproduce")
        st.retok = Retokenizer(options)
        st.structure = read_structure(raw, fts)
        match = scoped_match("aa", ws.workspace_id)
        st.phrase = _workspace_phrase(match)
        n_row, totals = averages(raw, fts)
        table = TermTable.build(raw, fts, keep_going)
        docs = DocSizes.build(raw, fts, len(totals))
        members = _members(raw, fts, st.phrase, len(docs.sizes))
        st.keyword = KeywordIndex(table, docs, members, st.phrase, n_row, totals)
        if not st.keyword.consistent(n_row, totals):
            raise Unfollowable("the index's own totals do not add up")
        st.workspaces = _workspace_ids(raw, facts)
        st.hooks = _first_tokens(raw, st.retok, sorted(st.workspaces)) if st.workspaces else frozenset()
        top = raw.execute(f"SELECT max(rowid) FROM {facts}").fetchone()[0] or 0
        st.rows = RowPrints(int(top) + 1024)
        st.recent[None] = _scan_rows(raw, ws, st.rows, keep_going)
        if st.rows.count != n_row:
            raise Unfollowable("the index and the fact table disagree on the number of rows")
        used = st.nbytes
        if used > budget:
            raise Unfollowable(f"the copies need {used / _MB:.0f} MB, more than the {budget / _MB:.0f} MB allowed")
        if ws.has_vectors:
            planned = VectorCopy.planned_bytes(raw)
            if used + planned <= budget:
                try:
                    st.vectors = VectorCopy.build(raw)
                except CopyUnusable as exc:
                    st.notes.append(f"no vector copy: {exc}")
            else:
                st.notes.append(f"no vector copy: it would take {planned / _MB:.0f} MB beside "
                                f"{used / _MB:.0f} MB, over the {budget / _MB:.0f} MB allowed")
        return st

    @property
    def nbytes(self) -> int:
        return sum(self.report().values())

    def report(self) -> dict[str, int]:
        return {
            "keyword index": self.keyword.nbytes if self.keyword is not None else 0,
            "row fingerprints": self.rows.nbytes,
            "vector copy": self.vectors.nbytes if self.vectors is not None else 0,
            "term cache": self.term_elements * 16,
            "temporal lists": sum(64 * len(r.ids) for r in self.recent.values()),
        }

    # --- following ------------------------------------------------------------------------

    def follow(self, ws: Workspace, conn: Connection, version: int) -> None:
        """Bring every copy to this connection's snapshot (which shows ``version``)."""
        started = time.perf_counter()
        raw = conn.connection.driver_connection
        fts, facts = ws.layout.fts, ws.layout.facts.name
        if int(raw.execute("PRAGMA schema_version").fetchone()[0]) != self.schema:
            raise Unfollowable("the schema changed")
        assert self.structure is not None and self.keyword is not None and self.retok is not None
        structure = read_structure(raw, fts)
        parts = changed_parts(raw, fts, self.structure, structure)
        touched = touched_rows(raw, fts, parts, self.hooks, _settings.max_follow_pages).tolist()
        touched += [r[0] for r in raw.execute(f"SELECT rowid FROM {facts} WHERE rowid > ?", (self.rows.max_rowid,))]
        found = {int(r[0]): r for r in _rows_by_id(raw, facts, sorted(set(touched)))}
        changed: dict[int, tuple[Any, ...] | None] = {}
        for rowid in set(touched):
            row = found.get(rowid)
            print_ = _fingerprint(row) if row is not None else None
            if print_ != self.rows.known(rowid):
                changed[rowid] = row
        n_row, totals = averages(raw, fts)
        if self.rows.count + sum((r is not None) - (self.rows.known(k) is not None) for k, r in changed.items()) \
                != n_row:
            for rowid in _vanished(raw, facts, self.rows, n_row):
                changed[rowid] = None
        tokens = self._tokens(raw, fts, changed)
        self.keyword.apply(tokens, n_row, totals)
        for rowid, row in changed.items():
            self.rows.set(rowid, _fingerprint(row) if row is not None else None)
            fact = _fact_row(row) if row is not None else None
            for recent in self.recent.values():
                recent.update(rowid, fact)
        if self.rows.count != n_row or not self.keyword.consistent(n_row, totals):
            raise Unfollowable("the copies no longer add up to the index's totals")
        fresh = {r[2] for r in changed.values() if r is not None} - self.workspaces
        if fresh:
            if any(not isinstance(v, str) for v in fresh):
                raise Unfollowable("a workspace id that is not text")
            self.hooks = self.hooks | _first_tokens(raw, self.retok, sorted(fresh))
            self.workspaces |= fresh
        if self.vectors is not None:
            live = [rowid for rowid, row in changed.items() if row is not None]
            stored = {int(r[0]): (r[1], bytes(r[2]) if r[2] is not None else None) for r in _embeddings(raw, facts, live)}
            self.vectors.follow(raw, [stored[rowid] for rowid in live if rowid in stored])
        if changed:
            self.terms.clear()
            self.term_elements = 0
        self.structure = structure
        self.version = version
        self.followed += 1
        self.last_follow = {"pages": float(sum(last - first + 1 for _, first, last in parts)),
                            "touched": float(len(set(touched))), "changed": float(len(changed)),
                            "ms": (time.perf_counter() - started) * 1000}

    def _tokens(self, raw: Any, fts: str, changed: dict[int, tuple[Any, ...] | None]) -> dict[int, RowTokens | None]:
        assert self.retok is not None
        live = {rowid: row for rowid, row in changed.items() if row is not None}
        tokens: dict[int, RowTokens | None] = dict(
            self.retok.rows(raw, [(rowid, row[4], row[5], row[2]) for rowid, row in live.items()], self.phrase))
        sizes = _docsizes(raw, fts, list(changed))
        for rowid in changed:
            want = sizes.get(rowid)
            have = tokens.get(rowid)
            if (want is None) != (have is None) or (have is not None and tuple(have.sizes) != want):
                raise Unfollowable("a changed row is not indexed as its text says")
            tokens.setdefault(rowid, None)
        return tokens

    # --- reading --------------------------------------------------------------------------

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """Rows holding ``term*`` and their counts, from a small cache of recent terms."""
        assert self.keyword is not None
        hit = self.terms.get(term)
        if hit is not None and hit[0] == self.keyword.epoch:
            self.terms.move_to_end(term)
            return hit[1], hit[2]
        rows, tf = self.keyword.table.postings(term)
        if hit is not None:
            self.term_elements -= len(hit[1])
        self.terms[term] = (self.keyword.epoch, rows, tf)
        self.term_elements += len(rows)
        budget = max(1_000_000, (_settings.max_bytes - self.nbytes) // 16) if _settings.max_bytes else 0
        while self.term_elements > budget and len(self.terms) > 1:
            _, (_, old, _) = self.terms.popitem(last=False)
            self.term_elements -= len(old)
        return rows, tf

    def recent_for(self, ws: Workspace, conn: Connection, scope: RepoScope | None, limit: int) -> list[str] | None:
        key = scope.slug if scope is not None else None
        recent = self.recent.get(key)
        if recent is not None:
            found = recent.newest(limit)
            if found is not None:
                return found
        raw = conn.connection.driver_connection
        rows = _scan_for_recent(raw, ws, scope)
        self.recent[key] = Recent.from_rows(ws.workspace_id, scope, rows)
        return self.recent[key].newest(limit)


def _workspace_phrase(match: str | None) -> str | None:
    clause = ") AND (workspace_id : "
    if match is None:
        return None
    at = match.rfind(clause)
    if at < 0 or not match.endswith(")"):
        return None
    return match[at + len(clause) : -1]


def _members(raw: Any, fts: str, phrase: str | None, size: int) -> np.ndarray:
    out = np.zeros(size, dtype=bool)
    if phrase is None:
        return out
    (found,) = raw.execute(f"SELECT group_concat(printf('%016x', rowid), '') FROM {fts} WHERE {fts} MATCH ?",
                           (f"workspace_id : {phrase}",)).fetchone()
    if found:
        ids = np.frombuffer(bytes.fromhex(found), dtype=">u8").astype(np.int64)
        if len(ids) and int(ids.max()) >= size:
            raise Unfollowable("a workspace row without a size")
        out[ids] = True
    return out


def _first_tokens(raw: Any, retok: Retokenizer, values: list[str]) -> frozenset[bytes]:
    """The first token FTS5 makes of each workspace id, as the index stores terms (prefix ``0``)."""
    firsts = retok.first_tokens(raw, values)
    if len(firsts) != len(values):
        raise Unfollowable("a workspace id without a token cannot be followed in the index")
    return frozenset(b"0" + term.encode("utf-8") for term in firsts.values())


def _workspace_ids(raw: Any, facts: str) -> set[str]:
    values = {r[0] for r in raw.execute(f"SELECT DISTINCT workspace_id FROM {facts}")}
    if any(not isinstance(v, str) for v in values):
        raise Unfollowable("a workspace id that is not text")
    return values


def _rows_by_id(raw: Any, facts: str, rowids: list[int]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for start in range(0, len(rowids), 5000):
        part = rowids[start : start + 5000]
        marks = ",".join("?" * len(part))
        out.extend(raw.execute(f"SELECT {_ROW_COLUMNS} FROM {facts} WHERE rowid IN ({marks})", tuple(part)))
    return out


def _embeddings(raw: Any, facts: str, rowids: list[int]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for start in range(0, len(rowids), 5000):
        part = rowids[start : start + 5000]
        marks = ",".join("?" * len(part))
        out.extend(raw.execute(f"SELECT rowid, id, embedding FROM {facts} WHERE rowid IN ({marks})", tuple(part)))
    return out


def _docsizes(raw: Any, fts: str, rowids: list[int]) -> dict[int, tuple[int, ...]]:
    from memorydesk.search.mirror import _varints

    out: dict[int, tuple[int, ...]] = {}
    for start in range(0, len(rowids), 5000):
        part = rowids[start : start + 5000]
        marks = ",".join("?" * len(part))
        for rowid, blob in raw.execute(f"SELECT id, sz FROM {fts}_docsize WHERE id IN ({marks})", tuple(part)):
            out[int(rowid)] = tuple(_varints(bytes(blob)))
    return out


#: Rows counted at most to find deletions the index's log no longer shows.
_VANISHED_SCAN = 400_000


def _vanished(raw: Any, facts: str, rows: RowPrints, n_row: int) -> list[int]:
    """Known rows that are gone (their deletion merged out of the index's log before we looked)."""
    if n_row > _VANISHED_SCAN:
        raise Unfollowable("rows vanished from a file too big to look for them")
    (found,) = raw.execute(f"SELECT group_concat(printf('%016x', rowid), '') FROM {facts}").fetchone()
    now = np.frombuffer(bytes.fromhex(found or ""), dtype=">u8").astype(np.int64)
    alive = np.zeros(len(rows.present), dtype=bool)
    alive[now[now < len(alive)]] = True
    return np.flatnonzero(rows.present & ~alive).tolist()


def _scan_for_recent(raw: Any, ws: Workspace, scope: RepoScope | None) -> list[FactRow]:
    facts = ws.layout.facts.name
    scope_sql, scope_params = scope.sql("f") if scope is not None else ("", ())
    rows = raw.execute(
        f"SELECT f.rowid, f.id, f.workspace_id, f.domain, f.superseded_by, f.created_at FROM {facts} f "
        f"WHERE +f.workspace_id = ? AND +f.superseded_by IS NULL{scope_sql} "
        f"ORDER BY f.created_at DESC, f.rowid DESC LIMIT ?",
        (ws.workspace_id, *scope_params, DEPTH + 1)).fetchall()
    return [FactRow(int(r[0]), r[1], r[2], r[3], r[4], r[5]) for r in rows]


# --- the one state, and who may use it ---------------------------------------------------------

_lock = threading.RLock()
_state: list[FileState | None] = [None]
_owner: list[Any] = [None]  # weakref to the Workspace the state belongs to
_asked: dict[str, Any] = {"owner": None, "count": 0, "last": None, "failed": None}
_builder: list[threading.Thread | None] = [None]
_generation = [0]
_ready = threading.Condition(_lock)


def _owned_by(ws: Workspace) -> bool:
    return _owner[0] is not None and _owner[0]() is ws


@contextlib.contextmanager
def using(ws: Workspace, conn: Connection) -> Iterator[FileState | None]:
    """The copies at this connection's snapshot (None: run the product's SQL), held for the block."""
    version = snapshot_version(ws, conn)
    if version is None:
        yield None
        return
    with _lock:
        state = _state[0] if _owned_by(ws) else None
        if state is None:
            _count_search(ws, conn)
            state = _state[0] if _owned_by(ws) else None  # an inline build may have made it
        if state is not None and state.version < version:
            try:
                state.follow(ws, conn, version)
            except (Unfollowable, CopyUnusable, sqlean.Error, ValueError, KeyError) as exc:
                log.info("search copies rebuilt: %s", exc)
                _state[0] = None
                _start_build(ws)
                state = None
        yield state if state is not None and state.version == version else None


def _count_search(ws: Workspace, conn: Connection) -> None:
    if _asked["owner"] is None or _asked["owner"]() is not ws:
        _asked.update(owner=weakref.ref(ws), count=0, last=None, failed=None)
    txn = conn.get_transaction()
    if txn is not None and _asked["last"] is not None and _asked["last"]() is txn:
        return  # another voice of the same search
    _asked["last"] = weakref.ref(txn) if txn is not None else None
    _asked["count"] += 1
    if _asked["failed"] is not None and _asked["failed"] == snapshot_version(ws, conn):
        return  # the build failed on this very version: wait for the file to change
    if _asked["count"] >= _settings.build_after and _builder[0] is None:
        _start_build(ws)


def _start_build(ws: Workspace) -> None:
    _generation[0] += 1
    generation = _generation[0]
    if not _owned_by(ws):
        _state[0] = None
        _owner[0] = weakref.ref(ws)
    if not _settings.background:
        _build(weakref.ref(ws), generation)
        return
    thread = threading.Thread(target=_build, args=(weakref.ref(ws), generation), name="memorydesk-search-copies",
                              daemon=True)
    _builder[0] = thread
    thread.start()


def _build(ws_ref: Any, generation: int) -> None:
    def keep_going() -> bool:
        return _generation[0] == generation and ws_ref() is not None

    version: int | None = None
    try:
        for _attempt in range(5):
            ws = ws_ref()
            if ws is None or not keep_going():
                return
            with ws.read() as conn:
                version = snapshot_version(ws, conn)
                if version is None:
                    continue  # a commit slipped in while the snapshot began: try again
                state = FileState.build(ws, conn, version, keep_going)
            with _lock:
                if keep_going() and _owned_by(ws):
                    current = _state[0]
                    if current is None or current.version < state.version:
                        _state[0] = state
                    _ready.notify_all()
            return
    except InterruptedError:
        return
    except Exception as exc:
        log.warning("search copies not built: %s", exc, exc_info=not isinstance(exc, (Unfollowable, CopyUnusable)))
    finally:
        with _lock:
            if _builder[0] is threading.current_thread():
                _builder[0] = None
            _ready.notify_all()


def wait_ready(ws: Workspace, timeout: float = 600.0) -> FileState | None:
    """Start the build if needed and wait for it (tests, benchmarks, warm-up)."""
    deadline = time.monotonic() + timeout
    with _lock:
        if not (_owned_by(ws) and _state[0] is not None) and _builder[0] is None:
            _start_build(ws)
        while not (_owned_by(ws) and _state[0] is not None):
            left = deadline - time.monotonic()
            if left <= 0 or _builder[0] is None:
                break  # nothing is being built (or the build failed): no copies
            _ready.wait(left)
        return _state[0] if _owned_by(ws) else None


def forget() -> None:
    """Drop every copy (tests, benchmarks); a build under way is abandoned."""
    with _lock:
        _generation[0] += 1
        _state[0] = None
        _owner[0] = None
        _asked.update(owner=None, count=0, last=None, failed=None)


def cache_report() -> dict[str, Any]:
    """What search keeps in memory now, in bytes, and the bound."""
    with _lock:
        state = _state[0]
        parts = state.report() if state is not None else {}
        return {"parts": parts, "total": sum(parts.values()), "max_bytes": _settings.max_bytes,
                "notes": list(state.notes) if state is not None else [],
                "version": state.version if state is not None else None}
