"""What the import sees of an LLM outage and of duplicated pages is on the timeline, at the right
time, content-free (the operator's finding: only the import dialog reported them; a page whose
analysis failed read "healthy (rule 9)" and its promotion looked like any other).

Expectations come from the samples' ground truth (``SCENARIO.json``), never from the importer.
A run is judged with a wide freshness window at a time after every receipt, so old evidence does
not hide what the receipts say.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from helpers import SHARED_DATA, truth_versions
from memorydesk.core.health.scalar import classify
from memorydesk.core.health.table import Color, HealthState
from memorydesk.lineage.jsonl import dump_jsonl, parse_jsonl
from memorydesk.lineage.memoryos import import_directory

SAMPLES_DIR = SHARED_DATA / "memoryos"
pytestmark = pytest.mark.shared
WIDE = timedelta(days=3650)


def scenario(name: str) -> dict:
    path = SAMPLES_DIR / name / "SCENARIO.json"
    if not path.exists():
        pytest.skip("../shared/data/memoryos is not present in this checkout")
    return json.loads(path.read_text(encoding="utf-8"))


def utc(local: str, zone: str) -> datetime:
    return datetime.strptime(local, "%Y-%m-%d %H:%M:%S").replace(tzinfo=ZoneInfo(zone)).astimezone(UTC)


def imported(tmp_path, name: str):
    truth = scenario(name)
    result = import_directory(SAMPLES_DIR / name / "data", tmp_path / "ws.db", truth["timezone"]["TZ"],
                              stm_capacity=truth["config"]["short_term_capacity"])
    receipts = parse_jsonl(dump_jsonl(result.receipts))  # as --receipts-out writes them, as classify reads them
    now = max(r.at_utc for r in receipts) + timedelta(seconds=1)
    return truth, receipts, {h.run_id: h for h in classify(receipts, now=now, fresh_for=WIDE)}


def run_of(truth: dict, page_id: str) -> str:
    (user,) = truth["user_ids"]
    return f"memoryos:{user}:{truth_versions(truth)[page_id]}"


def test_an_llm_outage_is_on_the_timeline_when_it_happened(tmp_path) -> None:
    truth, receipts, states = imported(tmp_path, "llm_down")
    zone = truth["timezone"]["TZ"]
    [outage] = truth["anomalies"]
    # the promotion during the outage analysed these pages and extracted nothing: no commit, never healthy
    promotion = utc(truth["per_user"][0]["promotions"][1]["sim_time"], zone)
    for page in outage["pages_marked_analyzed_without_extraction"]:
        run = run_of(truth, page)
        assert states[run].state == HealthState.UNCERTAIN and "lpm" in states[run].reason
        lpm = [r for r in receipts if r.run_id == run and r.tier == "lpm"]
        assert [r.status for r in lpm] == ["failed"]  # and no committed one beside it
        assert abs(lpm[0].at_utc - promotion) <= timedelta(minutes=1)
    # the pages migrated during the outage carry the error string as meta_info: uncertain, not healthy,
    # not at risk (the QA is in mid-term memory), from their move on
    errors = [where for where in truth["checks_on_final_data"]["error_string_locations"] if "meta_info" in where]
    assert len(errors) == 3
    for where in errors:
        page = where.split("page_id=")[1].split("]")[0]
        run = run_of(truth, page)
        assert states[run].state == HealthState.UNCERTAIN and "mtm" in states[run].reason
        mtm = sorted((r.status for r in receipts if r.run_id == run and r.tier == "mtm"))
        assert mtm == ["committed", "failed"]
        moved = next(r.at_utc for r in receipts if r.run_id == run and r.tier == "mtm")
        before = {h.run_id: h for h in classify(receipts, now=moved - timedelta(seconds=1), fresh_for=WIDE)}
        assert before[run].state == HealthState.WAITING  # in short-term memory until it moved, then uncertain
    # the answer get_response gave during the outage was the error string: a failed generation
    [answer] = [qa for qa in outage["qas_added_during_outage"] if qa["via"] == "get_response"]
    [generation] = [r for r in receipts if r.tier == "generation"]
    assert generation.status == "failed" and generation.at_utc == utc(answer["timestamp"], zone)
    assert states[generation.run_id].color == Color.UNCERTAIN
    # nothing else is touched: every other run is healthy or waiting
    marked = {run_of(truth, p) for p in outage["pages_marked_analyzed_without_extraction"]}
    marked |= {run_of(truth, w.split("page_id=")[1].split("]")[0]) for w in errors} | {generation.run_id}
    assert {run for run, h in states.items() if not h.ok} == marked
    assert not any(text in json.dumps([r.to_json() for r in receipts]) for text in
                   ("Error: Could not", outage["user_profile_before_outage"][:20], answer["user_input"][:20]))


def test_duplicated_pages_are_flagged_on_their_runs(tmp_path) -> None:
    truth, receipts, states = imported(tmp_path, "two_themes_duplicate_pages")
    (user,) = truth["user_ids"]
    duplicated = truth["checks_on_final_data"]["users"][user]["duplicate_page_ids"]
    assert len(duplicated) == 14
    for page, sessions in duplicated.items():
        run = run_of(truth, page)
        assert states[run].state == HealthState.UNCERTAIN
        extra = [r for r in receipts if r.run_id == run and r.tier == "mtm" and r.status == "failed"]
        assert len(extra) == len(sessions) - 1  # one per copy MemoryOS inserted again, naming its session
        assert all(r.receipt_id.split("@")[1] in sessions for r in extra)
        committed = next(r for r in receipts if r.run_id == run and r.tier == "mtm" and r.status == "committed")
        assert {r.at_utc for r in extra} == {committed.at_utc}  # at the move that inserted them
    flagged = {run_of(truth, page) for page in duplicated}
    assert {run for run, h in states.items() if h.color == Color.UNCERTAIN} == flagged
    assert not [run for run, h in states.items() if h.color == Color.AT_RISK]


def test_the_report_says_why_pages_and_page_rows_differ(tmp_path) -> None:
    """The operator's finding: "5 sessions · 18 pages" beside "mtm pages 32", with no word why."""
    truth = scenario("two_themes_duplicate_pages")
    (user,) = truth["user_ids"]
    want = truth["checks_on_final_data"]["users"][user]
    result = import_directory(SAMPLES_DIR / "two_themes_duplicate_pages" / "data", tmp_path / "ws.db",
                              truth["timezone"]["TZ"], stm_capacity=truth["config"]["short_term_capacity"])
    pages, rows, repeated = (want["mid_term_distinct_page_ids"], want["mid_term_page_rows"],
                             len(want["duplicate_page_ids"]))
    assert f"{pages} pages in {rows} page rows ({repeated} pages stored more than once" in "\n".join(result.lines())
    assert f"mtm page rows {rows}" in result.outcome() and "mtm pages" not in result.outcome()
