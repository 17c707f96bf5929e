"""The window's first size fits the screen, frame included (the operator's finding: at 1280×800 the
window opened with a 1280×800 client area, so its title bar and status bar lay past the screen's
edges). Under Xvfb with a real window manager (openbox) that frames the window, as a desktop does.
Run by ``make window-test`` beside ``test_real_window``; skipped without Xvfb or openbox."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from Xlib import X, display
from Xlib.error import XError
from xscreen import xvfb

from memorydesk.store import open_workspace

SIZE = (1280, 800)


def client(d: display.Display, title_part: str):
    """The mapped client window whose title holds ``title_part``, anywhere under the root (a window
    manager puts it inside its frame)."""
    stack = list(d.screen().root.query_tree().children)
    while stack:
        win = stack.pop()
        try:
            name = win.get_full_text_property(d.get_atom("_NET_WM_NAME")) or win.get_wm_name() or ""
            if title_part in str(name) and win.get_attributes().map_state == X.IsViewable:
                return win
            stack += list(win.query_tree().children)
        except XError:
            continue
    return None


def frame_of(d: display.Display, win):
    """The top-level window around ``win`` (the window manager's frame), and its geometry on the root."""
    root = d.screen().root
    while True:
        parent = win.query_tree().parent
        if parent == root:
            break
        win = parent
    geo = win.get_geometry()
    return geo.x, geo.y, geo.width, geo.height


@pytest.mark.skipif(shutil.which("Xvfb") is None or shutil.which("openbox") is None,
                    reason="needs Xvfb and a window manager (openbox)")
def test_the_first_window_fits_a_1280x800_screen_frame_and_all(tmp_path: Path) -> None:
    workspace = tmp_path / "fits.db"
    open_workspace(workspace, create=True).close()
    env = {k: v for k, v in os.environ.items() if k not in {"WAYLAND_DISPLAY", "QT_QPA_PLATFORM_PLUGIN_PATH"}}
    for name in ("home", "data", "config"):
        (tmp_path / name).mkdir()
    env.update(HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_CONFIG_HOME=str(tmp_path / "config"), QT_QPA_PLATFORM="xcb", XDG_SESSION_TYPE="x11")
    with xvfb(SIZE) as screen:
        env["DISPLAY"] = screen
        manager = subprocess.Popen(["openbox"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        app = subprocess.Popen([sys.executable, "-m", "memorydesk", str(workspace)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        d = display.Display(screen)
        try:
            deadline = time.monotonic() + 60
            win = None
            while win is None and time.monotonic() < deadline and app.poll() is None:
                win = client(d, "fits.db")
                time.sleep(0.3)
            assert win is not None, "the window never mapped"
            x, y, width, height = frame_of(d, win)
            settled = None
            while settled != (x, y, width, height) and time.monotonic() < deadline:  # the desk's own refit
                settled = (x, y, width, height)
                time.sleep(1.0)
                x, y, width, height = frame_of(d, win)
            assert x >= 0 and y >= 0 and x + width <= SIZE[0] and y + height <= SIZE[1], (x, y, width, height)
            assert width >= 900 and height >= 600  # still the window, not a sliver of it
        finally:
            d.close()
            app.terminate()
            app.wait(timeout=30)
            if app.stderr is not None:
                app.stderr.close()
            manager.terminate()
            manager.wait(timeout=30)
