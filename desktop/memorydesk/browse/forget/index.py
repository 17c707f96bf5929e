"""The full-text index through its public interfaces: its vocabulary (an ``fts5vocab`` table
over it, made in the connection's ``temp`` schema — nothing is written to the file) and its
phrase queries. The index keeps the words of every row it was given — superseded and deleted
facts included — until a purge takes them out and merges the segments."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection

from memorydesk.browse.forget.subject import Subject
from memorydesk.core.forget.probes import index_tokens
from memorydesk.core.forget.receipt import CANNOT_TELL, GONE, STILL, Answer, Found
from memorydesk.store import Workspace

LABEL = "the full-text index's vocabulary"
_CHUNK = 500


def _vocab(conn: Connection, ws: Workspace) -> str:
    fts = ws.layout.fts
    name = f"memdesk_vocab_{fts}"
    conn.exec_driver_sql(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{name} USING fts5vocab(main, {fts}, row)")
    return f"temp.{name}"


def term_docs(conn: Connection, ws: Workspace, terms: Iterable[str]) -> dict[str, int]:
    """How many documents of the index hold each term (terms it does not hold are left out)."""
    terms = list(dict.fromkeys(terms))
    vocab = _vocab(conn, ws)
    out: dict[str, int] = {}
    for at in range(0, len(terms), _CHUNK):
        chunk = terms[at:at + _CHUNK]
        out.update(dict(conn.exec_driver_sql(
            f"SELECT term, doc FROM {vocab} WHERE term IN ({','.join('?' * len(chunk))})", tuple(chunk)).all()))
    return {t: int(n) for t, n in out.items()}


def phrase_rowids(conn: Connection, ws: Workspace, tokens: list[str]) -> list[int]:
    """Rowids of the documents whose topic or content holds ``tokens`` as a phrase."""
    fts = ws.layout.fts
    phrase = '{topic content} : "' + " ".join(t.replace('"', "") for t in tokens) + '"'
    return [int(r[0]) for r in conn.exec_driver_sql(f"SELECT rowid FROM {fts} WHERE {fts} MATCH ?", (phrase,))]


def vocabulary(ws: Workspace, conn: Connection, subject: Subject) -> Answer:
    """Does the index still hold its words? For each needle: every token in the vocabulary, then
    the documents holding them as a phrase — mapped to facts, or to no row at all (an entry the
    index kept after its row went)."""
    phrases = [t for t in (index_tokens(n) for n in subject.needles) if t]
    if not phrases:
        why = subject.unknown_why if not subject.needles else "its text has no word the index keeps"
        return Answer("fts_vocabulary", LABEL, "file", CANNOT_TELL if not subject.needles else GONE, why=why)
    docs = term_docs(conn, ws, [t for p in phrases for t in p])
    rowids: set[int] = set()
    for tokens in phrases:
        if all(docs.get(t, 0) > 0 for t in tokens):
            rowids.update(phrase_rowids(conn, ws, tokens))
    if not rowids:
        return Answer("fts_vocabulary", LABEL, "file", GONE, why="the index holds none of its phrases")
    fact_rowids = rowid_facts(conn, ws, rowids)
    facts = sorted({fact_rowids[r] for r in rowids if r in fact_rowids})
    orphans = sorted(str(r) for r in rowids if r not in fact_rowids)
    why = f"the index still holds its words for {len(rowids)} row(s)"
    if orphans:
        why += f", {len(orphans)} of them with no fact row any more"
    found = (Found("fact", tuple(facts)), Found("rowid", tuple(orphans)))
    return Answer("fts_vocabulary", LABEL, "file", STILL, tuple(f for f in found if f.ids), why)


def rowid_facts(conn: Connection, ws: Workspace, rowids: Iterable[int]) -> dict[int, str]:
    rowids = list(rowids)
    out: dict[int, str] = {}
    facts = ws.layout.facts.name
    for at in range(0, len(rowids), _CHUNK):
        chunk = rowids[at:at + _CHUNK]
        out.update({int(r): i for r, i in conn.exec_driver_sql(
            f"SELECT rowid, id FROM {facts} WHERE rowid IN ({','.join('?' * len(chunk))})", tuple(chunk))})
    return out

