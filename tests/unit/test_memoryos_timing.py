"""Imported times are times MemoryOS could have had (issue 34, point 2).

MemoryOS's ``add_memory`` migrates before it appends, so with its short-term capacity C the
QA added i-th leaves short-term memory (and its page is written) when the (i + C)-th is
added. Every expectation comes from the samples' ground truth (``SCENARIO.json``: every QA
in the order it was added, the lost one included), never from the importer's output.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from helpers import SHARED_DATA, truth_versions
from memorydesk.core.health.scalar import classify
from memorydesk.core.health.table import Color, HealthState
from memorydesk.core.receipts import Receipt
from memorydesk.lineage.jsonl import dump_jsonl, parse_jsonl
from memorydesk.lineage.memoryos import import_directory
from memorydesk.lineage.memoryos.lineage import import_timing

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


def true_moves(truth: dict) -> dict[str, datetime]:
    """The QA's version (``truth_versions``) -> when MemoryOS moved that QA (the add of the
    capacity-th QA after it)."""
    capacity, zone = truth["config"]["short_term_capacity"], truth["timezone"]["TZ"]
    moves = {}
    for user in truth["user_ids"]:
        added = [qa for qa in truth["qa_pairs"] if qa["user_id"] == user]  # in the order MemoryOS added them
        for i, qa in enumerate(added):
            for place in qa["found_in"]:
                if place.startswith("mid_term:") and i + capacity < len(added):
                    moves[place.split(":")[2]] = utc(added[i + capacity]["timestamp"], zone)
    versions = truth_versions(truth)
    return {versions[page]: at for page, at in moves.items()}


def exported(tmp_path: Path, name: str, capacity: int | None) -> tuple[dict, list[Receipt], object]:
    truth = scenario(name)
    result = import_directory(SAMPLES_DIR / name / "data", tmp_path / "ws.db", truth["timezone"]["TZ"],
                              stm_capacity=capacity)
    return truth, parse_jsonl(dump_jsonl(result.receipts)), result  # as `--receipts-out` writes them


def most_in_stm(receipts: list[Receipt]) -> dict[str, int]:
    """Per user, the most QAs the receipts ever hold in short-term memory at one instant: a memory
    (run, version) is there from its first sourcePresent:true receipt until it is gone or durable.
    At one instant departures come first (MemoryOS pops before it appends)."""
    by_memory: dict[tuple[str, str], list[Receipt]] = defaultdict(list)
    for r in receipts:
        by_memory[(r.run_id, r.version)].append(r)
    events: dict[str, list[tuple[datetime, int]]] = defaultdict(list)
    for found in by_memory.values():
        held = [r.at_utc for r in found if r.tier == "stm" and r.source_present is True]
        left = [r.at_utc for r in found if (r.tier == "stm" and r.source_present is False)
                or (r.tier in ("mtm", "lpm") and r.status in ("committed", "verified"))]
        if held:
            events[found[0].user_scope].append((min(held), +1))
            if left:
                events[found[0].user_scope].append((min(left), -1))
    most = {}
    for user, changes in events.items():
        level = peak = 0
        for _at, change in sorted(changes):
            level += change
            peak = max(peak, level)
        most[user] = peak
    return most


@pytest.mark.parametrize("name", SAMPLES)
def test_with_its_capacity_every_move_is_at_memoryos_own_time(tmp_path: Path, name: str) -> None:
    truth = scenario(name)
    _truth, receipts, _result = exported(tmp_path, name, truth["config"]["short_term_capacity"])
    moves = true_moves(truth)
    mtm = {r.version: r for r in receipts if r.tier == "mtm"}
    gone = {r.version: r for r in receipts if r.tier == "stm" and r.source_present is False}
    assert set(mtm) == set(moves)
    bounded = set()
    for page_id, at in moves.items():
        timing = import_timing(mtm[page_id].source_version)
        assert timing is not None and timing.lpm_bounded
        if timing.moves_bounded:  # its trigger was the QA a crash lost: only the end of that interval is known
            bounded.add(page_id)
            assert mtm[page_id].at_utc >= at and gone[page_id].at_utc >= at
        else:
            assert mtm[page_id].at_utc == at and gone[page_id].at_utc == at
    # only the QA whose capacity-th successor was lost is dated by a bound, and only in the crash sample
    assert len(bounded) == (1 if name == "crash_mid_migration" else 0)
    for r in receipts:
        if r.tier == "lpm":  # a promotion is never before the move, and is said to be a bound
            assert r.at_utc >= mtm[r.version].at_utc and import_timing(r.source_version).lpm_bounded


@pytest.mark.parametrize("name", SAMPLES)
def test_the_receipts_never_hold_more_qas_in_short_term_memory_than_its_capacity(tmp_path: Path, name: str) -> None:
    truth = scenario(name)
    capacity = truth["config"]["short_term_capacity"]
    _truth, receipts, _result = exported(tmp_path, name, capacity)
    most = most_in_stm(receipts)
    assert set(most) == set(truth["user_ids"])
    assert max(most.values()) == capacity  # full, never over
    assert all(peak <= capacity for peak in most.values())


@pytest.mark.parametrize("name", SAMPLES)
def test_without_a_capacity_every_move_is_a_true_upper_bound_and_says_so(tmp_path: Path, name: str) -> None:
    truth = scenario(name)
    _truth, receipts, _result = exported(tmp_path, name, None)
    moves = true_moves(truth)
    for r in receipts:
        timing = import_timing(r.source_version)
        assert timing is not None and timing.moves_bounded and timing.lpm_bounded
        if r.tier == "mtm" or (r.tier == "stm" and r.source_present is False):
            assert r.at_utc >= moves[r.version]  # never before MemoryOS moved it


def test_an_interrupted_migration_is_an_at_risk_run_of_its_own(tmp_path: Path) -> None:
    truth = scenario("crash_mid_migration")
    zone = truth["timezone"]["TZ"]
    _truth, receipts, result = exported(tmp_path, "crash_mid_migration", 5)
    run = result.at_risk_runs["omar_c"]
    [anomaly] = [a for a in result.anomalies if a.kind == "interrupted_migration"]
    assert anomaly.extra["run_id"] == run and run in anomaly.detail
    mine = [r for r in receipts if r.run_id == run]
    lost = truth["anomalies"][0]["lost_qa"]
    # content-free: the user's lane, and a version naming the interval the lost QA was added in
    [version] = {r.version for r in mine}
    assert {r.user_scope for r in mine} == {"omar_c"} and {r.assistant_scope for r in mine} == {"daily_companion"}
    assert version == f"added {anomaly.extra['from_utc']}..{anomaly.extra['to_utc']}"
    assert utc(anomaly.extra["from_local"], zone) < utc(lost["timestamp"], zone) < utc(anomaly.extra["to_local"],
                                                                                         zone)
    assert not any(lost["user_input"] in json.dumps(r.to_json()) for r in mine)
    # waiting while it sat in short-term memory. It was popped by the first add_memory after the newest
    # entry — a time no file holds: the newest entry's time is only a lower bound (the operator's
    # finding: judged then, it already read at-risk). short_term.json was last written by the pop
    # itself, so its modification time is the upper bound: at-risk from then on, not before.
    newest = max(utc(qa["timestamp"], zone) for qa in truth["qa_pairs"] if qa["found_in"] == ["short_term"])
    written = datetime.fromtimestamp(math.ceil(
        (SAMPLES_DIR / "crash_mid_migration" / "data" / "users" / "omar_c" / "short_term.json").stat().st_mtime), UTC)
    assert anomaly.extra["popped_after_utc"] == newest.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert "lower" not in anomaly.detail and "the earliest it can have happened" in anomaly.detail
    popped = [r for r in mine if r.source_present is False]
    assert [r.at_utc for r in popped] == [written]
    assert import_timing(popped[0].source_version).moves_bounded  # said to be an upper bound: true now
    before = {h.run_id: h for h in classify(receipts, now=utc(anomaly.extra["to_local"], zone) + timedelta(minutes=1))}
    at_newest = {h.run_id: h for h in classify(receipts, now=newest)}
    a_day_on = {h.run_id: h for h in classify(receipts, now=newest + timedelta(days=1, seconds=1))}
    later = {h.run_id: h for h in classify(receipts, now=written + timedelta(seconds=1))}
    assert before[run].state == at_newest[run].state == HealthState.WAITING
    assert a_day_on[run].state == HealthState.STALE_EVIDENCE  # not known lost yet: old evidence, never healthy
    assert later[run].state == HealthState.SOURCE_AT_RISK
    assert [h.run_id for h in later.values() if h.color == Color.AT_RISK] == [run]
    assert version in later[run].reason
