"""The one-folder app `make dist` builds (dist/memory-desk/), run as a user runs it: no
Python of ours, no checkout on its path. Run by `make dist-test` (not part of `make test`:
the build takes minutes)."""

from __future__ import annotations

import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from helpers import REPO

APP = Path(os.environ.get("MEMORYDESK_APP", REPO / "dist" / "memory-desk" / "memory-desk"))
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert APP.is_file(), f"{APP} does not exist: run `make dist` first"
    return tmp_path_factory.mktemp("home")


def run(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"}}
    clean.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"), "QT_QPA_PLATFORM": "offscreen", **env})
    return subprocess.run([str(APP), *args], cwd=home, env=clean, capture_output=True, text=True, timeout=600)


def test_version_and_the_guide_come_from_the_apps_metadata(home: Path) -> None:
    result = run(home, "--version")
    assert result.returncode == 0 and result.stdout.strip() == f"memory-desk {VERSION}"
    metadata = (APP.parent / "_internal" / f"memory_desk-{VERSION}.dist-info" / "METADATA").read_text()
    assert f"\nVersion: {VERSION}\n" in metadata
    for page in ("guide.md", "cli.md"):  # Help ▸ Guide shows them by section
        shipped = APP.parent / "_internal" / "memorydesk" / "_resources" / "docs" / page
        assert shipped.read_text() == (REPO / "docs" / page).read_text()
    assert [p.name for p in (APP.parent / "_internal").glob("memory_desk*")] == [f"memory_desk-{VERSION}.dist-info"]


def test_a_fresh_demo_is_built_checked_and_shot_by_the_frozen_app(home: Path) -> None:
    workspace = home / "demo.db"
    made = run(home, "demo", "create", str(workspace), "--facts", "300", "--embed", "40", "--quiet")
    assert made.returncode == 0, made.stderr
    embedded = re.search(r"embeddings: (\d+) facts have one", made.stdout)
    assert embedded and int(embedded.group(1)) >= 35, made.stdout  # model and tokenizer are inside the app
    checked = run(home, "check", str(workspace))
    assert checked.returncode == 0 and checked.stdout.strip() == "no problems found", checked.stdout
    for tab in ("facts", "policies"):
        out = home / f"{tab}.png"
        shot = run(home, "shot", str(workspace), "--tab", tab, "--out", str(out))
        assert shot.returncode == 0, shot.stderr
        image = QImage(str(out))
        assert (image.width(), image.height()) == (1280, 800)
    hits = run(home, "search", str(workspace), "how do we deploy", "--mode", "hybrid", "--json")
    assert hits.returncode == 0 and '"vector"' in hits.stdout, hits.stderr  # sqlite-vec and the model load
    agents = run(home, "agents", str(workspace))
    assert agents.returncode == 0 and len(agents.stdout.splitlines()) > 3


def test_the_canary_passes_in_the_frozen_app(home: Path) -> None:
    """The canary runs its batches in processes of their own (the app's executable)."""
    workspace = home / "canary.db"
    made = run(home, "demo", "create", str(workspace), "--facts", "200", "--embed", "0", "--quiet")
    assert made.returncode == 0, made.stderr
    gate = run(home, "canary", str(workspace))
    assert gate.returncode == 0, gate.stdout + gate.stderr
    assert "PASS restart: batch 2 ran in a new process" in gate.stdout


def test_every_subcommand_loads_in_the_frozen_app(home: Path) -> None:
    from memorydesk.cli import SUBCOMMANDS

    for name in SUBCOMMANDS:
        result = run(home, name, "--help")
        assert result.returncode == 0, f"{name}: {result.stderr}"
        assert "usage: memory-desk" in result.stdout


def test_the_example_receipts_ship_inside_the_app(home: Path) -> None:
    example = APP.parent / "_internal" / "memorydesk" / "_resources" / "examples" / "receipts.jsonl"
    result = run(home, "lineage", "classify", str(example), "--now", "2099-12-31T10:00:00Z", "--json")
    assert result.returncode == 1 and result.stdout.count('"runId"') == 9


def test_a_display_that_cannot_be_reached_is_one_line_not_an_abort(home: Path) -> None:
    result = run(home, "shot", "nothing.db", "--out", str(home / "x.png"), QT_QPA_PLATFORM="xcb", DISPLAY=":93")
    assert result.returncode == 2
    assert result.stderr.startswith("memory-desk: Qt's xcb platform")
    assert result.stderr.count("\n") == 1
