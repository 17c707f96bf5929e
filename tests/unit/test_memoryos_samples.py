"""The four shared MemoryOS samples, imported and held against their SCENARIO.json.

Every expectation here comes from the sample's ground truth (``checks_on_final_data``,
``detected_conditions``, ``qa_pairs``) or is recomputed independently (UTC times with
``zoneinfo``), never from the importer's own output.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from sqlalchemy import func, select

from helpers import SHARED_DATA, truth_versions
from memorydesk.core.health.scalar import classify
from memorydesk.core.health.table import HealthState
from memorydesk.lineage.jsonl import dump_jsonl, parse_jsonl
from memorydesk.lineage.memoryos import import_directory
from memorydesk.lineage.tiers import PAGES, SEGMENTS
from memorydesk.store import integrity, open_workspace

SAMPLES_DIR = SHARED_DATA / "memoryos"
SAMPLES = ("normal", "crash_mid_migration", "llm_down", "two_themes_duplicate_pages")
pytestmark = pytest.mark.shared


def scenario(name: str) -> dict:
    path = SAMPLES_DIR / name / "SCENARIO.json"
    if not path.exists():
        pytest.skip("../shared/data/memoryos is not present in this checkout")
    return json.loads(path.read_text(encoding="utf-8"))


def utc(local: str, zone: str) -> datetime:
    return datetime.strptime(local, "%Y-%m-%d %H:%M:%S").replace(tzinfo=ZoneInfo(zone)).astimezone(UTC)


@pytest.fixture(scope="module", params=SAMPLES)
def imported(request, tmp_path_factory):
    truth = scenario(request.param)
    workspace = tmp_path_factory.mktemp(request.param) / "ws.db"
    result = import_directory(SAMPLES_DIR / request.param / "data", workspace, truth["timezone"]["TZ"],
                              stm_capacity=truth["config"]["short_term_capacity"])
    return request.param, truth, workspace, result


def count(ws, table) -> int:
    with ws.read() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar()


def test_counts_equal_the_ground_truth(imported) -> None:
    _name, truth, _ws, result = imported
    checks = truth["checks_on_final_data"]
    for user, want in checks["users"].items():
        profile = ("error_text" if want["user_profile_is_error_string"]
                   else "present" if want["user_profile_present"] else "absent")
        fill = {"entries": want["short_term_entries"], "capacity": truth["config"]["short_term_capacity"]}
        assert result.users[user].to_json() == {"stm": want["short_term_entries"], "stm_fill": fill,
                                      "mtm_sessions": want["mid_term_sessions"],
                                      "mtm_pages": want["mid_term_distinct_page_ids"],
                                      "lpm_knowledge": want["user_knowledge_entries"], "profile": profile}
    assert set(result.users) == set(checks["users"])
    assert {a: c.to_json() for a, c in result.assistants.items()} == {
        a: {"lpm_knowledge": want["assistant_knowledge_entries"]} for a, want in checks["assistants"].items()}


def test_the_workspace_holds_every_tier(imported) -> None:
    _name, truth, workspace, result = imported
    checks = truth["checks_on_final_data"]
    users = checks["users"].values()
    with open_workspace(workspace, read_only=True) as ws:
        assert count(ws, ws.layout.items) == sum(u["short_term_entries"] for u in users)
        assert count(ws, SEGMENTS) == sum(u["mid_term_sessions"] for u in users)
        assert count(ws, PAGES) == sum(u["mid_term_page_rows"] for u in users)
        knowledge = sum(u["user_knowledge_entries"] for u in users) + sum(
            a["assistant_knowledge_entries"] for a in checks["assistants"].values())
        profiles = sum(1 for u in users if u["user_profile_present"])
        assert count(ws, ws.layout.facts) == knowledge + profiles
        with ws.read() as conn:
            agents = set(conn.execute(select(ws.layout.agents.c.id)).scalars())
        assert agents == set(checks["assistants"])
        assert integrity.check(ws).problems == []
    assert result.exit_code == (1 if result.anomalies else 0)


def test_embeddings_are_kept_as_memoryos_wrote_them(imported) -> None:
    name, truth, workspace, _result = imported
    user = next(iter(truth["checks_on_final_data"]["users"]))
    doc = json.loads((SAMPLES_DIR / name / "data" / "users" / user / "long_term_user.json").read_text())
    entry = doc["knowledge_base"][0]
    with open_workspace(workspace, read_only=True) as ws, ws.read() as conn:
        facts = ws.layout.facts
        stored = conn.execute(select(facts.c.embedding).where(facts.c.content == entry["knowledge"],
                                                             facts.c.topic == user)).scalars().all()
    assert stored and all(blob == np.asarray(entry["knowledge_embedding"], dtype="<f4").tobytes() for blob in stored)


def expected_anomalies(truth: dict) -> Counter:
    """(kind, user, location) the files can show, from the scenario's ground truth."""
    checks, conditions = truth["checks_on_final_data"], truth["detected_conditions"]
    want: Counter = Counter()
    for user, c in checks["users"].items():
        for page_id in c["duplicate_page_ids"]:
            want[("duplicate_page_id", user, page_id)] += 1
        for link in c["dangling_links"]:
            want[("dangling_page_link", user, str(link))] += 1
        for session_id in c["fallback_sessions"]:
            want[("fallback_session", user, session_id)] += 1
        for text in c["user_knowledge_duplicate_texts"]:
            want[("duplicate_knowledge", user, text)] += 1
        for key in c["access_frequency_keys_not_in_sessions"] + c["sessions_missing_from_access_frequency"]:
            want[("access_frequency_mismatch", user, key)] += 1
    for a in checks["assistants"].values():
        for text in a["assistant_knowledge_duplicate_texts"]:
            want[("duplicate_knowledge", None, text)] += 1
    want[("llm_error_text", "*", "*")] = conditions["error_string_locations"]
    for anomaly in truth["anomalies"]:  # the kill inside a migration: seen from the files with the capacity
        if anomaly["id"] == "crash_mid_migration":
            want[("interrupted_migration", truth["user_ids"][0], "")] += 1
    return +want


