"""A MemoryOS directory that keeps changing, imported after each change: tier transitions,
versions that stay with their QA, what a half-done migration looks like, promotions,
a changed profile, an evicted session, and imports that fail or are refused."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select, text

from fixtures.memoryos_dir import MemoryOSDir, knowledge, page, qa, session
from memorydesk.core.errors import BadInput
from memorydesk.core.health.scalar import classify
from memorydesk.core.health.table import HealthState
from memorydesk.lineage import receipt_store
from memorydesk.lineage.adapters.memoryos import qa_version
from memorydesk.lineage.memoryos import import_directory
from memorydesk.lineage.memoryos.lineage import stable_id
from memorydesk.lineage.tiers import PAGES, SEGMENTS
from memorydesk.store import integrity, open_workspace

LATER = datetime(2030, 1, 1, tzinfo=UTC)


def stm_three(tmp_path: Path) -> MemoryOSDir:
    folder = MemoryOSDir(tmp_path / "data")
    folder.short_term = [qa(1, "2025-05-01 10:00:00"), qa(2, "2025-05-01 10:05:00"), qa(3, "2025-05-01 10:10:00")]
    folder.write()
    return folder


def states(workspace: Path, now: datetime = LATER) -> dict[str, HealthState]:
    with open_workspace(workspace, read_only=True) as ws:
        receipts = receipt_store.load(ws)
    return {h.run_id: h.state for h in classify(receipts, now=now)}


def count(workspace: Path, table_of) -> int:
    with open_workspace(workspace, read_only=True) as ws, ws.read() as conn:
        return conn.execute(select(func.count()).select_from(table_of(ws))).scalar()


def hot(ws):
    return ws.layout.items


def facts(ws):
    return ws.layout.facts


def test_a_migration_keeps_the_qas_run_and_version(tmp_path: Path) -> None:
    folder, workspace = stm_three(tmp_path), tmp_path / "ws.db"
    first = import_directory(folder.root, workspace, "UTC")
    assert first.imported["stm_items"] == 3 and count(workspace, hot) == 3
    # resident QAs wait (never promotion_missing): waiting while the evidence is fresh, stale after the window
    assert set(states(workspace, datetime(2025, 5, 1, 11, 0, tzinfo=UTC)).values()) == {HealthState.WAITING}
    assert set(states(workspace).values()) == {HealthState.STALE_EVIDENCE}
    run_of_q1 = next(r.run_id for r in first.receipts if r.at_utc == datetime(2025, 5, 1, 10, 0, tzinfo=UTC))

    # MemoryOS migrates the oldest QA into a new session and appends a new one
    q1 = folder.short_term.pop(0)
    folder.short_term.append(qa(4, "2025-05-01 10:15:00"))
    folder.add_session(session("session_a", [page("page_1", q1)], "2025-05-01 10:15:02"))
    folder.write()
    second = import_directory(folder.root, workspace, "UTC")
    assert {k: v for k, v in second.imported.items() if v} == {
        "stm_items": 1, "stm_items_removed": 1, "mtm_sessions": 1, "mtm_pages": 1,
        "receipts": 2 + 2 + 2}  # q1 left STM and is in MTM; q4 held and waiting; q2, q3 still waiting at 10:15
    q1_receipts = [r for r in second.receipts if r.run_id == run_of_q1]
    assert {(r.tier, r.source_present) for r in q1_receipts} == {("stm", True), ("stm", False), ("mtm", None)}
    assert len({r.version for r in q1_receipts}) == 1 and q1_receipts[0].version.startswith("qa-")
    assert states(workspace)[run_of_q1] == HealthState.STALE_EVIDENCE  # promoted, merely old
    assert count(workspace, hot) == 3 and count(workspace, lambda ws: SEGMENTS) == 1


def test_a_qa_caught_between_the_two_files_is_at_risk_until_its_page_is_written(tmp_path: Path) -> None:
    folder, workspace = stm_three(tmp_path), tmp_path / "ws.db"
    import_directory(folder.root, workspace, "UTC")
    in_flight = folder.short_term.pop(0)  # short_term.json rewritten, mid_term.json not yet
    folder.write()
    import_directory(folder.root, workspace, "UTC")
    at_risk = [run for run, state in states(workspace).items() if state == HealthState.SOURCE_AT_RISK]
    assert len(at_risk) == 1 and count(workspace, hot) == 2

    folder.add_session(session("session_a", [page("page_1", in_flight)], "2025-05-01 10:15:02"))
    folder.write()
    landed = import_directory(folder.root, workspace, "UTC")
    assert landed.imported["mtm_pages"] == 1 and landed.imported["receipts"] == 1  # the mtm commit
    assert states(workspace)[at_risk[0]] == HealthState.STALE_EVIDENCE


def test_a_promotion_and_a_new_profile(tmp_path: Path) -> None:
    folder, workspace = MemoryOSDir(tmp_path / "data"), tmp_path / "ws.db"
    pairs = [qa(n, f"2025-05-01 10:0{n}:00") for n in range(1, 4)]
    folder.add_session(session("session_a", [page(f"page_{n}", p) for n, p in enumerate(pairs, 1)],
                               "2025-05-01 11:00:00", "2025-05-01 11:30:00"))
    folder.write()
    import_directory(folder.root, workspace, "Europe/Berlin")

    for p in folder.sessions["session_a"]["details"]:
        p["analyzed"] = True
    folder.sessions["session_a"].update(N_visit=0, L_interaction=0, last_visit_time="2025-05-02 09:00:00")
    folder.profile = {"data": "Topic Interest ( High ): asks about topics.", "last_updated": "2025-05-02 09:00:00"}
    folder.user_knowledge = [knowledge("- Asks about topic 1: topics, 2025-05-01", "2025-05-02 09:00:00")]
    folder.assistant_knowledge = [knowledge("- Assistant explained topic 1 at 2025-05-01", "2025-05-02 09:00:00")]
    folder.write()
    promoted = import_directory(folder.root, workspace, "Europe/Berlin")
    changed = {k: v for k, v in promoted.imported.items() if v}
    assert changed == {"mtm_sessions_updated": 1, "mtm_pages_updated": 3, "facts": 3, "receipts": 3}
    lpm = [r for r in promoted.receipts if r.tier == "lpm"]
    assert {r.version for r in lpm} == {qa_version("ana", p["timestamp"]) for p in pairs}  # the adapter's
    assert {r.at_utc for r in lpm} == {datetime(2025, 5, 2, 7, 0, tzinfo=UTC)}  # 09:00 in Berlin, summer

    folder.profile = {"data": "Topic Interest ( High ): asks about topics and more.",
                      "last_updated": "2025-05-03 09:00:00"}
    folder.write()
    revised = import_directory(folder.root, workspace, "Europe/Berlin")
    assert revised.imported["facts"] == 1 and revised.imported["facts_superseded"] == 1
    folder.profile["last_updated"] = "2025-05-04 09:00:00"  # rewritten, same text: nothing new
    folder.write()
    assert import_directory(folder.root, workspace, "Europe/Berlin").nothing_new
    folder.profile = {"data": "Topic Interest ( High ): asks about topics.", "last_updated": "2025-05-05 09:00:00"}
    folder.write()  # back to the first text: a third fact replaces the second
    assert import_directory(folder.root, workspace, "Europe/Berlin").imported["facts_superseded"] == 1
    with open_workspace(workspace, read_only=True) as ws, ws.read() as conn:
        f = ws.layout.facts
        profiles = conn.execute(select(f.c.content, f.c.superseded_by, f.c.memory_type)
                                .where(f.c.memory_type == "preference").order_by(f.c.created_at)).all()
        assert [p.superseded_by is None for p in profiles] == [False, False, True]
        assert profiles[-1].content == profiles[0].content
        assert integrity.check(ws).problems == []


def test_an_evicted_session_leaves_the_mtm_tier_and_is_reported(tmp_path: Path) -> None:
    folder, workspace = MemoryOSDir(tmp_path / "data"), tmp_path / "ws.db"
    folder.add_session(session("session_a", [page("page_1", qa(1, "2025-05-01 10:00:00"))], "2025-05-01 10:05:00"))
    folder.add_session(session("session_b", [page("page_2", qa(2, "2025-05-01 10:10:00"))], "2025-05-01 10:15:00"))
    folder.write()
    import_directory(folder.root, workspace, "UTC")
    del folder.sessions["session_b"], folder.access_frequency["session_b"]
    folder.write()
    evicted = import_directory(folder.root, workspace, "UTC")
    assert [(a.kind, a.path) for a in evicted.anomalies] == [("session_evicted", "sessions.session_b")]
    assert evicted.imported["mtm_sessions_removed"] == 1 and evicted.imported["mtm_pages_removed"] == 1
    assert count(workspace, lambda ws: SEGMENTS) == 1 and count(workspace, lambda ws: PAGES) == 1
    assert import_directory(folder.root, workspace, "UTC").nothing_new


def test_links_access_frequency_and_knowledge_anomalies(tmp_path: Path) -> None:
    folder = MemoryOSDir(tmp_path / "data")
    pair = qa(1, "2025-05-01 10:00:00")
    folder.add_session(session("session_a", [page("page_1", pair, pre="page_gone", nxt="page_2"),
                                             page("page_2", qa(2, "2025-05-01 10:01:00"), pre="page_1")],
                               "2025-05-01 10:05:00"))
    folder.access_frequency = {"session_a": 1, "session_old": 2}
    folder.user_knowledge = [knowledge("- Likes tea", "2025-05-01 11:00:00"),
                             knowledge("- Likes tea", "2025-05-01 12:00:00")]
    folder.write()
    result = import_directory(folder.root, tmp_path / "ws.db", "UTC")
    assert [(a.kind, a.path) for a in result.anomalies] == [
        ("dangling_page_link", "sessions.session_a.details[page_id=page_1].pre_page"),
        ("duplicate_knowledge", "knowledge_base[1].knowledge"),
        ("access_frequency_mismatch", "access_frequency.session_old"),
    ]
    assert result.imported["facts"] == 2  # both copies are kept, as MemoryOS holds them


def test_a_failed_import_leaves_the_workspace_as_it_was(tmp_path: Path) -> None:
    folder, workspace = stm_three(tmp_path), tmp_path / "ws.db"
    import_directory(folder.root, workspace, "UTC")
    folder.short_term.append(qa(9, "2025-05-01 11:00:00"))
    folder.user_knowledge = [knowledge("- Likes tea", "2025-05-01 11:00:00")]
    folder.write()
    last = folder.short_term[-1]
    clash = stable_id("qa", "ana", f"2025-05-01 11:00:00\x1f{last['user_input']}\x1f{last['agent_response']}")
    with open_workspace(workspace) as ws, ws.write() as conn:  # someone else holds the id the import needs
        conn.execute(ws.layout.items.insert().values(id=clash, workspace_id=ws.workspace_id, agent_id="x",
                                                     content="other", created_at=0))
    before = _dump(workspace)
    with pytest.raises(Exception, match="UNIQUE"):
        import_directory(folder.root, workspace, "UTC")
    assert _dump(workspace) == before


def test_a_failed_import_into_a_new_path_leaves_no_file(tmp_path: Path, monkeypatch) -> None:
    from memorydesk.lineage.memoryos import service

    def write_then_fail(ws, conn, plan):  # fault injection: the real writes, then a failure before commit
        real_apply(ws, conn, plan)
        raise OSError("disk full")

    real_apply = service.apply
    monkeypatch.setattr(service, "apply", write_then_fail)
    folder = stm_three(tmp_path)
    with pytest.raises(OSError, match="disk full"):
        import_directory(folder.root, tmp_path / "new.db", "UTC")
    assert not list(tmp_path.glob("new.db*"))


def test_repeated_stm_entries_are_separate_qas(tmp_path: Path) -> None:
    folder = MemoryOSDir(tmp_path / "data")
    folder.short_term = [qa(1, "2025-05-01 10:00:00"), qa(1, "2025-05-01 10:00:00")]
    folder.write()
    result = import_directory(folder.root, tmp_path / "ws.db", "UTC")
    assert result.imported["stm_items"] == 2 and len({r.run_id for r in result.receipts}) == 2


@pytest.mark.parametrize("problem", ["truncated", "zone", "not_memoryos", "bad_shape"])
def test_unusable_input_writes_nothing(tmp_path: Path, problem: str) -> None:
    folder, workspace = stm_three(tmp_path), tmp_path / "ws.db"
    import_directory(folder.root, workspace, "UTC")
    folder.short_term.append(qa(4, "2025-05-01 11:00:00"))
    folder.write()
    zone, source = "UTC", folder.root
    stm = folder.user_dir() / "short_term.json"
    if problem == "truncated":
        stm.write_text(stm.read_text()[:-40])
    elif problem == "zone":
        zone = "Europe/Berlln"
    elif problem == "not_memoryos":  # folders named like MemoryOS's, but none of its files
        source = tmp_path / "elsewhere"
        (source / "users" / "ana").mkdir(parents=True)
        (source / "users" / "ana" / "notes.json").write_text("{}")
    else:
        stm.write_text('[{"user_input": "q", "agent_response": "a", "timestamp": 5}]')
    before = _dump(workspace)
    with pytest.raises(BadInput) as caught:
        import_directory(source, workspace, zone)
    assert "\n" not in str(caught.value)
    assert _dump(workspace) == before
    with pytest.raises(BadInput):
        import_directory(source, tmp_path / "fresh.db", zone)
    assert not (tmp_path / "fresh.db").exists()


def test_a_user_keeps_its_zone(tmp_path: Path) -> None:
    folder, workspace = stm_three(tmp_path), tmp_path / "ws.db"
    import_directory(folder.root, workspace, "UTC")
    before = _dump(workspace)
    with pytest.raises(BadInput, match="imported with --timezone UTC before"):
        import_directory(folder.root, workspace, "Asia/Tokyo")
    assert _dump(workspace) == before


def test_dry_run_reports_what_would_be_written_and_writes_nothing(tmp_path: Path) -> None:
    folder, workspace = stm_three(tmp_path), tmp_path / "ws.db"
    preview = import_directory(folder.root, workspace, "UTC", dry_run=True)
    assert not workspace.exists() and preview.imported["stm_items"] == 3 and preview.to_json()["dry_run"]
    import_directory(folder.root, workspace, "UTC")
    folder.short_term.append(qa(4, "2025-05-01 11:00:00"))
    folder.write()
    before = _dump(workspace)
    again = import_directory(folder.root, workspace, "UTC", dry_run=True)
    # the new QA's two receipts, and for each QA still in STM that it was there at 11:00
    assert again.imported["stm_items"] == 1 and again.imported["receipts"] == 2 + 3
    assert _dump(workspace) == before


def _dump(workspace: Path) -> str:
    """Every row of every table, as text (what "unchanged" means)."""
    digest = hashlib.sha256()
    with open_workspace(workspace, read_only=True) as ws, ws.read() as conn:
        names = conn.execute(text("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")).scalars().all()
        for name in names:
            if name.startswith(("memdesk_fact_vectors", "memory_facts_fts", "sqlite")):
                continue
            for row in conn.execute(text(f'SELECT * FROM "{name}" ORDER BY rowid')).all():
                digest.update(repr((name, tuple(row))).encode())
    return digest.hexdigest()


def test_progress_names_each_file_and_can_stop_the_import_before_it_writes(tmp_path: Path) -> None:
    folder, workspace = stm_three(tmp_path), tmp_path / "ws.db"
    folder.user_knowledge = [knowledge("- Likes tea", "2025-05-01 11:00:00")]
    folder.write()
    told: list[tuple[int, int, str]] = []
    import_directory(folder.root, workspace, "UTC", progress=lambda *step: told.append(step))
    assert [what for _d, _t, what in told] == [
        "reading users/ana/short_term.json", "reading users/ana/mid_term.json",
        "reading users/ana/long_term_user.json", "checking", "writing"]
    assert [d for d, _t, _w in told] == sorted(d for d, _t, _w in told) and {t for _d, t, _w in told} == {5}

    class Stop(Exception):
        pass

    def stop_at_writing(_done: int, _total: int, what: str) -> None:
        if what == "writing":
            raise Stop

    folder.short_term.append(qa(4, "2025-05-01 11:00:00"))
    folder.write()
    before = _dump(workspace)
    with pytest.raises(Stop):
        import_directory(folder.root, workspace, "UTC", progress=stop_at_writing)
    assert _dump(workspace) == before
