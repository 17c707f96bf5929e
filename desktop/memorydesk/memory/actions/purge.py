"""Purge that keeps its word (docs/architecture.md, "What the desk does to memory"): the text leaves the file, its log
and the backups.

A purge deletes the facts, their earlier versions, everything that quotes them and the
history's copies of their text, in one transaction that also leaves a pending-erase
record (``store.wal``). Then the full-text index is merged and the write-ahead log
truncated; when another program's read stops that, the outcome says so, and the erase
finishes at the next open or poll. Backups Memory Desk made beside the file
(``files.backups_beside``) may hold the text too: ``backups_holding`` finds them
(rows by id, or the text's bytes anywhere in the file), and the purge erases the text
there as well (``VACUUM``, then checked byte for byte) or deletes them, as asked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from sqlalchemy import Connection, LargeBinary, cast, func, select

from memorydesk.core.errors import MemoryDeskError, StaleEdit
from memorydesk.core.inputs import check_reason
from memorydesk.memory.actions.base import ReviewerAction
from memorydesk.memory.history.record import ChangeResult, perform
from memorydesk.store import Workspace, files, wal
from memorydesk.store.engine import BUSY_TIMEOUT_MS, make_engine
from memorydesk.store.errors import translated
from memorydesk.store.layout import Layout, detect, table_names
from memorydesk.store.ours import VECTOR_TABLE, DeskHistory
from memorydesk.store.retry import with_retry
from memorydesk.store.vectors import drop_vectors

BackupAction = Literal["keep", "erase", "delete"]
BACKUP_ACTIONS: tuple[str, ...] = ("keep", "erase", "delete")
MIN_NEEDLE = 12  # shorter texts are not searched for as raw bytes (they would match by chance)
_SLICE, _STRIDE = 32, 256  # embeddings are found by slices: a long blob is split across pages
TEXT_SLICE = 48  # a long text is found by slices too: past a page's room it continues on overflow pages
TEXT_SLICES = 32  # at most this many slices of one text (each is searched for in the file and the log)


@dataclass(frozen=True)
class BackupHolding:
    """A backup beside the workspace that still holds purged text."""

    path: Path
    fact_ids: list[str]  # purged facts it has as rows (empty: only their bytes were found)
    unreadable: str = ""  # why SQLite could not read it (then only the raw bytes were searched)
    erase_failed: str = ""  # why erasing the text there did not work (the backup is kept as it is)


@dataclass
class PurgeOutcome:
    change: ChangeResult | None  # None when the facts were only in backups
    wal: wal.WalState | None
    kept: list[BackupHolding] = field(default_factory=list)
    erased: list[Path] = field(default_factory=list)
    deleted: list[Path] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """The text is in no file beside the workspace any more."""
        return (self.wal is None or self.wal.done) and not self.kept

    def lines(self) -> list[str]:
        out = [self.change.message] if self.change else []
        if self.wal is not None:
            out.append(self.wal.sentence())
        out += [f"erased its rows from backup {p.name} (a row there that quotes the text — a note, another fact — "
                "is not touched)" for p in self.erased]
        out += [f"deleted backup {p.name}" for p in self.deleted]
        for held in self.kept:
            out.append(f"backup {held.path.name} still holds the text"
                       + (f" ({len(held.fact_ids)} fact version(s))" if held.fact_ids else "")
                       + (f"; it could not be read ({held.unreadable})" if held.unreadable else "")
                       + (f"; erasing it there failed ({held.erase_failed})" if held.erase_failed else "")
                       + "; erase it there too or delete the backup")
        return out


def earlier_versions(conn: Connection, layout: Layout, ids: Iterable[str]) -> list[str]:
    """``ids`` and every fact they superseded, directly or through others."""
    facts = layout.facts
    found = list(dict.fromkeys(ids))
    frontier = list(found)
    while frontier:
        earlier = conn.execute(select(facts.c.id).where(facts.c.superseded_by.in_(frontier))).scalars().all()
        frontier = [f for f in earlier if f not in found]
        found.extend(frontier)
    return found


def erase_rows(conn: Connection, layout: Layout, ids: list[str], *, vectors: bool) -> None:
    """Delete the facts (FTS entries go by trigger), their vectors and every row that quotes them."""
    facts, edges, conflicts, beliefs = layout.facts, layout.edges, layout.conflicts, layout.beliefs
    present = conn.execute(select(facts.c.id).where(facts.c.id.in_(ids))).scalars().all()
    conn.execute(facts.delete().where(facts.c.id.in_(ids)))
    if vectors:
        drop_vectors(conn, present)
    conn.execute(edges.delete().where(edges.c.source_fact_id.in_(ids) | edges.c.target_fact_id.in_(ids)))
    conn.execute(conflicts.delete().where(conflicts.c.fact_a_id.in_(ids) | conflicts.c.fact_b_id.in_(ids)))
    for belief in conn.execute(select(beliefs.c.id, beliefs.c.provenance_fact_ids)).all():
        if any(fid in (belief.provenance_fact_ids or "") for fid in ids):
            conn.execute(beliefs.delete().where(beliefs.c.id == belief.id))


def erase_desk_records(conn: Connection, names: set[str], ids: list[str]) -> None:
    """The desk's own records that keep these facts' text by their id: the kept review scan (its
    findings hold excerpts, a set's finding its members' text), decisions on them (their reasons),
    conflict decisions naming them, and the question a kept recall audit asked for each (the
    fact's own topic; the audit's stages and ranks stay)."""
    if not ids:
        return
    marks = ",".join("?" * len(ids))
    if "memdesk_review_items" in names:
        conn.exec_driver_sql(f"DELETE FROM memdesk_review_items WHERE item_kind = 'fact' AND item_id IN ({marks})",
                             tuple(ids))
    if "memdesk_review_decisions" in names:
        conn.exec_driver_sql(f"DELETE FROM memdesk_review_decisions WHERE item_kind = 'fact' AND item_id IN ({marks})",
                             tuple(ids))
    if "memdesk_review_pairs" in names:
        conn.exec_driver_sql(f"DELETE FROM memdesk_review_pairs WHERE fact_a IN ({marks}) OR fact_b IN ({marks})",
                             (*ids, *ids))
    if "memdesk_review_sets" in names:
        for fid in ids:
            conn.exec_driver_sql("DELETE FROM memdesk_review_sets WHERE instr(signature, ?) > 0", (fid,))
    if "memdesk_conflict_reviews" in names:
        conn.exec_driver_sql(f"DELETE FROM memdesk_conflict_reviews WHERE fact_a_id IN ({marks}) "
                             f"OR fact_b_id IN ({marks})", (*ids, *ids))
    if "memdesk_audit_facts" in names:
        conn.exec_driver_sql(f"UPDATE memdesk_audit_facts SET query = '' WHERE fact_id IN ({marks})", tuple(ids))


def scrub_history(conn: Connection, ids: list[str]) -> None:
    """The history keeps ids, actor, time and reason of changes to these facts, not their text."""
    h = DeskHistory.__table__
    scrub = h.c.entity_id.in_(ids) | h.c.before_id.in_(ids) | h.c.after_id.in_(ids)
    conn.execute(h.update().where(scrub & (h.c.action != "purge")).values(detail='{"purged":true}'))


def _needles(conn: Connection, layout: Layout, ids: list[str]) -> list[bytes]:
    """Byte strings whose presence in a file means it still holds this text: long contents and
    slices of embeddings."""
    facts = layout.facts
    out: list[bytes] = []
    for content, embedding in conn.execute(select(facts.c.content, facts.c.embedding).where(facts.c.id.in_(ids))):
        out += text_needles((content or "").encode("utf-8", "replace"))
        if isinstance(embedding, bytes):
            out += [embedding[o:o + _SLICE] for o in range(0, len(embedding) - _SLICE + 1, _STRIDE)]
    return out


def text_needles(raw: bytes) -> list[bytes]:
    """What finds a text in a file's bytes: the whole text, and — for one longer than a slice —
    slices of it spread over its length. SQLite keeps a row's text whole on its page only while
    the row fits; a longer one continues on overflow pages, each starting with a page number, so
    the whole text is then nowhere in one piece (in the file or in a log frame) but its slices are."""
    if len(raw) < MIN_NEEDLE:
        return []
    if len(raw) <= TEXT_SLICE * 2:
        return [raw]
    stride = max(TEXT_SLICE, (len(raw) - TEXT_SLICE) // (TEXT_SLICES - 1))
    return [raw, *dict.fromkeys(raw[o:o + TEXT_SLICE] for o in range(0, len(raw) - TEXT_SLICE + 1, stride))]


def _read_backup(path: Path, ids: list[str], needles: list[bytes] = ()) -> tuple[list[str], list[bytes]]:
    """The purged facts' versions a backup has as rows, and the needles (theirs and ``needles``)
    that no other fact in the backup holds too."""
    engine = make_engine(path, read_only=True, immutable=True)
    try:
        with translated(path), engine.connect() as conn:
            layout = detect(table_names(conn))
            if layout is None:
                return [], list(needles)
            chain = earlier_versions(conn, layout, ids)
            held = conn.execute(select(layout.facts.c.id).where(layout.facts.c.id.in_(chain))).scalars().all()
            own = _needles(conn, layout, list(held))
            return list(held), _unique_needles(conn, layout, chain, list(dict.fromkeys([*needles, *own])))
    finally:
        engine.dispose()


def backups_holding(ws: Workspace, ids: Iterable[str]) -> list[BackupHolding]:
    """Backups beside ``ws`` that hold any of the facts (or their earlier versions) or their text."""
    ids = list(dict.fromkeys(ids))
    with ws.read() as conn:
        chain = earlier_versions(conn, ws.layout, ids)
        needles = _needles(conn, ws.layout, chain)
    return [held for held in (_backup_holding(b, chain, needles) for b in files.backups_beside(ws.path)) if held]


def _backup_holding(path: Path, chain: list[str], needles: list[bytes]) -> BackupHolding | None:
    try:
        rows, unique = _read_backup(path, chain, needles)
        unreadable = ""
    except MemoryDeskError as exc:
        rows, unique, unreadable = [], needles, str(exc)
    sides = [path, Path(f"{path}-wal")]
    if rows or unreadable or wal.files_holding(sides, unique):
        return BackupHolding(path, rows, unreadable)
    return None


def erase_in_backup(held: BackupHolding, chain: list[str]) -> None:
    """Purge the facts from a backup too, ``VACUUM`` it, and check no byte of the text is left."""
    _rows, needles = _read_backup(held.path, chain)  # after the erase, only bytes no other fact holds count

    def erase(conn: Connection, layout: Layout, names: set[str]) -> None:
        versions = earlier_versions(conn, layout, chain)
        erase_rows(conn, layout, versions, vectors=VECTOR_TABLE in names)
        erase_desk_records(conn, names, versions)
        if "memdesk_history" in names:
            scrub_history(conn, versions)
        conn.exec_driver_sql(f"INSERT INTO {layout.fts}({layout.fts}) VALUES('optimize')")

    erase_from_backup(held.path, needles, erase)


def erase_from_backup(path: Path, needles: list[bytes],
                      erase: Callable[[Connection, Layout, set[str]], None]) -> None:
    """Run ``erase(conn, layout, table names)`` in one transaction on the backup at ``path``,
    ``VACUUM`` it (a new file: no free page keeps an old copy), and check that none of
    ``needles`` is left in the file or its log."""
    files.require_free(path.parent, 2 * files.database_bytes(path), f"erasing the text from {path.name}")
    engine = make_engine(path, read_only=False)
    try:
        with translated(path), engine.connect() as conn:
            with conn.begin():
                names = table_names(conn)
                layout = detect(names)
                if layout is None:
                    raise MemoryDeskError(f"{path}: not a workspace any more; delete it instead")
                erase(conn, layout, names)
            raw = conn.connection.driver_connection  # outside any transaction
            raw.execute("VACUUM")
            raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        engine.dispose()
    if wal.files_holding([path, Path(f"{path}-wal")], needles):
        raise MemoryDeskError(f"{path}: the text could not be erased from this backup; delete the backup instead")


@dataclass(frozen=True)
class PurgeFacts(ReviewerAction):
    """The facts (their FTS entries by trigger) and everything that quotes them, deleted for
    good. Stores only the ids: it cannot be undone."""

    entity, name = "fact", "purge"
    undoable = False
    ids: list[str]

    def forward(self, ws: Workspace, conn: Connection) -> None:
        erase_rows(conn, ws.layout, self.ids, vectors=ws.has_vectors)
        erase_desk_records(conn, table_names(conn), self.ids)


def purge(ws: Workspace, actor: str, ids: Iterable[str], reason: str = "", *,
          backups: BackupAction = "keep") -> PurgeOutcome:
    """Purge facts from the workspace, then deal with the backups beside it as ``backups`` says.

    Facts no longer in the workspace but still in a backup are erased (or deleted) there.
    """
    if backups not in BACKUP_ACTIONS:
        raise MemoryDeskError(f"backups: choose keep, erase or delete, not {backups!r}")
    reason = check_reason(reason)  # a purge cannot be undone: its reason is all the history keeps
    ids = list(dict.fromkeys(ids))
    if not ws.adopted:  # the backup the first change makes holds the text too: make it before looking
        ws.adopt()
    holding = backups_holding(ws, ids)
    with ws.read() as conn:
        present = conn.execute(select(ws.layout.facts.c.id).where(ws.layout.facts.c.id.in_(ids))).scalars().all()
        chain = earlier_versions(conn, ws.layout, ids)
    missing = [fid for fid in ids if fid not in present and not any(fid in h.fact_ids for h in holding)]
    if missing:
        raise StaleEdit(f"no fact {missing[0]} in {ws.path.name} or in a backup beside it; nothing was purged")
    outcome = PurgeOutcome(None, None)
    if present:
        outcome.change, outcome.wal = _purge_workspace(ws, actor, list(present), reason)
    settle_backups(outcome, holding, backups,
                   lambda held: erase_in_backup(held, sorted(set(chain) | set(held.fact_ids))))
    return outcome


def settle_backups(outcome: PurgeOutcome, holding: list[BackupHolding], backups: BackupAction,
                   erase: Callable[[BackupHolding], None]) -> None:
    """Do to each backup that holds the purged text what ``backups`` asks — ``erase`` it there,
    delete it, or keep it — and say so in ``outcome``. A backup SQLite cannot read is kept
    (and said), as is one whose erase failed: the workspace is purged already."""
    for held in holding:
        if backups == "erase" and not held.unreadable:
            try:
                erase(held)
            except MemoryDeskError as exc:
                outcome.kept.append(BackupHolding(held.path, held.fact_ids, erase_failed=str(exc)))
                continue
            outcome.erased.append(held.path)
        elif backups == "delete":
            files.remove_database(held.path)
            outcome.deleted.append(held.path)
        else:
            outcome.kept.append(held)


def _purge_workspace(ws: Workspace, actor: str, ids: list[str], reason: str) -> tuple[ChangeResult, wal.WalState]:
    with ws.read() as conn:  # what to look for beside the file if the erase cannot finish at once
        chain = earlier_versions(conn, ws.layout, ids)
        needles = _unique_needles(conn, ws.layout, chain, _needles(conn, ws.layout, chain))

    def work(conn: Connection) -> ChangeResult:
        chain: list[str] = []
        hids = []
        for fid in ids:
            versions = [v for v in earlier_versions(conn, ws.layout, [fid]) if v not in chain]
            chain.extend(versions)
            hids.append(perform(ws, conn, PurgeFacts(versions), entity_id=fid, actor=actor, reason=reason))
        scrub_history(conn, chain)
        wal.mark_pending(conn)
        return ChangeResult("fact", chain, hids, f"{len(chain)} fact version(s) purged",
                            {"edge": [], "conflict": [], "belief": []})

    result = with_retry(ws, work)
    with ws.write() as conn:  # merge the index: its old segments (freed, zeroed) held the words
        conn.exec_driver_sql(f"INSERT INTO {ws.layout.fts}({ws.layout.fts}) VALUES('optimize')")
    state = wal.finish_pending_erase(ws.path, wait_ms=BUSY_TIMEOUT_MS)  # waits a few seconds for readers
    ws.pending_erase = not state.done
    if not state.done:  # say where the text really is: the file's old pages, or the log
        state = replace(state, holding=wal.files_holding([ws.path, Path(f"{ws.path}-wal")], needles))
    return result, state


def _unique_needles(conn: Connection, layout: Layout, chain: list[str], needles: list[bytes]) -> list[bytes]:
    """The needles no other fact holds too: a sentence another fact also contains proves nothing."""
    facts = layout.facts
    out = []
    for needle in needles:
        other = conn.execute(select(facts.c.id).where(
            facts.c.id.not_in(chain),
            (func.instr(cast(facts.c.content, LargeBinary), needle) > 0) | (func.instr(facts.c.embedding, needle) > 0),
        ).limit(1)).first()
        if other is None:
            out.append(needle)
    return out
