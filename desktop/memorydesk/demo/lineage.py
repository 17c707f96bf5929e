"""The demo's lineage history: four weeks of receipts, so the Lineage tab is never empty.

About 3,000 runs in some twenty lanes (people the agents work for × the agents), most of
them complete lineages — stored in STM, promoted to MTM (target first, then the source
leaves), consolidated to LPM (some straight from STM, as the product's own
consolidation does), retrieved and used in a generation with its proof — and these
stories among them:

- **a crash**: nine days before the end, the tier engine of one host died for 40
  minutes; the runs it was carrying in three lanes lost their short-term source without
  a target commit, or were never promoted (at-risk);
- **a bad adapter version**: ``memoryos-adapter 2.4.0`` ran for three days in two lanes
  and removed the source before committing the target, the MemoryOS reference
  implementation's order (every one of its runs is at-risk: filter by it);
- one lone lost promotion in an otherwise quiet lane two weeks back (narrower than a
  pixel at full zoom-out, and still drawn);
- stale retrievals (an older version came back), generations without their proof, a
  receipt without ``sourceVersion``, a failed LPM write after a commit (uncertain), a
  run that named two assistants (scope conflict);
- runs of the last hours still inside their waiting window (waiting), a daily canary
  in its own four lanes (marked ``canary``).

Everything older than the freshness window is judged ``stale_evidence`` at the time of
building, as the classifier says. Deterministic for a seed and a reference time; written
through the receipt store (one transaction).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from memorydesk.core.receipts import Receipt
from memorydesk.lineage import receipt_store
from memorydesk.store import Workspace

DAYS: Final = 28
USERS: Final = ("user:maya", "user:sam", "user:noor", "user:lee", "user:ravi", "user:ines", "user:tomas")
ASSISTANTS: Final = ("agent:ada", "agent:bram", "agent:chen", "agent:eli", "agent:farah", "agent:gus")
OURS: Final = "memorydesk 0.1.0"
ADAPTER_OK: Final = "memoryos-adapter 2.3.1"
ADAPTER_BAD: Final = "memoryos-adapter 2.4.0"
CANARY_USERS: Final = ("canary/user-a", "canary/user-b")
CANARY_ASSISTANTS: Final = ("canary/assistant-1", "canary/assistant-2")
RUNS_PER_DAY: Final = 105


class _History:
    def __init__(self, rng: random.Random, end: datetime) -> None:
        self.rng, self.end = rng, end
        self.receipts: list[Receipt] = []
        self.versions: dict[tuple[str, str], int] = {}
        self.count = 0

    def version(self, user: str, assistant: str) -> str:
        n = self.versions.get((user, assistant), 0) + 1
        self.versions[(user, assistant)] = n
        return f"v{n}"

    def run_id(self, prefix: str = "run") -> str:
        self.count += 1
        return f"{prefix}-{self.count:05d}"

    def add(self, run: str, user: str, assistant: str, tier: str, status: str, version: str, at: datetime,
            source: str | None, **fields: Any) -> None:
        self.receipts.append(Receipt(
            run_id=run, user_scope=user, assistant_scope=assistant, tier=tier, status=status, version=version,
            at_utc=at.replace(microsecond=0), source_version=source, receipt_id=f"{run}/{len(self.receipts)}",
            **fields))

    def lineage(self, start: datetime, user: str, assistant: str, source: str, *, story: str = "complete",
                canary: bool = False) -> None:
        """One run; ``story`` says where (and how) it breaks."""
        rng = self.rng
        run = self.run_id("daily-canary" if canary else "run")  # not "canary-…": the gate's own ids
        v = self.version(user, assistant)
        mark = {"canary": True} if canary else {}
        t = start
        window = t + timedelta(hours=rng.choice((2, 4, 6)))

        def add(tier: str, status: str, version: str = v, gap: float = 0, src: str | None = source, **f: Any):
            nonlocal t
            t = t + timedelta(minutes=gap)
            self.add(run, user, assistant, tier, status, version, t, src, **mark, **f)

        add("stm", "committed", source_present=True, waiting_until=window)
        if story == "waiting":
            return
        if story == "never-promoted":  # the crash: promotion never happened, and the window closed
            return
        direct = rng.random() < 0.3 and story == "complete"  # the product's own STM→LPM consolidation
        if story in ("lost", "bad-adapter"):
            add("stm", "committed", gap=rng.uniform(3, 30), source_present=False)
            if story == "bad-adapter":
                add("mtm", "failed", gap=rng.uniform(0.2, 2))
            return
        if direct:
            add("lpm", "committed", gap=rng.uniform(5, 40))
            add("stm", "committed", gap=0.1, source_present=False)
        else:
            add("mtm", "committed", gap=rng.uniform(5, 40))
            add("stm", "committed", gap=0.1, source_present=False)
            add("lpm", "committed", gap=rng.uniform(10, 90))
        if story == "failed-write":
            add("lpm", "failed", gap=rng.uniform(1, 5))
        other = assistant if story != "conflict" else next(a for a in ASSISTANTS if a != assistant)
        got = f"v{max(1, int(v[1:]) - 1)}" if story == "stale" else v
        t = t + timedelta(minutes=rng.uniform(1, 20))
        self.add(run, user, other, "retrieval", "verified", got, t,
                 None if story == "no-source-version" else source, expected_version=v, **mark)
        proof = None if story == "unproven" else f"sha256:{rng.getrandbits(40):010x}"
        add("generation", "verified", got, gap=rng.uniform(0.1, 2), depends_on_version=got, outcome_receipt=proof)


def history(seed: int, end: datetime) -> list[Receipt]:
    """The demo's receipts, for the four weeks before ``end`` (see the module)."""
    rng = random.Random(f"{seed}-lineage")
    h = _History(rng, end)
    start = end - timedelta(days=DAYS)
    lanes = [(u, a) for u in USERS for a in ASSISTANTS if rng.random() < 0.5]
    quiet = ("user:tomas", "agent:farah")
    if quiet not in lanes:
        lanes.append(quiet)
    busy = [lane for lane in lanes if lane != quiet]
    crash_at = end - timedelta(days=9, hours=5)
    crash_lanes = busy[:3]
    bad_from, bad_to = end - timedelta(days=18), end - timedelta(days=15)
    bad_lanes = busy[3:5]
    lone = end - timedelta(days=14, hours=7)
    events: list[tuple[datetime, tuple[str, str], str, str]] = []
    for _ in range(DAYS * RUNS_PER_DAY):
        at = start + timedelta(minutes=rng.uniform(0, DAYS * 1440 - 240))
        lane = rng.choice(busy)
        source = OURS if rng.random() < 0.6 else ADAPTER_OK
        story = rng.choices(("complete", "stale", "unproven", "no-source-version", "failed-write", "conflict"),
                            (0.93, 0.025, 0.02, 0.008, 0.01, 0.007))[0]
        if bad_from <= at <= bad_to and lane in bad_lanes:
            source, story = ADAPTER_BAD, "bad-adapter"
        if crash_at <= at <= crash_at + timedelta(minutes=40) and lane in crash_lanes:
            story = rng.choice(("lost", "never-promoted"))
        events.append((at, lane, source, story))
    for k in range(30):  # the crash's own burst: the runs it was carrying
        at = crash_at + timedelta(minutes=rng.uniform(0, 40))
        events.append((at, crash_lanes[k % 3], OURS, rng.choice(("lost", "never-promoted"))))
    for k in range(40):  # the quiet lane: a run now and then, one of them lost
        at = start + timedelta(days=DAYS * k / 40, minutes=rng.uniform(0, 600))
        events.append((at, quiet, OURS, "complete"))
    events.append((lone, quiet, OURS, "lost"))
    for k in range(10):  # the last hours: still waiting for promotion
        events.append((end - timedelta(minutes=rng.uniform(10, 90)), rng.choice(busy), OURS, "waiting"))
    for day in range(DAYS):  # the daily canary, in its own lanes
        for u in CANARY_USERS:
            for a in CANARY_ASSISTANTS:
                events.append((start + timedelta(days=day, hours=3, minutes=rng.uniform(0, 5)), (u, a), OURS,
                               "complete-canary"))
    events.sort(key=lambda e: (e[0], e[1]))
    for at, (user, assistant), source, story in events:
        canary = story == "complete-canary"
        h.lineage(at, user, assistant, source, story="complete" if canary else story, canary=canary)
    return h.receipts


def write_history(ws: Workspace, seed: int, end: int) -> int:
    """Store the demo's receipts (``end``: the reference time, epoch seconds); returns how many."""
    return receipt_store.ingest(ws, history(seed, datetime.fromtimestamp(end, UTC))).stored
