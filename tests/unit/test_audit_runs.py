"""Kept recall-audit runs (``browse.audit.runs``) and two of them compared (``browse.audit.compare``),
on a small hand-built workspace where the changes between two runs are made for real: a newer
near-duplicate written by an agent, an edit and a delete through the reviewer, and 2,000 hours
of decay on a fast-decaying fact among slow ones. Each run's stages are checked against the
agent's own search at that clock before the comparison's causes are."""

from __future__ import annotations

import shutil
import sqlite3
import threading
import time
import uuid
from pathlib import Path

import pytest

from memorydesk.browse.audit import compare as audit_compare
from memorydesk.browse.audit import job as audit_job
from memorydesk.browse.audit import runs as audit_runs
from memorydesk.core.errors import BadInput
from memorydesk.core.product.rules import RULES_VERSION
from memorydesk.memory.audit_runs import save_run
from memorydesk.memory.reviewer import Reviewer
from memorydesk.search import audit
from memorydesk.search.agent import search
from memorydesk.search.copies import follow
from memorydesk.search.loss import lost_at
from memorydesk.store import open_workspace


def as_saved(ws, report, **kw) -> audit_runs.Run:
    """Keep ``report`` (``memory.audit_runs.save_run``) and read it back as the window and the command do."""
    return audit_runs.as_run(save_run(ws, report, **kw))


H = 3600
NOW = int(time.time()) - 10  # run A's clock; the reviewer's changes come after it (its history is timed now)
LATER = NOW + 2000 * H  # run B's clock


def fid(n: int) -> str:
    return str(uuid.UUID(int=n, version=4))


def _fact(n: int, topic: str, content: str, age_h: float, mtype: str = "fact", at: float = NOW) -> dict:
    return {"id": fid(n), "domain": "ops" if n < 200 else "retention", "topic": topic, "content": content,
            "confidence": 1.0, "memory_type": mtype, "veracity": "stated", "created_at": int(at - age_h * H),
            "updated_at": int(at - age_h * H)}


def _rows() -> list[dict]:
    rows = [_fact(n, f"filler{n}", f"zeta{n} omega{n} kappa{n}", age_h=n) for n in range(1, 41)]
    rows.append(_fact(101, "quarterly budget", "The quarterly budget review happens on the first monday", 5))
    rows.append(_fact(103, "legacy billing", "Legacy billing exports run from the old cron host", 6))
    rows.append(_fact(104, "printer toner", "The printer toner is in the supply closet", 7))
    # an event (fast decay) that is the best match for its topic, among twelve preferences (slow decay)
    rows.append(_fact(200, "retention policy", "retention policy", 1, mtype="event"))
    for n in range(201, 213):
        rows.append(_fact(n, f"retention policy note{n}", f"retention policy for team{n} logs{n} in region{n}", 2,
                          mtype="preference"))
    return rows


@pytest.fixture
def world(tmp_path: Path) -> Path:
    path = tmp_path / "runs.db"
    with open_workspace(path, create=True) as ws, ws.write() as conn:
        conn.execute(ws.layout.facts.insert(),
                     [{"workspace_id": ws.workspace_id, **r} for r in sorted(_rows(), key=lambda r: r["created_at"])])
    return path


def _check_stages(ws, run, clock) -> None:
    """Every stored stage is the agent's own search's at that clock."""
    for f in audit_runs.run_facts(ws, run):
        assert f.stage == lost_at(search(ws, f.query, now=clock), f.fact_id).stage, f


