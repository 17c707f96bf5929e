"""The real window, as a person starts it: on the X11 (xcb) platform under Xvfb, not
offscreen. First ``memory-desk --demo`` in a fresh profile: the main window maps at
once, then the demo is built behind its progress bar (in the data folder, with
progress on the terminal too) and its rows show. Then ``memory-desk`` with no argument
reopens that demo. Each time the screenshot must not be blank, and the app must quit
through File ▸ Quit (Ctrl+Q) with exit 0.

A library Qt's xcb platform needs that is missing makes the app stop before its
window maps, so this test fails. Run by ``make window-test`` (CI runs it); it needs
Xvfb and is not part of ``make test``. The first start also waits for the demo's vectors:
building its own demo, the desk asks nobody for a reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import sqlean
from Xlib import display
from xscreen import find_mapped, grab, press, save_png, wait_for_window, xvfb

TITLE = "Memory Desk"
DEMO = "Acme demo — workspace.db"


@pytest.fixture(scope="module")
def screen() -> str:
    with xvfb() as name:
        yield name


def profile(tmp_path: Path, screen: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"WAYLAND_DISPLAY", "QT_QPA_PLATFORM_PLUGIN_PATH"}}
    for name in ("home", "data", "config", "tmp"):
        (tmp_path / name).mkdir(exist_ok=True)
    env.update(HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_CONFIG_HOME=str(tmp_path / "config"), TMPDIR=str(tmp_path / "tmp"),
               DISPLAY=screen, QT_QPA_PLATFORM="xcb", XDG_SESSION_TYPE="x11")
    return env


def vectors_missing(demo: Path) -> int | None:
    """Facts of the demo without a vector (None while the file cannot be read yet)."""
    try:
        conn = sqlean.connect(f"file:{demo}?mode=ro", uri=True)
        try:
            return conn.execute("SELECT count(*) FROM memory_facts_table WHERE embedding IS NULL").fetchone()[0]
        finally:
            conn.close()
    except sqlean.Error:
        return None


def no_reason_asked_until_vectors_are_in(d: display.Display, demo: Path, proc: subprocess.Popen) -> None:
    """The demo's own build asks a person nothing: its vectors are computed behind the progress
    bar, and no dialog asking for a reason maps meanwhile."""
    deadline = time.monotonic() + 300
    while vectors_missing(demo) != 0:
        assert find_mapped(d, "Index missing vectors") is None, "the demo's build asked for a reason"
        assert proc.poll() is None and time.monotonic() < deadline, "the demo's vectors were not computed"
        time.sleep(0.5)
    assert find_mapped(d, "Index missing vectors") is None


def look_and_quit(screen: str, proc: subprocess.Popen, shot: Path, log: Path,
                  demo: Path | None = None) -> np.ndarray:
    """Wait for the main window to map, then for the demo in it (with ``demo``: and for its
    vectors, no reason asked); screenshot it once it shows rows; quit with Ctrl+Q (File ▸ Quit)."""
    d = display.Display(screen)
    try:
        try:
            win = wait_for_window(d, TITLE, proc, timeout=60)  # the window first…
            win = wait_for_window(d, DEMO, proc, timeout=300)  # …then the demo's rows in it
            if demo is not None:
                no_reason_asked_until_vectors_are_in(d, demo, proc)
        except AssertionError as exc:
            proc.kill()
            proc.wait()
            raise AssertionError(f"{exc}; it said:\n{log.read_text()}") from None
        deadline = time.monotonic() + 30
        while True:  # the lists load in the background: look until the picture settles on content
            time.sleep(1.0)
            pixels = grab(win)
            colours = len(np.unique(pixels.reshape(-1, 3), axis=0))
            if colours >= 64 or time.monotonic() > deadline:
                break
        save_png(pixels, shot)
        press(d, win, "Control_L", "q")
    finally:
        d.close()
    proc.wait(timeout=60)
    return pixels


def test_the_window_maps_shows_the_demo_and_quits_on_x11(tmp_path: Path, screen: str) -> None:
    env = profile(tmp_path, screen)
    err = tmp_path / "first.err"
    demo = tmp_path / "data" / "MemoryDesk" / "memory-desk" / "demo" / "workspace.db"
    with err.open("wb") as stderr:
        first = subprocess.Popen([sys.executable, "-m", "memorydesk", "--demo"], env=env,
                                 stdout=subprocess.DEVNULL, stderr=stderr)
        pixels = look_and_quit(screen, first, tmp_path / "first.png", log=err, demo=demo)
    log = err.read_text()
    assert first.returncode == 0, log
    assert "Traceback" not in log
    assert "Building the demo workspace: writing facts" in log and "demo workspace ready" in log  # on the terminal
    height, width, _ = pixels.shape
    assert width >= 900 and height >= 400
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) >= 64, "the screenshot is blank"
    assert pixels.std() > 10
    assert demo.is_file()
    assert not [p.name for p in (tmp_path / "tmp").rglob("*") if "memorydesk" in p.name or ".db" in p.name]

    with err.open("wb") as stderr:
        again = subprocess.Popen([sys.executable, "-m", "memorydesk"], env=env, stdout=subprocess.DEVNULL,
                                 stderr=stderr)
        look_and_quit(screen, again, tmp_path / "again.png", log=err)
    again_log = err.read_text()
    assert again.returncode == 0, again_log
    assert "demo workspace ready" in again_log and "Building the demo workspace" not in again_log  # reused
    shots = os.environ.get("MEMORYDESK_SHOT_DIR")
    if shots:
        (Path(shots) / "real-window.png").write_bytes((tmp_path / "first.png").read_bytes())
