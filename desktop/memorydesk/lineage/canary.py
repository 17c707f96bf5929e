"""The operator gate: ``memory-desk canary WORKSPACE`` (docs/receipts.md).

A canary memory with a random id and no personal content goes down the real path —
store → promote → retrieve → dispatch — in two user scopes × two assistant scopes,
with the STM capacity forced small so transitions happen, and in two batches run by
two separate processes (a restart in between). The last batch moves what is still in STM
on to MTM (:meth:`TierEngine.drain`): every run ends in a durable tier, so the receipts a
run keeps (``--keep-receipts``, the window's canary) never show a promotion still awaited
for memories the canary then removed. Then it checks, one line each, that
every cross-scope query returned nothing, that every source removal has its target
commit, that the receipts say every run is healthy or waiting and are fresh, and
finally removes the canary. Where MemoryOS is importable, one more check runs a canary through
a real MemoryOS wrapped by the receipts adapter (:mod:`memorydesk.lineage.adapters.memoryos_canary`).
The gate passes only when every check passes.

This module is also the batch worker: ``python -m memorydesk.lineage.canary WS ID N``,
and the gate in a process of its own (``… gate WS [--keep-receipts]``, one JSON object per
line: progress, then each check, then the verdict) for a program that has the workspace
open itself: :func:`run_gate_apart`. (Opening a workspace a second time in a process that
holds it open breaks SQLite's file locks; see ``store.files.inspect_header``.)
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from itertools import product
from pathlib import Path

from sqlalchemy import select

from memorydesk import testpoints
from memorydesk.core.errors import MemoryDeskError
from memorydesk.core.health.scalar import classify
from memorydesk.lineage import receipt_store
from memorydesk.lineage.adapters import memoryos_canary
from memorydesk.lineage.recall import dispatch, retrieve
from memorydesk.lineage.tiers import LPM_DOMAIN, PAGES, VERSIONS, TierConfig, TierEngine
from memorydesk.memory.rows import read_json_list
from memorydesk.store import Workspace, canary_rows, open_workspace
from memorydesk.store.retry import with_retry

CAPACITY = 2
PER_BATCH = 3
BATCHES = 2
FRESH_FOR = timedelta(hours=24)
CONFIG = TierConfig(stm_capacity=CAPACITY, heat_threshold=2.0)


class CanaryStopped(MemoryDeskError):
    """The gate was stopped; what it had written is removed again."""


def what_it_writes(keep_receipts: bool = False) -> str:
    """One paragraph saying what a gate run writes into the workspace (and what stays)."""
    n_lanes = len(lanes("x"))
    stays = ("Its receipts stay, marked canary, so its runs show on the timeline."
             if keep_receipts else "Its receipts are removed too.")
    return (f"It writes {2 * n_lanes * PER_BATCH} canary memories (random id, no personal content) in {n_lanes} "
            f"lanes of its own (canary-…/user-a|b × canary-…/assistant-1|2), {PER_BATCH} per lane in each of two "
            f"batches run by two separate processes, with short-term capacity {CAPACITY} so they are promoted "
            "STM → MTM → LPM, retrieved and dispatched, and lineage receipts for every step. The last batch "
            "moves what is still in short-term memory on to mid-term memory, so every run ends in a durable tier "
            "and none is left waiting for a promotion that would never come. At the end — or when it is stopped — "
            f"its memories are removed from every tier. {stays}")


def lanes(canary_id: str) -> list[tuple[str, str]]:
    users = [f"{canary_id}/user-{x}" for x in "ab"]
    assistants = [f"{canary_id}/assistant-{x}" for x in "12"]
    return list(product(users, assistants))


def lane_token(user: str, assistant: str) -> str:
    """A word only this lane's canary memories contain (no personal content: just a hash)."""
    return "lane" + hashlib.sha256(f"{user}|{assistant}".encode()).hexdigest()[:10]


