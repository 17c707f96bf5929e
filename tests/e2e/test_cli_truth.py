"""The command line tells the truth: agents are listed and looked up by id or name, the
shipped example receipts show every health state, and no help text points outside the
repository."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

from helpers import REPO, sha256
from memorydesk import __version__
from memorydesk.cli import _subcommand_parser, _window_parser
from memorydesk.core.health.table import HealthState
from memorydesk.resources import resource_path

NOTE = "- prefers small PRs\n- watch the flaky e2e suite"  # a-coder's note in the fixture


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", *args], capture_output=True, text=True, timeout=120)


def test_agents_lists_id_name_role_and_note_length_without_writing(product_db: Path) -> None:
    before = sha256(product_db)
    listed = run("agents", str(product_db), "--json")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == [
        {"id": "a-coder", "name": "Cody", "role": "coder", "note_length": len(NOTE)},
        {"id": "a-ops", "name": "Otto", "role": "devops", "note_length": 0},
        {"id": "a-review", "name": "Rita", "role": "reviewer", "note_length": 0},
    ]
    text = run("agents", str(product_db))
    assert text.returncode == 0
    lines = text.stdout.splitlines()
    assert lines[0].split() == ["ID", "NAME", "ROLE", "NOTE"]
    assert lines[1].split() == ["a-coder", "Cody", "coder", str(len(NOTE))]
    assert sha256(product_db) == before


def test_preamble_takes_an_exact_name_as_well_as_an_id(product_db: Path) -> None:
    by_id = run("preamble", str(product_db), "--agent", "a-coder")
    by_name = run("preamble", str(product_db), "--agent", "Cody")
    assert by_id.returncode == by_name.returncode == 0, by_name.stderr
    assert by_name.stdout == by_id.stdout
    assert "## My Notes\n" + NOTE in by_id.stdout


def test_preamble_refuses_an_unknown_agent_naming_the_close_matches(product_db: Path) -> None:
    wrong_case = run("preamble", str(product_db), "--agent", "cody")
    assert wrong_case.returncode == 2 and wrong_case.stdout == ""
    assert wrong_case.stderr.count("\n") == 1
    assert "close matches: Cody (a-coder)" in wrong_case.stderr
    similar = run("preamble", str(product_db), "--agent", "Ott")
    assert similar.returncode == 2 and "Otto (a-ops)" in similar.stderr
    nobody = run("preamble", str(product_db), "--agent", "nobody")
    assert nobody.returncode == 2 and nobody.stdout == ""
    assert "no agent has the id or name 'nobody'" in nobody.stderr
    assert f"memory-desk agents {product_db.name}" in nobody.stderr
    assert "Traceback" not in nobody.stderr + similar.stderr


def test_the_example_receipts_show_all_nine_health_states() -> None:
    example = resource_path("examples/receipts.jsonl")
    assert example.is_file()
    result = run("lineage", "classify", str(example), "--now", "2099-12-31T10:00:00Z", "--json")
    assert result.returncode == 1, result.stderr  # some runs are not healthy: that is the point
    states = [run_["state"] for run_ in json.loads(result.stdout)]
    assert sorted(states) == sorted(state.value for state in HealthState)
    assert len(states) == 9


def _parsers(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _parsers(child)


def test_no_help_text_points_outside_the_repository() -> None:
    texts = [p.format_help() for p in (*_parsers(_subcommand_parser()), _window_parser())]
    assert len(texts) > 10
    outside = re.compile(r"\b(DESIGN|STYLE|CC_SCHEMA)\b|\.md\b|seeds/|shared/")
    assert [t.splitlines()[0] for t in texts if outside.search(t)] == []
    assert any("resources/examples/receipts.jsonl" in t for t in texts)


def test_version_is_the_one_in_pyproject_everywhere() -> None:
    import tomllib

    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert __version__ == version
    assert run("--version").stdout.strip() == f"memory-desk {version}"
    metainfo = (REPO / "packaging" / "io.memorydesk.desk.metainfo.xml").read_text()
    assert re.findall(r'<release version="([^"]+)"', metainfo)[0] == version