def test_a_run_is_kept_with_what_makes_it_comparable(world: Path) -> None:
    with open_workspace(world) as ws:
        report = audit.audit_workspace(ws, sample=20, seed=4, now=NOW, what_if=["no-decay"])
        run = as_saved(ws, report, sample=20, seed=4, what_if=["no-decay"])
        stored = audit_runs.get_run(ws, run.id)
        assert stored == run and len(run.id) == 8 and int(run.id, 16) >= 0
        assert (stored.workspace_id, stored.kind, stored.sample, stored.seed, stored.what_if, stored.rules_version) == \
            (ws.workspace_id, "topics", 20, 4, ("no-decay",), RULES_VERSION)
        assert stored.product_schema == f"{ws.layout.kind} 13" and stored.at == NOW
        assert (stored.facts, stored.found, stored.recall) == (20, report["summary"]["found"],
                                                               report["summary"]["recall_at_10"])
        facts = audit_runs.run_facts(ws, stored)
        assert [f.fact_id for f in facts] == [f["id"] for f in report["facts"]]  # the sample, in its order
        assert [(f.stage, f.rank) for f in facts] == [(f["lost_at"], f["rank"]) for f in report["facts"]]
        assert stored.summary["by_domain"] == report["summary"]["by_domain"]
        assert audit_runs.get_run(ws, "latest") == stored
        with pytest.raises(BadInput, match="no 'previous' run"):
            audit_runs.get_run(ws, "previous")
        with pytest.raises(BadInput, match="keeps no recall-audit run 'abcd0123'"):
            audit_runs.get_run(ws, "abcd0123")
        _check_stages(ws, stored, NOW)


def test_read_only_without_our_tables_lists_no_runs(tmp_path: Path, product_db: Path) -> None:
    with open_workspace(product_db, read_only=True) as ws:
        assert ws.desk_schema == 0 and not audit_runs.kept(ws)
        assert audit_runs.list_runs(ws) == ([], 0)
        with pytest.raises(BadInput, match="keeps no recall-audit runs yet"):
            audit_runs.get_run(ws, "latest")


