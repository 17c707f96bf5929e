"""`memory-desk shot` renders each tab off-screen to a PNG without changing the file."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage


@pytest.mark.slow
@pytest.mark.parametrize("tab", ["facts", "policies", "graph", "lineage"])
def test_shot_writes_a_png_of_the_tab(sample_path, tmp_path, tab) -> None:
    out = tmp_path / f"{tab}.png"
    before = hashlib.sha256(sample_path.read_bytes()).hexdigest()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-m", "memorydesk", "shot", str(sample_path), "--tab", tab,
                           "--out", str(out), "--size", "1024x700"], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1024, 700)
    assert hashlib.sha256(sample_path.read_bytes()).hexdigest() == before


def test_shot_refuses_a_bad_size(sample_path, tmp_path) -> None:
    done = subprocess.run([sys.executable, "-m", "memorydesk", "shot", str(sample_path), "--tab", "facts",
                           "--out", str(tmp_path / "x.png"), "--size", "huge"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "--size" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_shot_of_a_search_as_the_agent_sees_it(sample_path, tmp_path) -> None:
    out = tmp_path / "agent.png"
    before = hashlib.sha256(sample_path.read_bytes()).hexdigest()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-m", "memorydesk", "shot", str(sample_path), "--tab", "facts",
                           "--out", str(out), "--search", "deploy on wednesday", "--agent-view"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (QImage(str(out)).width(), QImage(str(out)).height()) == (1280, 800)
    assert hashlib.sha256(sample_path.read_bytes()).hexdigest() == before  # a preview records no recall


def test_shot_refuses_agent_view_without_a_search(sample_path, tmp_path) -> None:
    done = subprocess.run([sys.executable, "-m", "memorydesk", "shot", str(sample_path), "--tab", "facts",
                           "--out", str(tmp_path / "x.png"), "--agent-view"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "--search" in done.stderr and "Traceback" not in done.stderr


def test_the_suite_never_runs_in_the_real_profile(tmp_path_factory) -> None:
    """HOME and the XDG folders (where ``shot`` would find settings) are the suite's own."""
    base = tmp_path_factory.getbasetemp().parent  # every worker's base, under one run folder
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        assert Path(os.environ[name]).is_relative_to(base), name


@pytest.mark.slow
def test_shot_leaves_the_recent_list_alone(sample_path, tmp_path) -> None:
    home = tmp_path / "home"
    config = home / ".config"
    config.mkdir(parents=True)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(home), "XDG_CONFIG_HOME": str(config)}
    done = subprocess.run([sys.executable, "-m", "memorydesk", "shot", str(sample_path), "--tab", "policies",
                           "--out", str(tmp_path / "p.png")], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    written = {p: p.read_text(errors="replace") for p in home.rglob("*") if p.is_file()}
    assert not [p for p, text in written.items() if sample_path.name in text]  # no recent entry names it


@pytest.mark.parametrize("tab", ["grants", "policies"])
def test_shot_of_a_file_whose_read_fails_writes_no_picture_and_exits_2(tmp_path, tab) -> None:
    """Issue 35, point 7: a tab whose read failed was saved as a normal-looking (empty) PNG, exit 0."""
    from fixtures import damage
    from helpers import SAMPLE_DB

    if not SAMPLE_DB.is_file():
        pytest.skip("../shared/data is not present in this checkout")
    broken = tmp_path / "broken.db"
    broken.write_bytes(SAMPLE_DB.read_bytes())  # the product's sample: grants and facts on pages of their own
    table = {"grants": "memory_access_grants_table", "policies": "memory_policies_table"}[tab]
    damage.zero_page(broken, damage.leaf_pages(broken, table)[0])
    out = tmp_path / "tab.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-m", "memorydesk", "shot", str(broken), "--tab", tab, "--out", str(out)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "no picture was written" in done.stderr and "damaged" in done.stderr
    assert not out.exists() and done.stdout == ""
