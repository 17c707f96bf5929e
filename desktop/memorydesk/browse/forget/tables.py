"""The forget check's table paths: every row of the file that still holds the text or names
a version of the fact — the fact itself, its versions, other facts that copy its text,
policies, notes, working-memory items, conflicts, beliefs, the history, the desk's own
records (the review's kept scan, kept recall audits, decisions' reasons), the MemoryOS
tiers, and every other table of the file.

"Holds the text" is ``instr(lower(column), needle)`` for a folded needle
(``core.forget.probes``): one statement per table, every needle and text column at once. The
tables are read through their public SQL, never their pages.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import Connection

from memorydesk.browse.forget.subject import FORGET_ENTITY, Subject
from memorydesk.core.forget.receipt import CANNOT_TELL, GONE, STILL, Answer, Found
from memorydesk.memory.rows import read_json_list
from memorydesk.store import Workspace
from memorydesk.store.ours import VECTOR_TABLE

FILE = "file"
#: the desk's own records that can quote memory: the kept review scan, decisions' reasons, kept audits
DESK_RECORDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {  # table → (key columns, text columns)
    "memdesk_review_items": (("item_kind", "item_id"), ("findings",)),
    "memdesk_review_decisions": (("item_kind", "item_id"), ("reason",)),
    "memdesk_review_state": (("key",), ("value",)),
    "memdesk_review_sets": (("signature",), ("finding",)),
    "memdesk_conflict_reviews": (("id",), ("reason",)),
    "memdesk_audit_facts": (("run_id", "fact_id"), ("query",)),
    "memdesk_audit_runs": (("id",), ("summary",)),
}
#: where a MemoryOS import keeps its mid-term tier
MTM_TABLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "memdesk_mtm_pages": (("id",), ("content",)),
    "memdesk_mtm_segments": (("id",), ("summary", "keywords")),
    "memdesk_memoryos_pages": (("page_row_id",), ("meta_info", "keywords")),
}
#: records that keep a fact's text by its id: a kept audit's question is the fact's own topic, a kept
#: review scan's findings hold excerpts of it
ID_COLUMNS = {"memdesk_review_items": "item_id", "memdesk_audit_facts": "fact_id"}


def holding(conn: Connection, table: str, keys: Sequence[str], columns: Sequence[str],
            needles: Sequence[str]) -> list[tuple]:
    """The key columns of every row of ``table`` whose text columns hold any of ``needles``."""
    if not needles or not columns:
        return []
    cond = " OR ".join(f'instr(lower("{c}"), ?) > 0' for c in columns for _ in needles)
    params = [n for _c in columns for n in needles]
    keys_sql = ", ".join(f'"{k}"' for k in keys)
    return [tuple(r) for r in conn.exec_driver_sql(f'SELECT {keys_sql} FROM "{table}" WHERE {cond}', tuple(params))]


def _answer(key: str, label: str, verdict: str, found: Iterable[Found] = (), why: str = "") -> Answer:
    return Answer(key, label, FILE, verdict, tuple(f for f in found if f.ids), why)


def _table(name: str) -> Found:
    return Found("table", (name,))


def fact_holders(conn: Connection, ws: Workspace, needles: Sequence[str]) -> dict[str, str | None]:
    """Every fact row whose topic or content holds a needle, with its ``superseded_by`` (one scan of the table)."""
    return {fid: sup for fid, sup in holding(conn, ws.layout.facts.name, ("id", "superseded_by"),
                                             ("topic", "content"), needles)}


class TableReader:
    """The table paths of one check, in one read snapshot."""

    def __init__(self, ws: Workspace, conn: Connection, subject: Subject) -> None:
        self.ws, self.conn, self.s = ws, conn, subject
        self.names = {r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'table'")}
        self.needles = subject.needles
        self.fact_rows = subject.holders
        self.versions_present = [v for v, state in subject.versions.items() if state != "missing"]

    # -- facts ----------------------------------------------------------------------------------------
    def fact(self) -> Answer:
        """The rows of the facts asked about."""
        facts = self.ws.layout.facts.name
        present = [f for f in self.s.given if self.s.versions.get(f, "missing") != "missing"]
        if not present:
            return _answer("fact", "the fact's own row", GONE, why="no row with its id is in the file")
        states = ", ".join(f"{f} is {self.s.versions[f]}" for f in present)
        why = f"{states}: the row and its text stay in the file"
        if any(self.s.versions[f] != "active" for f in present):
            why += "; purge removes them"
        return _answer("fact", "the fact's own row", STILL, [Found("fact", tuple(present)), _table(facts)], why)

    def versions(self) -> Answer:
        """Versions it superseded and versions that superseded it."""
        facts = self.ws.layout.facts.name
        others = [v for v in self.versions_present if v not in self.s.given]
        gone = [v for v, st in self.s.versions.items() if st == "missing" and v not in self.s.given]
        if not others:
            why = "no other version of it is in the file" + (f" ({len(gone)} named, none left)" if gone else "")
            return _answer("versions", "superseding and superseded versions", GONE, why=why)
        if not self.text_known():
            return _answer("versions", "superseding and superseded versions", CANNOT_TELL,
                           [Found("fact", tuple(others))], "other versions are in the file, and whether they hold "
                           "its text cannot be told without the text")
        holding_ = [v for v in others if v in self.fact_rows]
        rest = len(others) - len(holding_)
        if holding_:
            active = [v for v in holding_ if self.s.versions[v] == "active"]
            why = f"{len(holding_)} version(s) hold its text ({len(active)} active: agents' searches return them)"
            return _answer("versions", "superseding and superseded versions", STILL,
                           [Found("fact", tuple(holding_)), _table(facts)], why)
        return _answer("versions", "superseding and superseded versions", GONE,
                       why=f"{rest} other version(s) are in the file but none holds its text")

    def copies(self) -> Answer:
        """Other facts whose topic or content holds the text (a conflict's copy, a restatement)."""
        facts = self.ws.layout.facts.name
        label = "other facts that copy its text" if self.s.kind == "facts" else "facts that hold the text"
        if not self.text_known():
            return self._unknown("copies", label)
        others = [f for f in self.fact_rows if f not in self.s.versions]
        if not others:
            return _answer("copies", label, GONE, why="no fact holds it")
        active = [f for f in others if self.fact_rows[f] is None]
        return _answer("copies", label, STILL, [Found("fact", tuple(sorted(others))), _table(facts)],
                       f"{len(others)} fact(s) hold it, {len(active)} of them active (agents' searches reach those)")

    # -- what quotes it -------------------------------------------------------------------------------
    def policies(self) -> Answer:
        table = self.ws.layout.policies.name
        held = {pid: active for pid, active in holding(self.conn, table, ("id", "active"), ("rule",), self.needles)}
        derived = [pid for pid, sources in self.conn.exec_driver_sql(f'SELECT id, source_fact_ids FROM "{table}"')
                   if set(read_json_list(sources)) & set(self.s.versions)]
        label = "policies derived from it or quoting it"
        if held:
            active = [p for p, a in held.items() if a]
            return _answer("policies", label, STILL, [Found("policy", tuple(sorted(held))), _table(table)],
                           f"{len(held)} polic{'y' if len(held) == 1 else 'ies'} hold its text ({len(active)} active: "
                           "every dispatch carries them)")
        if derived and not self.text_known():
            return _answer("policies", label, CANNOT_TELL, [Found("policy", tuple(derived))],
                           "these policies were derived from it; whether their rules restate it cannot be told "
                           "without its text")
        if not self.text_known():
            return self._unknown("policies", label)
        why = "no policy holds its text"
        if derived:
            why += f" ({len(derived)} name it as a source by id only)"
        return _answer("policies", label, GONE, why=why)

    def notes(self) -> Answer:
        table = self.ws.layout.notes.name
        if not self.text_known():
            return self._unknown("notes", "agents' notes")
        rows = holding(self.conn, table, ("id", "agent_id"), ("content",), self.needles)
        if not rows:
            return _answer("notes", "agents' notes", GONE, why="no agent's note holds its text")
        return _answer("notes", "agents' notes", STILL, [Found("note", tuple(r[0] for r in rows)),
                       Found("agent", tuple(dict.fromkeys(r[1] for r in rows))), _table(table)],
                       "the preamble hands a note to its agent on every dispatch")

    def working_items(self, key: str = "working_items", label: str = "working-memory items") -> Answer:
        table = self.ws.layout.items.name
        if not self.text_known():
            return self._unknown(key, label)
        rows = holding(self.conn, table, ("id", "agent_id"), ("content",), self.needles)
        if not rows:
            return _answer(key, label, GONE, why="no working-memory item holds its text")
        return _answer(key, label, STILL, [Found("working_item", tuple(r[0] for r in rows)),
                       Found("agent", tuple(dict.fromkeys(r[1] for r in rows))), _table(table)],
                       "the hot tier: consolidation can make it a fact again")

    def conflicts(self) -> Answer:
        table = self.ws.layout.conflicts.name
        named = set(self.s.versions) | set(self.fact_rows)
        rows = []
        if named:
            marks = ",".join("?" * len(named))
            rows = self.conn.exec_driver_sql(f'SELECT id, fact_a_id, fact_b_id FROM "{table}" '
                                             f'WHERE fact_a_id IN ({marks}) OR fact_b_id IN ({marks})',
                                             (*named, *named)).all()
        reviews = holding(self.conn, "memdesk_conflict_reviews", ("id",), ("reason",), self.needles) \
            if "memdesk_conflict_reviews" in self.names else []
        with_text = [r[0] for r in rows if self._holds_fact(r[1]) or self._holds_fact(r[2])]
        label = "conflicts that carry it"
        found = [Found("conflict", tuple(with_text)),
                 Found("fact", tuple(sorted({f for r in rows for f in r[1:] if self._holds_fact(f)})))]
        if reviews:
            found += [Found("conflict_review", tuple(r[0] for r in reviews)), _table("memdesk_conflict_reviews")]
        if with_text or reviews:
            return _answer("conflicts", label, STILL, found,
                           f"{len(with_text)} conflict row(s) pair it with a fact that still holds its text"
                           + (f"; {len(reviews)} conflict decision(s) quote it in their reason" if reviews else ""))
        if rows and not self.text_known():
            return _answer("conflicts", label, CANNOT_TELL, [Found("conflict", tuple(r[0] for r in rows))],
                           "conflict rows name it; whether the facts they pair hold its text cannot be told")
        return _answer("conflicts", label, GONE,
                       why=f"{len(rows)} conflict row(s) name it by id only" if rows else "no conflict names it")

    def beliefs(self) -> Answer:
        table = self.ws.layout.beliefs.name
        rows = holding(self.conn, table, ("id",), ("topic", "content"), self.needles)
        named = [bid for bid, prov in self.conn.exec_driver_sql(f'SELECT id, provenance_fact_ids FROM "{table}"')
                 if set(read_json_list(prov)) & set(self.s.versions)]
        if rows:
            return _answer("beliefs", "harmonized beliefs", STILL, [Found("belief", tuple(r[0] for r in rows)),
                           _table(table)], "a belief restates its text")
        if named and not self.text_known():
            return _answer("beliefs", "harmonized beliefs", CANNOT_TELL, [Found("belief", tuple(named))],
                           "beliefs were harmonized from it; whether they restate it cannot be told without its text")
        if not self.text_known():
            return self._unknown("beliefs", "harmonized beliefs")
        return _answer("beliefs", "harmonized beliefs", GONE, why="no belief holds its text")

    def history(self) -> Answer:
        label = "the desk's history"
        if "memdesk_history" not in self.names:
            return _answer("history", label, GONE, why="the file has no history of the desk")
        rows = [r for r in holding(self.conn, "memdesk_history", ("id", "entity"), ("detail", "reason"), self.needles)
                if r[1] != FORGET_ENTITY]
        if rows:
            return _answer("history", label, STILL, [Found("history", tuple(str(r[0]) for r in rows)),
                           _table("memdesk_history")], f"{len(rows)} history row(s) keep its text (an edit's or a "
                           "quarantine's copy, or a reason that quotes it); purge erases the copies")
        if not self.text_known():
            ids = sorted(self.s.versions)
            marks = ",".join("?" * len(ids))
            kept = [str(r[0]) for r in self.conn.exec_driver_sql(
                f"SELECT id FROM memdesk_history WHERE entity != ? AND detail != '{{\"purged\":true}}' AND "
                f"(entity_id IN ({marks}) OR before_id IN ({marks}) OR after_id IN ({marks}))",
                (FORGET_ENTITY, *ids, *ids, *ids))]
            if kept:
                return _answer("history", label, CANNOT_TELL, [Found("history", tuple(kept))],
                               "history rows name it and were not erased; whether they quote it cannot be told")
            return _answer("history", label, GONE, why="every history row that names it keeps ids only")
        return _answer("history", label, GONE, why="no history row holds its text")

    def desk_records(self) -> Answer:
        found: list[Found] = []
        tables: list[str] = []
        label = "the desk's own records (kept review scan, kept recall audits, decisions)"
        versions = list(self.s.versions)
        for table, (keys, columns) in DESK_RECORDS.items():
            if table not in self.names:
                continue
            rows = holding(self.conn, table, keys, columns, self.needles)
            by_id = []
            if table in ID_COLUMNS and versions:
                column = ID_COLUMNS[table]
                marks = ",".join("?" * len(versions))
                extra = " AND findings != '[]'" if table == "memdesk_review_items" else " AND query != ''"
                by_id = self.conn.exec_driver_sql(f'SELECT {", ".join(keys)} FROM "{table}" '
                                                  f'WHERE "{column}" IN ({marks}){extra}', tuple(versions)).all()
            if rows:
                tables.append(table)
            if rows or by_id:
                found.append(Found(table, tuple(dict.fromkeys(":".join(str(k) for k in r) for r in [*rows, *by_id]))))
        if found:
            why = ("kept records quote its text or keep its topic and excerpts (a kept recall audit keeps each "
                   "fact's topic as its question; the kept review scan keeps excerpts)")
            return _answer("desk_records", label, STILL, [*found, *(_table(t) for t in tables)], why)
        if not self.text_known():
            return self._unknown("desk_records", label)
        return _answer("desk_records", label, GONE, why="no record of the desk holds or names it")

    # -- indexes ----------------------------------------------------------------------------------------
    def vectors(self) -> Answer:
        label = "vector rows"
        if VECTOR_TABLE not in self.names:
            return _answer("vectors", label, GONE, why="the file has no vector index of the desk (a fact's own "
                                                       "embedding is part of its row)")
        wanted = list(dict.fromkeys([*self.s.versions, *self.fact_rows]))
        present = [f for f in wanted if self.conn.exec_driver_sql(
            f"SELECT 1 FROM {VECTOR_TABLE} WHERE fact_id = ?", (f,)).first() is not None]
        if present:
            facts = self.ws.layout.facts.name
            live = [f for f in present if self.conn.exec_driver_sql(
                f"SELECT 1 FROM {facts} WHERE id = ? AND superseded_by IS NULL", (f,)).first() is not None]
            reach = (f"{len(live)} of them of facts in force, which semantic search can return" if live else
                     "semantic search skips them now (their facts are superseded or deleted), but the rows — its "
                     "meaning, as a vector — stay in the file until the fact is purged")
            return _answer("vectors", label, STILL, [Found("fact", tuple(present))],
                           f"{len(present)} vector row(s) of it or of facts holding its text are in the vector "
                           f"index; {reach}")
        if not self.s.versions and not self.text_known():
            return self._unknown("vectors", label)
        return _answer("vectors", label, GONE, why="no vector row of it or of a fact holding its text")

    def other_tables(self, covered: Iterable[str]) -> Answer:
        """Every other table of the file (the product's other tables, agents, domains, the desk's
        receipts and tiers' bookkeeping), every text column."""
        label = "every other table of the file"
        if not self.text_known():
            return self._unknown("other_tables", label)
        found = []
        for table in sorted(self.names - set(covered)):
            columns = text_columns(self.conn, table)
            rows = holding(self.conn, table, ("rowid",), columns, self.needles) if columns else []
            if rows:
                found.append((table, [str(r[0]) for r in rows]))
        if not found:
            return _answer("other_tables", label, GONE, why=f"searched {len(self.names - set(covered))} other tables")
        return _answer("other_tables", label, STILL, [Found("table", tuple(t for t, _ in found))],
                       "; ".join(f"{t}: {len(r)} row(s)" for t, r in found))

    def mtm(self) -> Answer:
        label = "MemoryOS mid-term tier (pages, segments)"
        if not self.text_known():
            return self._unknown("tier.mtm", label)
        found = []
        for table, (keys, columns) in MTM_TABLES.items():
            if table in self.names:
                rows = holding(self.conn, table, keys, columns, self.needles)
                if rows:
                    found += [Found(table.removeprefix("memdesk_"), tuple(str(r[0]) for r in rows)), _table(table)]
        if found:
            return _answer("tier.mtm", label, STILL, found, "a mid-term page or segment holds its text; the next "
                           "promotion can write it into long-term memory again")
        return _answer("tier.mtm", label, GONE, why="no mid-term page or segment holds its text")

    def has_tiers(self) -> bool:
        for table in ("memdesk_memoryos_users", "memdesk_mtm_segments"):
            if table in self.names and self.conn.exec_driver_sql(f'SELECT 1 FROM "{table}" LIMIT 1').first():
                return True
        return False

    # -- helpers ----------------------------------------------------------------------------------------
    def text_known(self) -> bool:
        return self.s.text_known

    def _holds_fact(self, fact_id: str) -> bool:
        return fact_id in self.fact_rows

    def _unknown(self, key: str, label: str) -> Answer:
        return _answer(key, label, CANNOT_TELL, why=self.s.unknown_why)

    def covered(self) -> set[str]:
        """The tables the specific paths read (the rest is for ``other_tables``). The links table
        holds ids and the link's kind, nothing written in words: the graph path asks it by id."""
        lay = self.ws.layout
        return {lay.facts.name, lay.policies.name, lay.notes.name, lay.items.name, lay.conflicts.name,
                lay.beliefs.name, lay.edges.name, "memdesk_history", *DESK_RECORDS, *MTM_TABLES} | \
            shadow_tables(self.conn, self.names)


def shadow_tables(conn: Connection, names: set[str]) -> set[str]:
    """Virtual tables and their shadow tables (the full-text index's and the vector index's own storage,
    asked through their public interfaces by other paths)."""
    virtual = {r[0] for r in conn.exec_driver_sql(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'")}
    return {n for n in names if n in virtual or any(n.startswith(f"{v}_") for v in virtual)} | \
        {n for n in names if n.startswith("sqlite_")}


def text_columns(conn: Connection, table: str) -> list[str]:
    """Columns that can hold text: declared TEXT, CHAR, CLOB, BLOB or with no type."""
    out = []
    for row in conn.exec_driver_sql(f'PRAGMA table_info("{table}")'):
        declared = (row[2] or "").upper()
        if not declared or any(t in declared for t in ("CHAR", "CLOB", "TEXT", "BLOB")):
            out.append(row[1])
    return out

