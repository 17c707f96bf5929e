"""``memory-desk grants`` as a user runs it: the matrix agrees with the product's rules cell
by cell on a product-format workspace, read-only, and bad input is one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import grant_oracle as oracle
from helpers import sha256


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.shared
def test_json_agrees_with_the_products_rules_on_the_shared_sample(sample_db: Path) -> None:
    before = sha256(sample_db)
    result = run("grants", str(sample_db), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == oracle.matrix(sample_db, oracle.INDEX_ORDER)
    assert sha256(sample_db) == before  # read-only


def test_text_marks_sources_and_domains_without_a_row(product_db: Path) -> None:
    result = run("grants", str(product_db))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["domain", *oracle.NINE]
    by_domain = {line.split()[0]: line.split()[1:] for line in lines[1:-1]}
    assert by_domain["codebase"][-1] == "none?"  # ambiguous, 'Engineer' decides
    assert by_domain["oncall"][:9] == ["read*", "read*", "read*", "read", "read*", "read*", "read*", "read!", "write!"]
    assert by_domain["repo:acme-web/conventions"][:3] == ["write^", "read", "write^"]
    assert "(no domain row)" in " ".join(by_domain["pr-reviews"])
    assert "fail-open" in lines[-1]


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    for args in (("grants", str(junk)), ("grants", str(tmp_path / "missing.db"), "--json")):
        result = run(*args)
        assert result.returncode == 2 and result.stdout == ""
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
