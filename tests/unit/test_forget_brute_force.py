"""The forget check's verdicts match a brute-force search (issue 39, "Done when"): texts planted
in every place memory can hold text — facts (an e-mail address among them), an old version,
policies (one inactive, one naming a person), a note, a working-memory item, the MemoryOS
mid-term tier, a belief, the history (an edit's copy, a reason), the desk's records, a table
of the product the desk does not know, a backup, the write-ahead log — and one planted
nowhere. For each, every table and every file beside the workspace is searched row by row
and byte by byte, and the check must name exactly those tables, rows and files."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlean
from forget_truth import files_holding, named, rows_holding, tables_holding

from memorydesk.browse.forget.check import forget_check
from memorydesk.core.forget import probes
from memorydesk.core.forget.receipt import STILL
from memorydesk.lineage.tiers import TierEngine
from memorydesk.memory.reviewer import Reviewer
from memorydesk.memory.service import MemoryService
from memorydesk.store import files, open_workspace
from memorydesk.store.audit_tables import FACTS, RUNS

pytestmark = pytest.mark.slow  # the check's semantic paths load the real embedding model

T0 = 1_796_000_000
PLANTED = {  # text → where it is planted
    "qx-note-7781 jasper": "an agent's note",
    "zulu-4471-falcon": "a fact and an inactive policy",
    "heron-9931 mtm page": "a working-memory item and a mid-term page",
    "owl-5521 ticket": "the reason of a delete",
    "lynx-3390 edited": "an edit: the new version and the history's copy",
    "crane-8812 tickets": "a table of the product the desk does not know",
    "ibis-6610 belief": "a harmonized belief",
    "kite-2204 dismissed": "the reason of a dismissed finding",
    "wren-7070 audit": "a kept recall audit's question",
    "vole-1212 backup": "a fact purged since, kept in a backup",
    "gull-4040 last write": "the last write, still only in the write-ahead log",
    "jane.doe@acme-mail.com": "an e-mail address in a fact",
    "Ingrid Bergström": "a name (not only ASCII letters) in an active policy",
    "moth-0000 nowhere": "nowhere",
}


def _plant(path: Path) -> dict[str, str]:
    ids: dict[str, str] = {}
    with open_workspace(path, create=True) as ws:
        with ws.write() as conn:
            conn.execute(ws.layout.agents.insert().values(
                id="a1", name="Ada", title="Ada", agent_md_path="", workspace_id=ws.workspace_id, skills="",
                role="coder", created_at=T0))
            conn.exec_driver_sql("CREATE TABLE tickets_table (id TEXT PRIMARY KEY, title TEXT, body TEXT, n INTEGER)")
            conn.exec_driver_sql("INSERT INTO tickets_table VALUES ('t1', 'Rotate keys', 'see crane-8812 tickets', 3)")
            conn.execute(ws.layout.beliefs.insert().values(
                id="b1", workspace_id=ws.workspace_id, topic="ibis", content="the ibis-6610 belief holds",
                confidence=0.5, harmony_score=0.9, provenance_fact_ids="[]", provenance_agent_ids="[]",
                cluster_id="cluster-0", created_at=T0, updated_at=T0))
        svc = MemoryService(ws, embedder=False)
        for i, (d, t, c) in enumerate([("ops", "deploy", "Deploys go out through ArgoCD every weekday"),
                                       ("ops", "paging", "PagerDuty pages the on-call engineer"),
                                       ("code", "build", "The web app builds with pnpm and turbo")]):
            ids[t] = svc.propose_fact(domain=d, topic=t, content=c, now=T0 + i).fact_id
        ids["fact"] = svc.propose_fact(domain="ops", topic="falcon", content="the zulu-4471-falcon runbook",
                                       now=T0 + 10).fact_id
        svc.carry_over_grants([("coder", "ops", "write")])
        pid = svc.propose_policy(role="coder", domain="ops", rule="Page zulu-4471-falcon first", now=T0 + 11)
        svc.propose_policy(role="coder", domain="ops", rule="Refunds over 500 EUR need Ingrid Bergström", now=T0 + 12)
        svc.propose_fact(domain="ops", topic="escalation", content="Escalate billing to jane.doe@acme-mail.com",
                         now=T0 + 13)
        svc.update_my_notes("a1", "- qx-note-7781 jasper is the staging host")
        ids["item"] = svc.remember("a1", "heron-9931 mtm page reminder")
        engine = TierEngine(ws, clock=lambda: float(T0 + 20))
        item, _version = engine.remember("user-1", "a1", "the heron-9931 mtm page moved on", run_id="run-1")
        engine.promote_to_mtm(item)
        ids["backup"] = svc.propose_fact(domain="ops", topic="vole", content="vole-1212 backup only",
                                         now=T0 + 30).fact_id
        files.backup_copy(path)
        reviewer = Reviewer(ws, "alice", embedder=False)
        reviewer.set_policy_active(pid, False, reason="retired")
        reviewer.delete_facts([ids["paging"]], reason="closed as owl-5521 ticket")
        edited = reviewer.edit_fact(ids["build"], domain="code", topic="build", content="builds with lynx-3390 edited",
                                    confidence=0.9, reason="newer tool")
        ids["edited"] = edited.ids[-1]
        reviewer.dismiss_finding({"key": "k1", "kind": "fading", "item_kind": "fact", "item_id": ids["deploy"],
                                  "fingerprint": "x", "title": "fading"}, "fine: kite-2204 dismissed")
        with ws.write() as conn:  # a kept recall audit that asked a person's question
            conn.execute(RUNS.insert().values(id="r1", workspace_id=ws.workspace_id, at=T0, kind="queries"))
            conn.execute(FACTS.insert().values(run_id="r1", position=0, fact_id=ids["deploy"], stage="found",
                                               query="where is wren-7070 audit"))
        reviewer.purge_facts([ids["backup"]], reason="only the backup keeps it", backups="keep")
    return ids


@pytest.fixture
def planted(tmp_path: Path):
    """The planted workspace, its last write still in the log: a reader holds the file open, so
    closing the writer does not fold the log into the file."""
    path = tmp_path / "ws.db"
    ids = _plant(path)
    keeper = sqlean.connect(str(path))
    keeper.execute("SELECT count(*) FROM sqlite_master").fetchone()
    with open_workspace(path) as ws:
        MemoryService(ws, embedder=False).update_my_notes("a1", "- qx-note-7781 jasper is the staging host\n"
                                                                "- gull-4040 last write")
    yield path, ids
    keeper.close()


def _compare(ws, receipt, needles: list[str], written: list[str]) -> None:
    """Tables searched with ``needles`` (SQLite folds ASCII case); files byte for byte for the text as
    ``written`` (planted)."""
    folder, path = ws.path.parent, ws.path
    tables = set().union(*(tables_holding(path, n) for n in needles))
    assert named(receipt, "table") == tables
    on_disk = set().union(*(files_holding(folder, n.encode()) for n in written))
    assert named(receipt, "file", ("file", "wal", "backups")) == on_disk
    facts, lay = ws.layout.facts.name, ws.layout
    expected = {  # (kind the check names, table, key column)
        "policy": (lay.policies.name, "id"), "note": (lay.notes.name, "id"),
        "working_item": (lay.items.name, "id"), "belief": (lay.beliefs.name, "id"),
        "history": ("memdesk_history", "id"),
    }
    for kind, (table, key) in expected.items():
        assert named(receipt, kind) == set().union(*(rows_holding(path, table, key, n) for n in needles)), kind
    in_facts = set().union(*(rows_holding(path, facts, "id", n) for n in needles))
    assert named(receipt, "fact", ("fact", "versions", "copies")) == in_facts
    assert (receipt.verdict == STILL) == bool(tables or on_disk)


@pytest.mark.parametrize("text", sorted(PLANTED))
def test_a_typed_text_is_found_exactly_where_brute_force_finds_it(planted, text: str) -> None:
    path, _ids = planted
    with open_workspace(path, read_only=True) as ws:
        receipt = forget_check(ws, text=text)
        _compare(ws, receipt, [probes.fold(text)], [text])
    if text == "moth-0000 nowhere":
        assert receipt.gone_everywhere
    if text == "gull-4040 last write":  # not checkpointed yet: in the log, not in the file
        assert named(receipt, "file") == {"ws.db-wal"}
    if text == "vole-1212 backup":  # purged from the workspace, kept in the backup: only that path holds it
        assert [a.key for a in receipt.still] == ["backups"]
    if text == "heron-9931 mtm page":  # a workspace with tiers answers for each tier
        keys = {a.key: a.verdict for a in receipt.answers}
        assert keys["tier.stm"] == STILL and keys["tier.mtm"] == STILL and "tier.lpm" in keys


def test_a_fact_by_id_is_found_where_brute_force_finds_its_text(planted) -> None:
    path, ids = planted
    with open_workspace(path, read_only=True) as ws:
        receipt = forget_check(ws, fact_ids=[ids["fact"]])
        needles = probes.fact_needles("the zulu-4471-falcon runbook")
        assert needles == ["zulu-4471-falcon"]  # the identifier-like word: the whole content holds it
        _compare(ws, receipt, needles, needles)
        assert named(receipt, "policy")  # the inactive policy quotes it