# -- the batch worker (runs in its own process) ---------------------------------------------------
def run_batch(path: Path, canary_id: str, batch: int) -> dict:
    report: dict = {"pid": os.getpid(), "batch": batch, "seen_before": {}, "cross_scope_hits": 0,
                    "cross_scope_queries": 0, "dispatched": 0, "drained": 0}
    with open_workspace(path) as ws:
        engine = TierEngine(ws, CONFIG, canary=True)
        all_lanes = lanes(canary_id)
        for user, assistant in all_lanes:
            run_id = f"{canary_id}/run-{batch}/{user.rsplit('/', 1)[1]}-{assistant.rsplit('/', 1)[1]}"
            token = lane_token(user, assistant)
            report["seen_before"][token] = len(retrieve(engine, user, assistant, token).memories)
            for n in range(PER_BATCH):
                testpoints.reached("canary.remember")
                engine.remember(user, assistant, f"canary {token} batch {batch} note {n}", run_id=run_id,
                                memory_type="fact", importance=0.5 + 0.1 * n)
            if batch > 1:
                engine.promote_hot(user, assistant)
            found = retrieve(engine, user, assistant, token, run_id=run_id)
            if found.memories:
                dispatch(engine, user, assistant, f"recall {token}", run_id=run_id)
                report["dispatched"] += 1
            if batch == BATCHES:  # the last batch: its runs end in a durable tier, none left waiting
                report["drained"] += engine.drain(user, assistant)
        for (user, assistant), (other_user, other_assistant) in product(all_lanes, all_lanes):
            if (user, assistant) == (other_user, other_assistant):
                continue
            report["cross_scope_queries"] += 1
            hits = retrieve(engine, user, assistant, lane_token(other_user, other_assistant)).memories
            report["cross_scope_hits"] += len(hits)
    return report


# -- the gate -------------------------------------------------------------------------------------
@dataclass
class Check:
    name: str
    passed: bool
    detail: str

    def line(self) -> str:
        return f"{'PASS' if self.passed else 'FAIL'} {self.name}: {self.detail}"


def _worker(path: Path, canary_id: str, batch: int) -> dict:
    done = subprocess.run([sys.executable, "-m", "memorydesk.lineage.canary", str(path), canary_id, str(batch)],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "worker failed")
    return json.loads(done.stdout)


def where_memories_are(ws: Workspace, canary_id: str) -> dict[str, list[str]]:
    """For each canary memory (by its STM id), the tiers that hold it now."""
    items, facts = ws.layout.items, ws.layout.facts
    with ws.read() as conn:
        ids = conn.execute(select(VERSIONS.c.item_id).where(VERSIONS.c.user_scope.like(f"{canary_id}/%"))
                           ).scalars().all()
        stm = set(conn.execute(select(items.c.id).where(items.c.id.in_(ids))).scalars())
        mtm = set(conn.execute(select(PAGES.c.item_id).where(PAGES.c.item_id.in_(ids))).scalars())
        lpm_rows = conn.execute(select(facts.c.source_observation_ids).where(
            facts.c.domain == LPM_DOMAIN, facts.c.topic.like(f"{canary_id}/%"))).scalars()
        lpm = {s for row in lpm_rows for s in read_json_list(row)}
    return {i: [t for t, held in (("stm", stm), ("mtm", mtm), ("lpm", lpm)) if i in held] for i in ids}


def remove_canary(ws: Workspace, canary_id: str, keep_receipts: bool = False) -> None:
    """Remove the canary's memories (every tier), its record as a running run and, unless
    ``keep_receipts``, its receipts (``store.canary_rows``, the rule ``check`` uses too)."""
    with_retry(ws, lambda conn: canary_rows.remove(conn, ws.layout, canary_id, receipts=not keep_receipts))


def start_run(ws: Workspace, canary_id: str) -> list[canary_rows.Leftover]:
    """Before a run writes: remove what earlier runs left (killed mid-way), and record this one
    (its process id), in one transaction; returns what was removed."""
    def work(conn) -> list[canary_rows.Leftover]:
        removed = canary_rows.remove_leftovers(conn, ws.layout)
        canary_rows.begin(conn, canary_id, os.getpid())
        return removed

    return with_retry(ws, work)


def _leftovers_check(removed: list[canary_rows.Leftover]) -> Check:
    if not removed:
        return Check("leftovers", True, "no earlier run left rows behind")
    return Check("leftovers", True, "removed what earlier runs left (stopped before they cleaned up): "
                 + "; ".join(f"{left.canary_id}: {left.summary()}" for left in removed))


Progress = Callable[[int, int, str], None]  # steps done, steps in all, what is being done


