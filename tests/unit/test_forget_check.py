"""The forget check tells the truth (issue 39, point 3): the same secret planted in a fact, the
version it superseded, another agent's copy, a policy and a note; deleted, checked (many paths
still hold it), purged, checked (gone) — and every verdict compared with what the agent's own
search and preamble return and with a byte search of every file beside the workspace."""

from __future__ import annotations

from pathlib import Path

import pytest
from forget_truth import files_holding, named, tables_holding, verdicts

from fixtures.forget_world import SECRET, TOPIC, build
from memorydesk.browse.forget import subject as forget_subject
from memorydesk.browse.forget.check import forget_check
from memorydesk.browse.forget.index import term_docs
from memorydesk.browse.forget.subject import Remembered
from memorydesk.core.forget import probes
from memorydesk.core.forget.receipt import CANNOT_TELL, GONE, STILL
from memorydesk.memory.actions.forget import kept_receipts
from memorydesk.memory.reviewer import Reviewer
from memorydesk.search.agent import MODES, search
from memorydesk.search.cache import snapshot_version
from memorydesk.search.hybrid import fact_briefs, graph_ids
from memorydesk.search.preamble import build_preamble
from memorydesk.store import files, open_workspace

pytestmark = pytest.mark.slow  # the real embedding model: semantic paths need vectors


def _queries(ws, fact_id: str, remembered=None) -> dict[str, list[str]]:
    """The queries the check asks (its subject is public): topic and distinctive words."""
    def docs(terms):
        with ws.read() as conn:
            return term_docs(conn, ws, terms)

    subj = forget_subject.for_facts(ws, [fact_id], remembered, docs)
    out: dict[str, list[str]] = {}
    for kind, query in subj.queries:
        out.setdefault(kind, []).append(query)
    return out


def _agent_truth(ws, queries: dict[str, list[str]], versions: set[str]) -> dict[str, set[str]]:
    """Per search path, the facts the agent's own search returns that are a version or hold the secret."""
    truth = {}
    for mode in MODES:
        for kind, qs in queries.items():
            truth[f"search.{mode}.{kind}"] = {h.id for q in qs for h in search(ws, q, mode=mode).hits
                                              if h.id in versions or SECRET in h.content}
    return truth


def _preamble_truth(ws, queries: dict[str, list[str]]) -> set[str]:
    """The agents whose preamble, for a task naming it, holds the secret."""
    with ws.read() as conn:
        agents = [r[0] for r in conn.exec_driver_sql("SELECT id FROM agents_table")]
    return {a for a in agents for qs in queries.values() for q in qs
            if SECRET in build_preamble(ws, a, probes.task_naming(q))}


def _compare(ws, receipt, queries, versions) -> None:
    """Every verdict against the truth found without the check."""
    folder = ws.path.parent
    v = verdicts(receipt)
    for key, ids in _agent_truth(ws, queries, versions).items():
        answer = next(a for a in receipt.answers if a.key == key)
        assert answer.ids_of("fact") == ids, key
        assert v[key] == (STILL if ids else GONE), key
    agents = _preamble_truth(ws, queries)
    assert named(receipt, "agent", ("preamble",)) == agents
    assert v["preamble"] == (STILL if agents else GONE)
    with ws.read() as conn:  # the graph voice's walk from the facts it was linked to
        snapshot_version(ws, conn)
        reached = graph_ids(ws, conn, [n for n in receipt.neighbours if n not in versions])
        briefs = fact_briefs(ws, conn, reached)
    walked = {f for f in reached if f in versions or SECRET in briefs[f].content}
    assert named(receipt, "fact", ("graph",)) == walked and v["graph"] == (STILL if walked else GONE)
    on_disk = files_holding(folder, SECRET.encode())
    assert named(receipt, "file", ("file", "wal", "backups")) == on_disk
    tables = tables_holding(ws.path, SECRET)
    assert named(receipt, "table") == tables


