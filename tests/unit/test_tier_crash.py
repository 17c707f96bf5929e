"""Crash safety: kill the process inside promotions, 50 times, each at a named point.

Afterwards every memory is in its source tier or its target tier — never in
neither, never in both — because each promotion is one SQLite transaction. Each kill lands
where a test point (``memorydesk.testpoints``) stops the worker: inside a write to short-term
memory, a promotion to mid-term memory or one to long-term memory, before its commit — never
after a guessed delay.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memorydesk.lineage.canary import where_memories_are
from memorydesk.store import open_workspace
from memorydesk.testpoints import ENV

WORKER = textwrap.dedent("""
    import sys
    from memorydesk.lineage.tiers import TierConfig, TierEngine
    from memorydesk.store import open_workspace
    path, round_ = sys.argv[1], sys.argv[2]
    ws = open_workspace(path)
    engine = TierEngine(ws, TierConfig(stm_capacity=2, heat_threshold=3.0))
    print("ready", flush=True)
    for n in range(1, 400):  # until the test point stops it (or it never comes: the test says so)
        engine.remember(f"crash/user-{n % 2}", "crash/assistant", f"memory {round_}-{n} about topic {n % 3}",
                        run_id=f"crash/{round_}")
        engine.promote_hot()
    print("done without reaching the point", flush=True)
""")
POINTS = ("tiers.stm", "tiers.mtm", "tiers.lpm")

KILLS = 50


@pytest.mark.slow
def test_killed_promotions_never_lose_or_duplicate_memory(tmp_path: Path) -> None:
    path = tmp_path / "crash.db"
    open_workspace(path, create=True).close()
    tiers_seen: set[str] = set()  # where memories stood after some kill (a later round promotes them on)
    for round_ in range(KILLS):
        point = f"{POINTS[round_ % 3]}:{1 + (round_ // 3) % 4}"  # each kind of write, its 1st to 4th time
        with subprocess.Popen([sys.executable, "-c", WORKER, str(path), str(round_)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, ENV: point}) as proc:
            assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
            mark = proc.stderr.readline().strip()  # the worker stops there and waits
            assert mark == f"memory-desk: test point {point.replace(':', ' ')}", (mark, proc.stdout.read())
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        with open_workspace(path, read_only=True) as ws:  # after every kill: each memory in one place
            held = where_memories_are(ws, "crash")
        assert [i for i, h in held.items() if len(h) != 1] == [], f"round {round_}"
        tiers_seen |= {t for h in held.values() for t in h}
    with open_workspace(path) as ws:
        places = where_memories_are(ws, "crash")
        with ws.read() as conn:
            integrity = conn.exec_driver_sql("PRAGMA integrity_check").scalar()
    assert integrity == "ok"
    assert len(places) >= KILLS and tiers_seen == {"stm", "mtm", "lpm"}
    assert [i for i, held in places.items() if len(held) != 1] == []