def run_gate(path: Path, out: Callable[[str], None] = print, *, progress: Progress | None = None,
             on_check: Callable[[Check], None] | None = None, keep_receipts: bool = False) -> bool:
    """Run the gate on the workspace at ``path``; print a line per check; True when all pass.

    ``progress`` hears about each step, ``on_check`` gets each check as it is decided;
    ``keep_receipts`` leaves the canary's receipts in the workspace (marked ``canary``) so
    its runs can be seen on the timeline — its memories are removed either way.
    """
    checks = gate(path, progress=progress, on_check=on_check, keep_receipts=keep_receipts)
    for check in checks:
        out(check.line())
    if (reason := memoryos_canary.unavailable()) is not None:
        out(f"SKIP memoryos: {reason}, so no canary ran through MemoryOS")
    return all(c.passed for c in checks)


def gate(path: Path, *, progress: Progress | None = None, on_check: Callable[[Check], None] | None = None,
         keep_receipts: bool = False) -> list[Check]:
    """The gate's checks, in order (see :func:`run_gate`)."""
    step = progress or (lambda _done, _total, _text: None)
    path = Path(path)
    canary_id = canary_rows.new_id()
    step(0, 5, "preparing the workspace")
    with open_workspace(path) as ws:
        ws.adopt()  # our tables added (after a checked backup) once, before the workers
        removed = start_run(ws, canary_id)
    checks: list[Check] = [_leftovers_check(removed)]
    try:
        step(1, 5, "batch 1: storing and promoting in its own process")
        testpoints.reached("canary.batch")
        first = _worker(path, canary_id, 1)
        step(2, 5, "batch 2: a new process (a restart) finds batch 1 and goes on")
        testpoints.reached("canary.batch")
        second = _worker(path, canary_id, 2)
    except KeyboardInterrupt:  # stopped (run_gate_apart sends SIGINT): nothing it wrote stays
        with open_workspace(path) as ws:
            remove_canary(ws, canary_id, keep_receipts=False)
            left = where_memories_are(ws, canary_id)
        raise CanaryStopped("the canary was stopped; " + ("everything it had written was removed" if not left
                            else f"{len(left)} of its rows could not be removed")) from None
    testpoints.reached("canary.check")
    step(3, 5, "checking isolation, promotions, lineage and freshness")
    with open_workspace(path) as ws:
        try:
            checks += _judge(ws, canary_id, first, second)
        finally:
            step(4, 5, "removing the canary's memories")
            remove_canary(ws, canary_id, keep_receipts)
            left = where_memories_are(ws, canary_id)
            with ws.read() as conn:
                others = canary_rows.leftovers(conn, ws.layout)  # any run's rows, not only this one's
        checks.append(Check("cleanup", not left and not others,
                            "canary removed, and no canary rows are left in the workspace" if not (left or others)
                            else f"{len(left)} of this run's memories and the rows of {len(others)} other run(s) "
                                 "are left"))
    if memoryos_canary.unavailable() is None:  # MemoryOS is installed here: the canary through it too
        step(4, 5, "a canary through MemoryOS, with its receipts adapter")
        checks.append(Check("memoryos", *memoryos_canary.run_memoryos_canary()))
    for check in checks:
        if on_check is not None:
            on_check(check)
    step(5, 5, "done")
    return checks