def test_delete_leaves_it_in_many_paths_and_purge_takes_it_out_of_every_one(tmp_path: Path) -> None:
    w = build(tmp_path / "ws.db")
    content = f"The staging Stripe secret key is {SECRET} and rotates weekly"
    with open_workspace(w.path) as ws:
        reviewer = Reviewer(ws, "alice")
        reviewer.delete_facts([w.fact], reason="a live key in memory (ticket SEC-1)")
        queries = _queries(ws, w.fact)
        assert queries["topic"] == [TOPIC] and queries["words"]
        receipt = forget_check(ws, fact_ids=[w.fact])
        v = verdicts(receipt)
        # the soft delete leaves it wherever it was: the row, its old version, the copy, the policy, the note
        for key in ("fact", "versions", "copies", "policies", "notes", "conflicts", "fts_vocabulary", "vectors",
                    "backups", "preamble", "search.keyword.topic", "search.hybrid.topic"):
            assert v[key] == STILL, (key, receipt.to_json())
        # the memory job's finding 8: each sentence says exactly what its path found, none contradicts another
        why = {a.key: a.why for a in receipt.answers}
        assert "reaches them" not in why["vectors"]  # it says which rows search can return (those in force)
        assert "1 of them of facts in force, which semantic search can return" in why["vectors"]  # the copy
        assert all(f.ids for a in receipt.answers for f in a.found)  # never an empty list ("0 facts: ")
        text = forget_check(ws, text=SECRET)
        assert all(f.ids for a in text.answers for f in a.found)
        backups = next(a for a in text.answers if a.key == "backups")
        assert backups.verdict == STILL and "purg" in backups.why
        assert named(receipt, "fact", ("versions",)) == {w.version}
        assert named(receipt, "fact", ("copies",)) == {w.copy}
        assert named(receipt, "policy") == {w.policy} and named(receipt, "note") == {w.note}
        assert named(receipt, "section", ("preamble",)) == {"policies", "note", "fact lines"}
        assert named(receipt, "fact", ("preamble",)) == {w.copy}  # the copy is active: a fact line
        assert named(receipt, "agent", ("preamble",)) == {"a-pay", "a-ops", "a-rev"}  # the policy goes to all
        assert any("is deleted, not purged" in n and "Purge removes" in n for n in receipt.notes)
        own = next(n for n in receipt.notes if n.startswith("What quotes it on its own"))
        assert all(i in own for i in (w.copy, w.policy, w.note))  # a purge of the fact leaves these
        assert SECRET not in str(receipt.to_json()) and SECRET not in receipt.to_markdown()  # content-free
        _compare(ws, receipt, queries, {w.fact, w.version})
        reviewer.keep_forget_receipt(receipt, "SEC-1: after the delete")

        reviewer.purge_facts([w.fact, w.copy], reason="SEC-1", backups="erase")
        reviewer.purge_items("note", [w.note], "SEC-1", backups="erase")
        reviewer.purge_items("policy", [w.policy], "SEC-1", backups="erase")
        remembered = {w.fact: Remembered(TOPIC, content)}  # what the window read before it purged
        after = forget_check(ws, fact_ids=[w.fact], remembered=remembered)
        assert after.gone_everywhere, after.to_markdown()
        assert set(after.versions) >= {w.fact, w.version}  # the earlier receipt named the version
        assert set(after.neighbours) == set(receipt.neighbours) and after.neighbours  # the graph's start, recorded
        _compare(ws, after, _queries(ws, w.fact, remembered), {w.fact, w.version})
        assert files_holding(tmp_path, SECRET.encode()) == set() and tables_holding(ws.path, SECRET) == set()
        assert len(files.backups_beside(ws.path)) == 1  # erased there, not deleted
        with ws.read() as conn:
            assert [r.receipt_id for r in kept_receipts(ws, conn, [w.version])] == [receipt.receipt_id]


def test_without_its_text_a_purged_fact_cannot_be_proven_gone(tmp_path: Path) -> None:
    w = build(tmp_path / "ws.db")
    with open_workspace(w.path) as ws:
        Reviewer(ws, "alice").purge_facts([w.fact], reason="SEC-2", backups="erase")
        receipt = forget_check(ws, fact_ids=[w.fact])  # nothing remembered, no backup holds it
        v = verdicts(receipt)
        assert not receipt.gone_everywhere
        for key in ("search.keyword.topic", "preamble", "copies", "notes", "policies", "file"):
            assert v[key] == CANNOT_TELL, key
        assert v["fact"] == GONE and v["versions"] == GONE and v["vectors"] == GONE
        assert any("check its words with --text" in n for n in receipt.notes)
        text = forget_check(ws, text=SECRET)  # the words themselves: the copy, the policy and the note hold them
        assert named(text, "fact", ("copies",)) == {w.copy}
        assert named(text, "policy") == {w.policy} and named(text, "note") == {w.note}
        assert SECRET not in str(text.to_json())