def test_two_runs_compared_name_what_changed(world: Path) -> None:
    with open_workspace(world) as ws:
        a = as_saved(ws, audit.audit_workspace(ws, now=NOW))
        _check_stages(ws, a, NOW)
        # between the runs: an agent writes a near-duplicate of 101 that matches its topic better; a person
        # edits 103 and deletes 104
        with ws.write() as conn:
            dup = _fact(300, "quarterly budget", "quarterly budget review happens on the first monday", -1)
            conn.execute(ws.layout.facts.insert().values(workspace_id=ws.workspace_id, **dup))
        reviewer = Reviewer(ws, "dana", embedder=False)
        edited = reviewer.edit_fact(fid(103), domain="ops", topic="legacy billing",
                                    content="Legacy billing exports now run from the new cron host", confidence=1.0,
                                    reason="the host moved")
        reviewer.delete_facts([fid(104)], reason="obsolete")
        # run B's clock after the changes, however long the suite took to reach this test (their history is timed now)
        b_at = max(NOW + 60, int(time.time()) + 1)
        b = as_saved(ws, audit.audit_workspace(ws, now=b_at))
        _check_stages(ws, b, b_at)
        report = audit_compare.compare(ws, a.id, b.id)
        # and 2,000 hours later, the data unchanged
        c = as_saved(ws, audit.audit_workspace(ws, now=LATER))
        _check_stages(ws, c, LATER)
        aged = audit_compare.compare(ws, b.id, c.id)
    fa = {f.fact_id: f for f in audit_runs.run_facts(open_workspace(world, read_only=True), a)}
    assert report["a"]["run"] == a.id and report["b"]["run"] == b.id
    assert report["a"]["recall"] == a.recall and report["b"]["recall"] == b.recall
    lost = {e["id"]: e for e in report["newly_lost"]}
    # 101: found, then lost to MMR against the newer near-duplicate, which is named
    assert fa[fid(101)].stage == "found"
    assert lost[fid(101)]["from"] == "found" and lost[fid(101)]["to"] == "mmr"
    assert lost[fid(101)]["cause"] == "near_duplicate" and fid(300) in lost[fid(101)]["why"]
    assert "written after the first run" in lost[fid(101)]["why"]
    # 200: the best match of its topic while fresh; 2,000 hours on, an event weighs nothing beside preferences
    assert fa[fid(200)].stage == "found"
    decayed = {e["id"]: e for e in aged["newly_lost"]}
    moved = decayed[fid(200)]
    assert (moved["from"], moved["to"], moved["cause"]) == ("found", "decay", "decay")
    assert "aged into decay: 2000.0 days older" not in decayed[fid(200)]["why"]
    assert "aged into decay: 83.3 days older than in the first run" in decayed[fid(200)]["why"]
    assert "the workspace's data is the same in both runs: only time (decay) moved" in aged["notes"]
    assert aged["only_in_a"] == aged["only_in_b"] == []
    # every newly lost fact was found in run a and is not in run b; brought back the reverse
    fb = {f.fact_id: f for f in audit_runs.run_facts(open_workspace(world, read_only=True), b)}
    assert set(lost) == {k for k in fa if k in fb and fa[k].stage == "found" != fb[k].stage}
    assert {e["id"] for e in report["brought_back"]} == {
        k for k in fa if k in fb and fb[k].stage == "found" != fa[k].stage}
    # the edited and the deleted facts are apart, with what the history says
    only_a = {e["id"]: e for e in report["only_in_a"]}
    assert set(only_a) == {fid(103), fid(104)}
    assert "edit" in only_a[fid(103)]["why"] and "dana" in only_a[fid(103)]["why"]
    assert "delete" in only_a[fid(104)]["why"] and "obsolete" in only_a[fid(104)]["why"]
    only_b = {e["id"]: e for e in report["only_in_b"]}
    new_103 = next(i for i in edited.ids if i != fid(103))
    assert set(only_b) == {fid(300), new_103}
    assert "edit" in only_b[new_103]["why"]
    assert "written after run" in only_b[fid(300)]["why"]
    # groups: per domain, memory type, age and veracity, each with both runs' recall computed from the facts
    domains = {g["label"]: g for g in report["groups"] if g["group"] == "domain"}
    ret_a = [f for f in fa.values() if f.domain == "retention"]
    assert domains["retention"]["a"] == {"facts": len(ret_a), "found": sum(f.stage == "found" for f in ret_a),
                                         "recall": round(sum(f.stage == "found" for f in ret_a) / len(ret_a), 4)}
    assert {g["group"] for g in report["groups"]} == {"domain", "memory_type", "age", "veracity"}


def test_the_gate_fails_past_the_drop_and_passes_within(world: Path) -> None:
    with open_workspace(world) as ws:
        a = as_saved(ws, audit.audit_workspace(ws, now=NOW))
        same, same_facts = audit_runs.unsaved_run(ws, audit.audit_workspace(ws, now=NOW))
        assert audit_compare.gate(audit_compare.compare_runs(ws, a, same, b_facts=same_facts), 0.0) == []
        # an agent writes a closer twin of ten facts that come back: each original now loses to MMR
        with ws.write() as conn:
            conn.execute(ws.layout.facts.insert(), [
                {"workspace_id": ws.workspace_id, **_fact(500 + n, f"filler{n}", f"zeta{n} omega{n}", -1)}
                for n in range(1, 11)])
        b, b_facts = audit_runs.unsaved_run(ws, audit.audit_workspace(ws, now=NOW + 60))
        report = audit_compare.compare_runs(ws, a, b, b_facts=b_facts)
        twins = {e["id"]: e for e in report["newly_lost"] if e["cause"] == "near_duplicate"}
        assert set(twins) == {fid(n) for n in range(1, 11)}
        both = report["both"]  # like with like: the facts asked in both runs (the ten new twins are not)
        assert both["facts"] == a.facts and report["change"] == round(both["b"] - both["a"], 4) < -0.02
        failures = audit_compare.gate(report, 0.02)
        assert failures[0] == (f"recall@10 of the {a.facts} facts in both runs fell from {both['a']:.1%} to "
                               f"{both['b']:.1%} ({report['change'] * 100:+.1f} points; at most 2.0 allowed)")
        assert audit_compare.gate(report, 1.0) == []