def test_every_stated_anomaly_is_reported_and_no_other(imported) -> None:
    _name, truth, _ws, result = imported
    got: Counter = Counter()
    for a in result.anomalies:
        if a.kind == "llm_error_text":
            got[("llm_error_text", "*", "*")] += 1
        elif a.kind == "duplicate_page_id":
            got[(a.kind, a.user, a.detail.split()[1])] += 1
        elif a.kind == "fallback_session":
            got[(a.kind, a.user, a.path.split(".")[1])] += 1
        elif a.kind == "duplicate_knowledge":
            got[(a.kind, a.user, a.detail.split("): ", 1)[1])] += 1
        else:
            got[(a.kind, a.user, a.path)] += 1
    assert got == expected_anomalies(truth)
    located = {a.location for a in result.anomalies if a.kind == "llm_error_text"}
    assert set(truth["checks_on_final_data"]["error_string_locations"]) <= located
    for a in result.anomalies:
        if a.kind == "duplicate_page_id":
            page_id = a.detail.split()[1]
            sessions = truth["checks_on_final_data"]["users"][a.user]["duplicate_page_ids"][page_id]
            assert f"(in {', '.join(sessions)})" in a.detail


def test_receipt_times_are_the_qas_own_in_utc(imported) -> None:
    _name, truth, _ws, result = imported
    zone = truth["timezone"]["TZ"]
    found = [qa for qa in truth["qa_pairs"] if qa["found_in"]]
    lost_runs = set(result.at_risk_runs.values())  # an interrupted migration's own run (test_memoryos_timing)
    present = [r for r in result.receipts if r.tier == "stm" and r.source_present is True and r.status == "committed"
               and r.run_id not in lost_runs]
    assert sorted(r.at_utc for r in present) == sorted(utc(qa["timestamp"], zone) for qa in found)
    assert len({r.run_id for r in result.receipts} - lost_runs) == len(found)
    by_version: dict[str, list] = {}
    for r in result.receipts:
        by_version.setdefault(r.version, []).append(r)
    for qa in found:
        places = [p.split(":") for p in qa["found_in"] if p.startswith("mid_term:")]
        if not places:
            continue
        receipts = by_version[truth_versions(truth)[places[0][2]]]
        assert [r.at_utc for r in receipts if r.tier == "stm" and r.source_present and r.status == "committed"] == [
            utc(qa["timestamp"], zone)]
        assert [r.tier for r in receipts if r.tier == "mtm" and r.status == "committed"] == ["mtm"]
        assert all(r.at_utc >= utc(qa["timestamp"], zone) for r in receipts)
        assert all(r.user_scope == qa["user_id"] and r.source_version for r in receipts)


