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


def _pytest_files(tmp_path: Path, files: dict[str, str], *args: str, **popen) -> subprocess.CompletedProcess:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir",
                           str(tmp_path), "-p", "suite_setup", "-p", "no:cacheprovider", "-q", *args, str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, **popen)


def test_modules_of_one_worker_group_then_slow_ones_are_collected_first_each_whole(tmp_path: Path) -> None:
    files = {
        "test_a_plain.py": "def test_one(): pass\ndef test_two(): pass\n",
        "test_b_slow.py": "import pytest\ndef test_quick(): pass\n@pytest.mark.slow\ndef test_slow(): pass\n",
        "test_c_group.py": "import pytest\npytestmark = pytest.mark.xdist_group('g')\ndef test_grouped(): pass\n",
    }
    done = _pytest_files(tmp_path, files, "--collect-only")
    assert done.returncode == 0, done.stdout + done.stderr
    listed = [line.split("::")[-1] for line in done.stdout.splitlines() if "::" in line]
    assert listed == ["test_grouped", "test_quick", "test_slow", "test_one", "test_two"]


def test_programs_a_test_starts_can_be_stopped_with_ctrl_c_however_the_suite_was_started(tmp_path: Path) -> None:
    import signal

    probe = ("import signal, subprocess, sys\n"
             "def test_a_child_gets_sigint_as_from_a_terminal():\n"
             "    code = 'import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)'\n"
             "    assert subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)"
             ".stdout == 'True\\n'\n")
    ignored = _pytest_files(tmp_path, {"test_probe.py": probe},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))  # a background job's
    assert ignored.returncode == 0 and "1 passed" in ignored.stdout, ignored.stdout + ignored.stderr
