"""``--watch`` beside the real MemoryOS (its source, a stub LLM and a stand-in embedder:
``fixtures.memoryos_live``), killed with SIGKILL inside a migration: the lost QA's run is
at-risk, every QA still in short-term memory is waiting, the migrated ones are healthy;
without the kill nothing is at-risk. The one-shot import of what the kill left reports
the interrupted migration with the interval that holds the lost QA."""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from fixtures.memoryos_live import FORMAT, MemoryOSProcess, StubLLM, unavailable_reason
from memorydesk.core.health.scalar import classify
from memorydesk.core.health.table import HealthState
from memorydesk.core.receipts import format_utc
from memorydesk.lineage import receipt_store
from memorydesk.lineage.memoryos import import_directory
from memorydesk.lineage.memoryos.watch import watch
from memorydesk.store import open_workspace

pytestmark = [pytest.mark.slow, pytest.mark.shared,
              pytest.mark.skipif(unavailable_reason() is not None, reason=unavailable_reason() or "")]

CAPACITY = 3
TZ = "Europe/Berlin"
TOPICS = ["I started bouldering at the climbing gym", "My fingers hurt after bouldering", "Booked a trip to Japan",
          "Should I learn Japanese before the trip", "Bought new climbing shoes", "Cooking ramen tonight",
          "Went bouldering again and climbed a V2"]


class Watcher:
    """The real ``watch`` loop on a thread; ``settle()`` waits until it has looked at the files
    twice since the call (so whatever MemoryOS wrote before is imported)."""

    def __init__(self, data: Path, workspace: Path) -> None:
        self.loops = 0
        self.passes = 0
        self.done = False
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(data, workspace), daemon=True)
        self._thread.start()

    def _run(self, data: Path, workspace: Path) -> None:
        def sleep(_s: float) -> None:
            self.loops += 1
            time.sleep(0.05)

        def on_pass(_result) -> None:
            self.passes += 1

        while not (data / "users" / "ana" / "short_term.json").exists():  # MemoryOS's first save
            time.sleep(0.05)
        try:
            watch(data, workspace, TZ, on_pass=on_pass, stop=lambda: self.done, sleep=sleep)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            self.error = exc

    def settle(self) -> None:
        target = self.loops + 2
        deadline = time.monotonic() + 60
        while self.loops < target and time.monotonic() < deadline and self.error is None:
            time.sleep(0.02)
        assert self.error is None, self.error
        assert self.loops >= target, "the watch did not come round"

    def stop(self) -> None:
        self.done = True
        self._thread.join(60)


def turn_time(k: int, base: datetime) -> str:
    return (base + timedelta(minutes=k)).astimezone(ZoneInfo(TZ)).strftime(FORMAT)


def utc_of(local: str) -> str:
    return format_utc(datetime.strptime(local, FORMAT).replace(tzinfo=ZoneInfo(TZ)).astimezone(UTC))


def session(tmp_path: Path, *, kill: bool) -> tuple[Path, Path, dict | None, datetime]:
    data, workspace = tmp_path / "data", tmp_path / "ws.db"
    base = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
    watcher = Watcher(data, workspace)
    lost = None
    try:
        with StubLLM() as llm, MemoryOSProcess(data, llm, user_id="ana", short_term_capacity=CAPACITY,
                                               timezone=TZ) as mos:
            for k, text in enumerate(TOPICS[:-1]):
                mos.add(text, f"Answer about {text.lower()}.", turn_time(k, base))
                watcher.settle()
            last = TOPICS[-1]
            if kill:
                lost = mos.add_killed_in_migration(last, "Congratulations!", turn_time(len(TOPICS), base)).lost_qa
            else:
                mos.add(last, "Congratulations!", turn_time(len(TOPICS), base))
            watcher.settle()
    finally:
        watcher.stop()
    return data, workspace, lost, base


def verdicts(workspace: Path) -> dict:
    with open_workspace(workspace, read_only=True) as ws:
        receipts = receipt_store.load(ws)
    return {v.run_id: v for v in classify(receipts, now=datetime.now(UTC) + timedelta(minutes=1))}


def test_a_kill_inside_a_migration_shows_the_lost_qa_at_risk_and_the_rest_waiting(tmp_path: Path) -> None:
    data, workspace, lost, _base = session(tmp_path, kill=True)
    assert lost is not None and lost["user_input"] == TOPICS[3]
    stm = [qa["user_input"] for qa in json.loads((data / "users" / "ana" / "short_term.json").read_text())]
    assert stm == TOPICS[4:6]  # the popped QA is gone, the add that triggered the migration never landed
    states = verdicts(workspace)
    at_risk = {run for run, v in states.items() if v.state == HealthState.SOURCE_AT_RISK}
    waiting = {run for run, v in states.items() if v.state == HealthState.WAITING}
    healthy = {run for run, v in states.items() if v.state == HealthState.HEALTHY}
    assert len(states) == 6 and len(at_risk) == 1 and len(waiting) == 2 and len(healthy) == 3, states
    with open_workspace(workspace, read_only=True) as ws:
        receipts = receipt_store.load(ws)
    [risky] = at_risk
    gone = [r for r in receipts if r.run_id == risky and r.source_present is False]
    assert gone and not any(r.tier in ("mtm", "lpm") for r in receipts if r.run_id == risky)
    assert format_utc(min(r.at_utc for r in receipts if r.run_id == risky)) == utc_of(lost["timestamp"])
    # the files alone, imported once with the capacity, name where the lost QA lies
    result = import_directory(data, tmp_path / "once.db", TZ, stm_capacity=CAPACITY)
    [found] = [a for a in result.anomalies if a.kind == "interrupted_migration"]
    assert found.extra["from_utc"] < utc_of(lost["timestamp"]) < found.extra["to_utc"]
    assert found.user == "ana" and result.users["ana"].stm_fill.to_json() == {"entries": 2, "capacity": CAPACITY}


def test_without_the_kill_nothing_is_at_risk(tmp_path: Path) -> None:
    data, workspace, _lost, _base = session(tmp_path, kill=False)
    states = verdicts(workspace)
    assert len(states) == len(TOPICS)
    assert {v.state for v in states.values()} == {HealthState.HEALTHY, HealthState.WAITING}
    assert sum(v.state == HealthState.WAITING for v in states.values()) == CAPACITY
    result = import_directory(data, tmp_path / "once.db", TZ, stm_capacity=CAPACITY)
    assert not [a for a in result.anomalies if a.kind == "interrupted_migration"]
