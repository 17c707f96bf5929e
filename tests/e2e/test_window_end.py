"""The window's state is kept when the session ends without a close: SIGTERM (a logout, a
service manager, ``kill``) closes the window as File ▸ Quit does — the tab shown and the
window's size are in the settings, and the process exits 0 instead of dying unsaved."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def test_sigterm_closes_the_window_with_its_state_saved(tmp_path: Path) -> None:
    from memorydesk.memory.service import MemoryService
    from memorydesk.store import open_workspace

    workspace = tmp_path / "team.db"
    with open_workspace(workspace, create=True) as ws:
        MemoryService(ws, embedder=False).propose_fact(domain="ops", topic="deploys", content="Deploys run at 9.")
    home = tmp_path / "home"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"),
           "XDG_DATA_HOME": str(home / "data"), "XDG_STATE_HOME": str(home / "state"),
           "XDG_CACHE_HOME": str(home / "cache")}
    ini = home / "config" / "MemoryDesk" / "memory-desk.ini"
    window = subprocess.Popen([sys.executable, "-m", "memorydesk", str(workspace)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (ini.is_file() and "recent" in ini.read_text()) and time.monotonic() < deadline:
            assert window.poll() is None, window.communicate()
            time.sleep(0.2)
        window.send_signal(signal.SIGTERM)
        out, err = window.communicate(timeout=60)
    finally:
        if window.poll() is None:
            window.kill()
    assert window.returncode == 0, err
    kept = ini.read_text()
    assert "tab=facts" in kept and "size=" in kept, kept
    assert "Traceback" not in err