def _judge(ws: Workspace, canary_id: str, first: dict, second: dict) -> list[Check]:
    n_lanes = len(lanes(canary_id))
    places = where_memories_are(ws, canary_id)
    receipts = [r for r in receipt_store.load(ws) if r.run_id.startswith(f"{canary_id}/")]
    now = datetime.now(UTC)
    verdicts = classify(receipts, now=now, fresh_for=FRESH_FOR)
    moved = sum(1 for r in receipts if r.tier == "stm" and r.source_present is False)
    durable = sum(1 for r in receipts if r.tier == "lpm" and r.status == "committed")
    lost = sorted(i for i, tiers in places.items() if not tiers)
    doubled = sorted(i for i, tiers in places.items() if len(tiers) > 1)
    removed_without_target = [
        r for r in receipts if r.tier == "stm" and r.source_present is False
        and not any(m.tier == "mtm" and m.status in ("committed", "verified") and m.version == r.version
                    and m.run_id == r.run_id for m in receipts)]
    bad_runs = [v for v in verdicts if not v.ok]
    newest = max((r.at_utc for r in receipts), default=None)
    expected = 2 * n_lanes * PER_BATCH
    return [
        Check("store", len(places) == expected,
              f"{len(places)} of {expected} canary memories written in {n_lanes} lanes"),
        Check("capacity", moved >= n_lanes and durable > 0,
              f"{moved} forced STM→MTM promotions (capacity {CAPACITY}), {durable} MTM→LPM"),
        Check("restart", first["pid"] != second["pid"] and all(v > 0 for v in second["seen_before"].values()),
              "batch 2 ran in a new process and found batch 1's memory in every lane"),
        Check("isolation", second["cross_scope_hits"] == 0 and first["cross_scope_hits"] == 0,
              f"{first['cross_scope_queries'] + second['cross_scope_queries']} cross-scope queries, "
              f"{first['cross_scope_hits'] + second['cross_scope_hits']} hits"),
        Check("promotion", not removed_without_target and not lost and not doubled,
              "every source removal has its target commit" if not (removed_without_target or lost or doubled)
              else f"{len(removed_without_target)} removals without a target commit, {len(lost)} memories in no tier, "
                   f"{len(doubled)} in two"),
        Check("lineage", not bad_runs and bool(verdicts),
              f"{len(verdicts)} runs healthy or waiting" if not bad_runs
              else "; ".join(f"{v.run_id}: {v.state}" for v in bad_runs[:3])),
        Check("dispatch", first["dispatched"] + second["dispatched"] == 2 * n_lanes
              and any(r.tier == "generation" for r in receipts), "every lane dispatched with a generation receipt"),
        Check("freshness", newest is not None and now - newest <= FRESH_FOR,
              f"newest receipt {int((now - newest).total_seconds()) if newest else '-'} s old"),
    ]


def run_gate_apart(path: Path, *, progress: Progress | None = None, on_check: Callable[[Check], None] | None = None,
                   keep_receipts: bool = False, cancelled: Callable[[], bool] | None = None) -> bool:
    """:func:`run_gate` in a process of its own, reporting as it goes; True when every check passes."""
    command = [sys.executable, "-m", "memorydesk.lineage.canary", "gate", str(path)]
    if keep_receipts:
        command.append("--keep-receipts")
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        passed, stopped = None, None
        assert process.stdout is not None
        done = threading.Event()

        def stop_when_asked() -> None:  # a stop reaches the gate at once, not at its next line
            while not done.wait(0.1):
                if cancelled is not None and cancelled():
                    process.send_signal(signal.SIGINT)  # the gate removes what it wrote, then ends
                    return

        watcher = threading.Thread(target=stop_when_asked, daemon=True)
        watcher.start()
        try:
            for line in process.stdout:
                message = json.loads(line)
                if "progress" in message and progress is not None:
                    progress(*message["progress"])
                elif "check" in message and on_check is not None:
                    on_check(Check(**message["check"]))
                elif "passed" in message:
                    passed = bool(message["passed"])
                elif "stopped" in message:
                    stopped = str(message["stopped"])
        finally:
            done.set()
        error = process.stderr.read() if process.stderr else ""
        process.wait()
    if stopped is not None:
        raise CanaryStopped(stopped)
    if passed is None:
        lines = error.strip().splitlines()
        raise RuntimeError(f"the canary stopped: {lines[-1] if lines else 'no result'}")
    return passed


def _print_json(message: dict) -> None:
    print(json.dumps(message), flush=True)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "gate":
        # Stop is a SIGINT from the desk: it must raise here even when the desk was started with
        # SIGINT ignored (in the background by a shell, say), which every child would inherit
        signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            passed = run_gate(Path(args[1]), lambda _line: None, keep_receipts="--keep-receipts" in args,
                              progress=lambda done, total, text: _print_json({"progress": [done, total, text]}),
                              on_check=lambda c: _print_json({"check": asdict(c)}))
        except CanaryStopped as exc:
            _print_json({"stopped": str(exc)})
            return 130
        except KeyboardInterrupt:  # while checking: its memories were removed on the way out
            _print_json({"stopped": "the canary was stopped while checking; its memories were removed"})
            return 130
        _print_json({"passed": passed})
        return 0
    path, canary_id, batch = Path(args[0]), args[1], int(args[2])
    print(json.dumps(run_batch(path, canary_id, batch)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
