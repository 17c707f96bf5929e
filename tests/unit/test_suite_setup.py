"""The suite's own set-up, run as pytest runs it (pyproject.toml and tests/suite_setup.py): every
test has a deadline, a slow one a longer one, and a misspelt setting stops the run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each starts pytest in a process of its own

ROOT = Path(__file__).resolve().parents[2]

SAMPLE = '''
import time

import pytest


def test_a_quick_test_that_hangs():
    time.sleep(2.5)


@pytest.mark.slow
def test_a_slow_test_as_long():
    time.sleep(2.5)
'''


def _pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """pytest with the project's settings and its set-up (tests/suite_setup.py, as a plugin) on a file of our own."""
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir",
                           str(tmp_path), "-p", "suite_setup", "-p", "no:cacheprovider", "-q", *args,
                           str(tmp_path / "test_sample.py")], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)


def test_a_test_past_its_deadline_is_stopped_and_a_slow_one_has_six_times_as_long(tmp_path: Path) -> None:
    hung = _pytest(tmp_path, "-o", "timeout=1", "-k", "quick")
    assert hung.returncode != 0
    told = hung.stdout + hung.stderr
    assert "+ Timeout +" in told and "test_a_quick_test_that_hangs" in told  # the stacks, named
    slow = _pytest(tmp_path, "-o", "timeout=1", "-k", "slow")
    assert slow.returncode == 0 and "1 passed" in slow.stdout, slow.stdout + slow.stderr  # it had 6 s


def test_a_misspelt_setting_stops_the_run(tmp_path: Path) -> None:
    done = _pytest(tmp_path, "-o", "timout=1", "--collect-only")
    assert done.returncode != 0
    assert "Unknown config option: timout" in done.stderr + done.stdout
