"""The forget receipt (issue 39, point 2): content-free, kept with the history through the memory
layer (one row of our own, no product table touched), passed by Undo and Redo, never erased by a
later purge, exportable as JSON and Markdown; and the two gaps the check found in purge — a
policy could not be purged, and the desk's own records kept a purged fact's text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from forget_truth import files_holding, tables_holding

from memorydesk import cli
from memorydesk.browse.forget.check import forget_check
from memorydesk.core.forget.receipt import Receipt
from memorydesk.memory.actions.forget import kept_receipts
from memorydesk.memory.reviewer import Reviewer
from memorydesk.memory.service import MemoryService
from memorydesk.store import files, open_workspace
from memorydesk.store.audit_tables import FACTS, RUNS

pytestmark = pytest.mark.slow  # the check's semantic paths load the real embedding model

TEXT = "Deploys go out through ArgoCD every weekday at 10:00"


def _product_counts(path: Path) -> dict[str, int]:
    with open_workspace(path, read_only=True) as ws, ws.read() as conn:
        names = [r[0] for r in conn.exec_driver_sql(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'memdesk_%' "
            "AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%'")]
        return {n: conn.exec_driver_sql(f'SELECT count(*), total(length(quote("{n}"))) FROM "{n}"').first()[0]
                for n in names}


def test_a_receipt_is_kept_in_one_history_row_and_undo_passes_it_by(product_db: Path, capsys) -> None:
    with open_workspace(product_db) as ws:
        reviewer = Reviewer(ws, "alice", embedder=False)
        deleted = reviewer.delete_facts(["f-03"], reason="ticket OPS-7")
        receipt = forget_check(ws, fact_ids=["f-03"])
        before = _product_counts(product_db)
        kept = reviewer.keep_forget_receipt(receipt, "OPS-7")
        assert _product_counts(product_db) == before  # no product table touched
        assert kept.entity == "forget" and kept.ids == [receipt.receipt_id] and len(kept.history_ids) == 1
        assert kept.changes.history and "forget" in {k.value for k in kept.changes.kinds}
        with ws.read() as conn:
            row = conn.exec_driver_sql("SELECT entity, entity_id, action, reason, detail FROM memdesk_history "
                                       "WHERE id = ?", (kept.history_ids[0],)).first()
            assert (row[0], row[1], row[2], row[3]) == ("forget", receipt.receipt_id, "check", "OPS-7")
            assert Receipt.from_json(json.loads(row[4])["receipt"]).to_json() == receipt.to_json()
            assert TEXT not in row[4] and "ArgoCD" not in row[4]  # content-free
        undone = reviewer.undo(reason="oops")  # Edit ▸ Undo takes back the delete, not the receipt
        assert undone.ids == ["f-03"] and deleted.history_ids[0] != kept.history_ids[0]
        with ws.read() as conn:
            assert conn.exec_driver_sql("SELECT superseded_by FROM memory_facts_table WHERE id = 'f-03'").scalar() \
                is None
            assert [r.receipt_id for r in kept_receipts(ws, conn, ["f-03"])] == [receipt.receipt_id]
        reviewer.redo()  # the receipt after the undo does not end redo either
        with pytest.raises(Exception, match="cannot be undone"):
            reviewer.undo(kept.history_ids[0])
    code = cli.main(["history", str(product_db), "--kind", "forget", "--json"])
    listed = json.loads(capsys.readouterr().out)
    assert code == 0 and len(listed) == 1 and listed[0]["summary"].startswith(f"forget check {receipt.receipt_id}")


def test_a_later_purge_erases_the_deletes_detail_but_not_the_receipt(product_db: Path) -> None:
    with open_workspace(product_db) as ws:
        reviewer = Reviewer(ws, "alice", embedder=False)
        reviewer.delete_facts(["f-03"], reason="ticket OPS-7")
        receipt = forget_check(ws, fact_ids=["f-03"])
        reviewer.keep_forget_receipt(receipt, "OPS-7")
        reviewer.purge_facts(["f-03"], reason="OPS-7", backups="erase")
        with ws.read() as conn:
            details = dict(conn.exec_driver_sql("SELECT entity || '.' || action, detail FROM memdesk_history").all())
            assert details["fact.delete"] == '{"purged":true}'
            assert json.loads(details["forget.check"])["receipt"]["receipt_id"] == receipt.receipt_id


def test_the_receipt_exports_as_json_and_markdown_without_the_text(product_db: Path, capsys) -> None:
    code = cli.main(["forget-check", str(product_db), "f-03", "--json"])
    out = capsys.readouterr().out
    assert code == 1 and "ArgoCD" not in out
    doc = json.loads(out)
    assert doc["subject"] == {"fact_ids": ["f-03"]} and doc["verdict"] == "still" and doc["data_stamp"]
    assert {p["path"] for p in doc["paths"]} >= {"search.keyword.topic", "preamble", "graph", "fts_vocabulary",
                                                  "wal", "backups", "file"}
    code = cli.main(["forget-check", str(product_db), "--text", "ArgoCD every weekday", "--markdown"])
    md = capsys.readouterr().out
    assert code == 1 and md.startswith("# Forget check fc-") and "ArgoCD" not in md
    assert "| keyword search for the text | still returns it | fact f-03 |" in md


def test_a_policy_can_be_purged_with_every_copy_the_history_kept(tmp_path: Path) -> None:
    path = tmp_path / "ws.db"
    secret = "hunter2-Zq81-staging-vault"
    with open_workspace(path, create=True) as ws:
        with ws.write() as conn:
            conn.execute(ws.layout.agents.insert().values(id="a1", name="Ada", title="Ada", agent_md_path="",
                                                          workspace_id=ws.workspace_id, skills="", created_at=0))
        svc = MemoryService(ws, embedder=False)
        svc.carry_over_grants([("coder", "ops", "write")])
        pid = svc.propose_policy(role="coder", domain="ops", rule=f"The vault password is {secret}")
        files.backup_copy(path)
        reviewer = Reviewer(ws, "alice", embedder=False)
        edited = reviewer.edit_policy(pid, domain="ops", rule=f"Use {secret} only from the bastion",
                                      required_role=None, reason="narrower")
        new = edited.ids[-1]
        assert tables_holding(path, secret) == {"memory_policies_table", "memdesk_history"}
        before = forget_check(ws, text=secret)
        assert {a.key for a in before.still} >= {"policies", "history", "preamble", "backups"}
        result = reviewer.purge_items("policy", [pid, new], "a password in a rule", backups="erase")
        assert "2 policy(s) purged" in result.message
        after = forget_check(ws, text=secret)
        assert after.gone_everywhere, after.to_markdown()
    assert tables_holding(path, secret) == set() and files_holding(tmp_path, secret.encode()) == set()


def test_purge_erases_the_desks_own_records_of_the_fact(product_db: Path) -> None:
    with open_workspace(product_db) as ws:
        reviewer = Reviewer(ws, "alice", embedder=False)
        reviewer.dismiss_finding({"key": "k", "kind": "fading", "item_kind": "fact", "item_id": "f-03",
                                  "fingerprint": "x", "title": "fading"}, "reviewed by ops")
        with ws.write() as conn:  # a kept recall audit asked for f-03 by its topic; the kept scan has an excerpt
            conn.execute(RUNS.insert().values(id="r1", workspace_id=ws.workspace_id, at=0, kind="topics"))
            conn.execute(FACTS.insert().values(run_id="r1", position=0, fact_id="f-03", query="deploy", stage="found"))
            conn.exec_driver_sql("INSERT INTO memdesk_review_items VALUES ('fact', 'f-03', 'fp', ?)",
                                 (json.dumps([{"evidence": {"excerpt": "through ArgoCD every weekday"}}]),))
        before = forget_check(ws, fact_ids=["f-03"])
        desk = next(a for a in before.answers if a.key == "desk_records")
        assert desk.verdict == "still" and {f.kind for f in desk.found} >= {"memdesk_audit_facts",
                                                                          "memdesk_review_items"}
        reviewer.purge_facts(["f-03"], reason="OPS-7", backups="erase")
        with ws.read() as conn:
            assert conn.exec_driver_sql("SELECT query, stage FROM memdesk_audit_facts").all() == [("", "found")]
            assert conn.exec_driver_sql(
                "SELECT count(*) FROM memdesk_review_items WHERE item_id = 'f-03'").scalar() == 0
            assert conn.exec_driver_sql("SELECT count(*) FROM memdesk_review_decisions").scalar() == 0