def test_runs_of_another_workspace_and_across_a_schema_change_are_refused(world: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    with open_workspace(other, create=True) as ws:
        foreign = as_saved(ws, audit.audit_workspace(ws, now=NOW))
    with open_workspace(world) as ws:
        mine = as_saved(ws, audit.audit_workspace(ws, now=NOW))
    # the other workspace's runs copied in with its tables (rows copied from file to file)
    with sqlite3.connect(world) as conn:
        conn.execute("ATTACH ? AS o", (str(other),))
        conn.execute("INSERT INTO memdesk_audit_runs SELECT * FROM o.memdesk_audit_runs")
        conn.execute("INSERT INTO memdesk_audit_facts SELECT * FROM o.memdesk_audit_facts")
    with open_workspace(world, read_only=True) as ws:
        assert audit_runs.list_runs(ws) == ([audit_runs.get_run(ws, mine.id)], 1)
        with pytest.raises(BadInput, match="taken on another workspace"):
            audit_runs.get_run(ws, foreign.id)
    # a copy of the file: the same workspace and rows, runs included; they are the original's, not the copy's
    copy = tmp_path / "copy.db"
    for suffix in ("", "-wal"):  # cp of a file in WAL mode: the file and its log
        if Path(f"{world}{suffix}").exists():
            shutil.copyfile(f"{world}{suffix}", f"{copy}{suffix}")
    with open_workspace(copy, read_only=True) as ws:
        assert audit_runs.list_runs(ws) == ([], 2)
        with pytest.raises(BadInput, match=f"run {mine.id} was taken in another file .*copy.db is a copy of it"):
            audit_runs.get_run(ws, mine.id)
    # the product upgrades the file's schema: a run from before is not comparable with one after
    with sqlite3.connect(world) as conn:
        conn.execute("PRAGMA user_version = 14")
    with open_workspace(world) as ws:
        after = as_saved(ws, audit.audit_workspace(ws, now=NOW))
        with pytest.raises(BadInput, match=f"run {mine.id} was taken before runs.db's schema changed"):
            audit_compare.compare(ws, mine.id, after.id)
        with pytest.raises(BadInput, match="the same run"):
            audit_compare.compare(ws, after.id, "latest")


def test_an_audit_waits_for_searchs_copies_being_built_and_says_so(world: Path) -> None:
    """Point 6: the build is started on its thread, and held back from publishing (its lock is held here)
    until the audit has started: the audit's first word is that it waits, and every fact is searched
    with the copies in place."""
    follow.configure(background=True)  # the suite's fixture puts it back
    with open_workspace(world, read_only=True) as ws:
        held = follow.copies_of(ws)
        said: list[str] = []
        ready: list[bool] = []
        out: list[dict] = []

        def progress(done: int, total: int, text: str) -> None:
            said.append(text)
            if total:
                ready.append(held.state is not None)

        with held.lock:
            follow.wait_ready(ws, timeout=0)  # starts the build on its thread
            assert held.builder is not None and held.state is None
            auditing = threading.Thread(target=lambda: out.append(
                audit_job.run_audit(ws, audit_job.Plan(sample=5, seed=1), progress=progress, now=NOW)))
            auditing.start()
            time.sleep(0.5)
            assert said == [audit_job.WAITING]  # waiting, not auditing through the product's SQL
        auditing.join(120)
        assert said[0] == audit_job.WAITING and said[1:] and set(said[1:]) == {audit_job.AUDITING}
        assert ready and all(ready)
        follow.configure(background=False)
        assert out[0] == audit.audit_workspace(ws, sample=5, seed=1, now=NOW)  # the same answers
