"""`memory-desk shot --size` below the window's minimum: the shot is the minimum, and it says so."""

from __future__ import annotations

import os
import subprocess
import sys

from PySide6.QtGui import QImage


def test_a_size_below_the_minimum_is_raised_and_said(sample_path, tmp_path) -> None:
    out = tmp_path / "small.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-m", "memorydesk", "shot", str(sample_path), "--out", str(out),
                           "--size", "10x10"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    image = QImage(str(out))
    assert image.width() > 10 and image.height() > 10
    assert done.stderr == (f"memory-desk: --size 10x10 is below the window's minimum size; "
                           f"the shot is {image.width()}x{image.height()}\n")
    assert done.stdout.strip().endswith(f"{image.width()}x{image.height()}")
