"""``memory-desk search`` and ``memory-desk preamble`` as a user runs them (subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import sha256
from memorydesk.search.preamble import build_preamble
from memorydesk.store import open_workspace

pytestmark = pytest.mark.shared


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", *args], capture_output=True, timeout=300)


def test_keyword_json_gives_the_expected_first_hits(sample_db: Path, expected: dict) -> None:
    before = sha256(sample_db)
    for q in expected["search"]["queries"]:
        result = run("search", str(sample_db), q["query"], "--mode", "keyword", "--json")
        assert result.returncode == 0, result.stderr
        hits = json.loads(result.stdout)
        if q["query"] == "פריסה":
            assert hits == []  # the product's builder keeps no Hebrew term
            assert b"no keyword terms" in result.stderr
            continue
        assert hits[0]["id"] == q["expected_first_id"]
        assert all({"id", "domain", "topic", "score", "voices"} <= set(h) for h in hits)
        assert all(set(h["voices"]) == {"fact"} for h in hits)
    assert sha256(sample_db) == before


@pytest.mark.parametrize("mode", ["semantic", "hybrid"])
def test_fused_modes_explain_every_hit_and_change_nothing(sample_db: Path, mode: str) -> None:
    before = sha256(sample_db)
    result = run("search", str(sample_db), "how do we deploy the web app", "--mode", mode, "--json", "--limit", "7")
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)
    assert 0 < len(hits) <= 7
    for hit in hits:
        assert hit["voices"]
        for share in hit["voices"].values():
            assert share["rank"] >= 1
            assert share["contribution"] == pytest.approx(share["weight"] / (60 + share["rank"]))
        if mode == "hybrid":
            assert {"intent", "decay", "confidence_factor"} <= set(hit)
    assert sha256(sample_db) == before


def test_text_output_and_repo_option(sample_db: Path) -> None:
    result = run("search", str(sample_db), "import alias", "--repo", "acme-lumen-api", "--mode", "keyword")
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    assert out.startswith("keyword search, repo acme-lumen-api:")
    assert "repo:acme-lumen-web/" not in out


@pytest.mark.parametrize("query", ['"', "NEAR(", "*", "AND OR NOT", "-x", "'; DROP TABLE x; --"])
def test_hostile_queries_exit_cleanly(sample_db: Path, query: str) -> None:
    result = run("search", str(sample_db), "--mode", "keyword", "--json", "--", query) if query.startswith("-") \
        else run("search", str(sample_db), query, "--mode", "keyword", "--json")
    assert result.returncode == 0, result.stderr
    assert isinstance(json.loads(result.stdout), list)


def test_bad_input_is_one_line_on_stderr_and_exit_2(tmp_path: Path, sample_db: Path) -> None:
    missing = run("search", str(tmp_path / "nope.db"), "deploy")
    assert missing.returncode == 2 and missing.stderr.decode().count("\n") == 1
    assert b"Traceback" not in missing.stderr
    bad_repo = run("search", str(sample_db), "deploy", "--repo", "///")
    assert bad_repo.returncode == 2 and bad_repo.stderr.decode().count("\n") == 1
    bad_limit = run("search", str(sample_db), "deploy", "--limit", "-3")
    assert bad_limit.returncode == 2
    no_agent = run("preamble", str(sample_db))
    assert no_agent.returncode == 2


def test_preamble_prints_exactly_the_preamble(sample_db: Path) -> None:
    before = sha256(sample_db)
    agent = "ec7ac8ad-1b2b-406b-aae1-2c972399d29d"
    task = "Raise the sentry quota before the launch and check invoice rounding"
    result = run("preamble", str(sample_db), "--agent", agent, "--task", task)
    assert result.returncode == 0, result.stderr
    with open_workspace(sample_db, read_only=True) as ws:
        want = build_preamble(ws, agent, task)
    assert result.stdout.decode("utf-8") == want + "\n"
    assert want.startswith("## Agent Memory\n\n## Active Policies\n")
    assert sha256(sample_db) == before


def test_empty_preamble_prints_nothing(product_db: Path) -> None:
    with open_workspace(product_db) as ws, ws.write() as conn:
        conn.exec_driver_sql("UPDATE memory_policies_table SET active = 0")
    result = run("preamble", str(product_db), "--agent", "a-ops", "--task", "short")
    assert result.returncode == 0 and result.stdout == b""