def test_promoted_pages_have_lpm_receipts(imported) -> None:
    name, truth, _ws, result = imported
    analyzed = set()
    for user in truth["checks_on_final_data"]["users"]:
        doc = json.loads((SAMPLES_DIR / name / "data" / "users" / user / "mid_term.json").read_text())
        analyzed |= {p["page_id"] for s in doc["sessions"].values() for p in s["details"] if p["analyzed"]}
    versions = truth_versions(truth)
    assert {r.version for r in result.receipts if r.tier == "lpm"} == {versions[page] for page in analyzed}


def test_classify_of_the_derived_receipts_finds_no_scope_conflict(imported) -> None:
    name, _truth, _ws, result = imported
    receipts = parse_jsonl(dump_jsonl(result.receipts))
    # after every receipt (an interrupted migration's pop is dated by when short_term.json was written)
    later = {h.run_id: h.state for h in classify(receipts, now=max(r.at_utc for r in receipts) + timedelta(days=2))}
    states = Counter(later.values())
    # at risk: only the run of an interrupted migration (crash_mid_migration's), nothing else
    assert states[HealthState.SCOPE_CONFLICT] == 0
    assert {run for run, state in later.items() if state == HealthState.SOURCE_AT_RISK} == set(
        result.at_risk_runs.values())
    assert bool(result.at_risk_runs) == any(a["id"] == "crash_mid_migration" for a in _truth["anomalies"])
    # a QA still in STM waits (MemoryOS moves it at the next add once STM is full): never promotion_missing
    assert states[HealthState.PROMOTION_MISSING] == 0
    # (a resident QA whose answer was the LLM's error string is judged on its failed generation)
    resident = ({r.run_id for r in receipts if r.status == "waiting"} - set(result.at_risk_runs.values())
                - {r.run_id for r in receipts if r.tier == "generation"})
    assert len(resident) == sum(c.stm for c in result.users.values()) - (name == "llm_down")
    newest = max(r.at_utc for r in receipts if r.run_id in resident)
    just_after = {h.run_id: h.state for h in classify(receipts, now=newest + timedelta(minutes=1))}
    assert {just_after[run] for run in resident} == {HealthState.WAITING}  # waiting while fresh
    assert {later[run] for run in resident} == {HealthState.STALE_EVIDENCE}  # stale after the window


def test_importing_again_adds_nothing(imported) -> None:
    name, truth, workspace, _result = imported
    with open_workspace(workspace, read_only=True) as ws:
        before = {t.name: count(ws, t) for t in (ws.layout.items, ws.layout.facts, SEGMENTS, PAGES)}
    again = import_directory(SAMPLES_DIR / name / "data", workspace, truth["timezone"]["TZ"],
                             stm_capacity=truth["config"]["short_term_capacity"])
    assert again.nothing_new and "nothing new" in again.outcome()
    with open_workspace(workspace, read_only=True) as ws:
        assert {t.name: count(ws, t) for t in (ws.layout.items, ws.layout.facts, SEGMENTS, PAGES)} == before
        assert integrity.check(ws).problems == []


def test_llm_down_must_show(tmp_path: Path) -> None:
    scenario("llm_down")
    result = import_directory(SAMPLES_DIR / "llm_down" / "data", tmp_path / "ws.db", "UTC")
    payload = result.to_json()
    assert payload["users"]["lena_d"]["profile"] == "error_text"
    kinds = Counter(a["kind"] for a in payload["anomalies"])
    assert kinds == {"llm_error_text": 5, "fallback_session": 1}
    assert {a["path"] for a in payload["anomalies"] if a["kind"] == "llm_error_text"} >= {
        "user_profiles.lena_d.data", "[2].agent_response"}
    assert result.exit_code == 1
