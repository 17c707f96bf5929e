"""A real X server for the window test: Xvfb, and what a person does with a screen
(look for the window, look at it, press keys), through the X protocol (python-xlib)."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from Xlib import XK, X, display
from Xlib.error import XError
from Xlib.ext import xtest
from Xlib.xobject.drawable import Window

SCREEN = (1280, 860)


@contextmanager
def xvfb(size: tuple[int, int] = SCREEN) -> Iterator[str]:
    """A private Xvfb (``size`` pixels); yields its DISPLAY once it accepts connections."""
    binary = shutil.which("Xvfb")
    if binary is None:
        raise RuntimeError("Xvfb is not installed (Debian: apt-get install -y xvfb xauth)")
    read, write = os.pipe()
    proc = subprocess.Popen(
        [binary, "-displayfd", str(write), "-screen", "0", f"{size[0]}x{size[1]}x24", "-nolisten", "tcp"],
        pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    try:
        number = b""
        with os.fdopen(read, "rb") as pipe:
            number = pipe.readline().strip()
        if not number:
            raise RuntimeError("Xvfb did not start")
        yield f":{number.decode()}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _title(win: Window) -> str:
    try:
        name = win.get_full_text_property(win.display.get_atom("_NET_WM_NAME")) or win.get_wm_name()
    except XError:
        return ""
    return str(name or "")


def find_mapped(d: display.Display, title_part: str) -> Window | None:
    """The top-level window whose title contains ``title_part`` and that is mapped (viewable)."""
    for win in d.screen().root.query_tree().children:
        try:
            viewable = win.get_attributes().map_state == X.IsViewable
        except XError:
            continue
        if viewable and title_part in _title(win):
            return win
    return None


def wait_for_window(d: display.Display, title_part: str, proc: subprocess.Popen, timeout: float) -> Window:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        win = find_mapped(d, title_part)
        if win is not None:
            return win
        if proc.poll() is not None:
            raise AssertionError(f"the app exited with {proc.returncode} before its window mapped")
        time.sleep(0.2)
    raise AssertionError(f"no mapped window titled '*{title_part}*' within {timeout:.0f} s")


def grab(win: Window) -> np.ndarray:
    """What the screen shows of ``win``: an RGB array (height × width × 3)."""
    geo = win.get_geometry()
    image = win.get_image(0, 0, geo.width, geo.height, X.ZPixmap, 0xFFFFFFFF)
    pixels = np.frombuffer(image.data, dtype=np.uint8).reshape(geo.height, geo.width, 4)
    return pixels[:, :, 2::-1].copy()  # BGRX → RGB


def save_png(rgb: np.ndarray, path: Path) -> None:
    height, width, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[row].tobytes() for row in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6))
                     + chunk(b"IEND", b""))


def press(d: display.Display, win: Window, *keys: str) -> None:
    """Focus ``win`` and press ``keys`` together (e.g. ``"Control_L", "q"``), as a keyboard would."""
    win.set_input_focus(X.RevertToParent, X.CurrentTime)
    d.sync()
    time.sleep(0.3)
    codes = [d.keysym_to_keycode(XK.string_to_keysym(k)) for k in keys]
    for code in codes:
        xtest.fake_input(d, X.KeyPress, code)
    for code in reversed(codes):
        xtest.fake_input(d, X.KeyRelease, code)
    d.sync()
