"""Launch → first Facts rows painted, as a person starts the desk, beside a bare PySide6 start.

Run with ``pytest tests/bench/bench_launch.py -s`` (or ``python`` on this file). Each round
starts, as its own process, ``memory-desk WORKSPACE --read-only`` on a copy of the
100,000-fact demo (``review_corpus.demo_100k``, without embeddings unless
``MEMDESK_BENCH_EMBEDDED=1``), and a bare PySide6 script: a ``QMainWindow`` with a
``QTableView`` of the newest 200 active facts read with ``sqlite3`` from the same file. Both
are timed from ``Popen`` to the line the process prints once its table has painted rows
(the desk's own "first Facts rows painted" log record, the script's first paint event),
then killed. Rounds alternate between the two, so load changes hit both alike; the
figures are medians with the load average. A last desk run is kept until its warm-up
(the other tabs, the model, search's copies) is done, and says how long that took.

``MEMDESK_BENCH_ROUNDS`` (default 7); ``MEMDESK_BENCH_DEMO`` another workspace to open. The window
goes to ``$DISPLAY`` when set (xcb), otherwise offscreen. Bytecode is written and used as an
installed desk would (the first round of each compiles; it is not counted).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).parents[1])]  # run as a script too
from helpers import DESK_UNTIL as DESK  # noqa: E402

ROUNDS = int(os.environ.get("MEMDESK_BENCH_ROUNDS", "7"))

BARE = textwrap.dedent("""
    import os, sqlite3, sys
    from PySide6.QtCore import QAbstractTableModel, Qt, QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow, QTableView
    app = QApplication(sys.argv[:1])
    con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    table = "memory_facts_table" if con.execute(
        "SELECT 1 FROM sqlite_master WHERE name = 'memory_facts_table'").fetchone() else "memory_facts"
    rows = con.execute(f"SELECT domain, topic, content, memory_type, veracity, confidence, created_at FROM {table} "
                       "WHERE superseded_by IS NULL ORDER BY rowid DESC LIMIT 200").fetchall()
    class Model(QAbstractTableModel):
        def rowCount(self, parent=None): return len(rows)
        def columnCount(self, parent=None): return 7
        def data(self, index, role=Qt.ItemDataRole.DisplayRole):
            return str(rows[index.row()][index.column()]) if role == Qt.ItemDataRole.DisplayRole else None
    class View(QTableView):
        def paintEvent(self, event):
            super().paintEvent(event)
            QTimer.singleShot(0, lambda: (print("painted", flush=True), os._exit(0)))
    window = QMainWindow(); view = View(); view.setModel(Model()); window.setCentralWidget(view)
    window.resize(1280, 800); window.show()
    app.exec()
""")


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "WAYLAND_DISPLAY")}
    for name in ("config", "data", "state", "cache"):
        (home / name).mkdir(parents=True, exist_ok=True)
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"),
               XDG_STATE_HOME=str(home / "state"), XDG_CACHE_HOME=str(home / "cache"),
               QT_QPA_PLATFORM="xcb" if os.environ.get("DISPLAY") else "offscreen")
    return env


def _timed(args: list[str], env: dict[str, str], timeout: float = 300.0) -> tuple[float, str]:
    started = time.perf_counter()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        took = time.perf_counter() - started
        proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout:
            proc.stdout.close()
    if not line:
        raise AssertionError(f"{args[:4]} printed nothing (exit {proc.returncode})")
    return took, line.strip()


def workspace() -> Path:
    from review_corpus import demo_100k

    given = os.environ.get("MEMDESK_BENCH_DEMO")  # another workspace (the one-shot benchmark's)
    source = Path(given) if given else demo_100k() if os.environ.get("MEMDESK_BENCH_EMBEDDED") == "1" \
        else demo_100k(embed=0)
    copy = Path(tempfile.mkdtemp(prefix="memorydesk-launch-")) / "launch.db"
    shutil.copyfile(source, copy)  # the runs never open the shared cached file itself
    return copy


def run(path: Path) -> dict[str, object]:
    home = Path(tempfile.mkdtemp(prefix="memorydesk-launch-home-"))
    env = _env(home)
    desk_cmd = [sys.executable, "-c", DESK, "paint", str(path), "--read-only"]
    bare_cmd = [sys.executable, "-c", BARE, str(path)]
    _timed(desk_cmd, env)  # compiles and caches bytecode, warms the file cache: not counted
    _timed(bare_cmd, env)
    desk: list[float] = []
    bare: list[float] = []
    load = [os.getloadavg()[0]]
    for _ in range(ROUNDS):
        desk.append(_timed(desk_cmd, env)[0])
        bare.append(_timed(bare_cmd, env)[0])
        load.append(os.getloadavg()[0])
    warm, said = _timed([sys.executable, "-c", DESK, "warm", str(path), "--read-only"], env)
    shutil.rmtree(home, ignore_errors=True)
    return {"desk": statistics.median(desk), "bare": statistics.median(bare), "desk_all": desk, "bare_all": bare,
            "load": statistics.median(load), "warm": warm, "warm_said": said}


def report(figures: dict[str, object]) -> None:
    desk, bare = float(figures["desk"]), float(figures["bare"])  # type: ignore[arg-type]
    print(f"\nlaunch → first Facts rows painted, 100,000-fact demo, {ROUNDS} rounds, load average "
          f"{figures['load']:.1f}:")
    print(f"  memory-desk WORKSPACE      median {desk:.2f} s  ({', '.join(f'{t:.2f}' for t in figures['desk_all'])})")
    print(f"  bare PySide6 table script  median {bare:.2f} s  ({', '.join(f'{t:.2f}' for t in figures['bare_all'])})")
    print(f"  ratio ×{desk / bare:.2f} (goal ≤ ×2; ≤ 2.5 s on a quiet machine)")
    print(f"  launch → warm-up done (other tabs, model, search's copies): {figures['warm']:.2f} s "
          f"({figures['warm_said']})")


@pytest.mark.slow
def test_bench_launch() -> None:
    path = workspace()
    try:
        report(run(path))
    finally:
        shutil.rmtree(path.parent, ignore_errors=True)


if __name__ == "__main__":
    test_bench_launch()
