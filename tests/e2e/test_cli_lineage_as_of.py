"""``lineage classify --now T`` judges as of T: classifying the example file at T is the same
as classifying the file cut at T (every later line blanked, so line numbers stay), for every
case in it and at many times — in process, through the command line, and from a workspace."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from helpers import REPO
from memorydesk.core.health.scalar import classify
from memorydesk.core.receipts import format_utc, parse_utc
from memorydesk.lineage.jsonl import read_jsonl
from memorydesk.lineage.receipt_store import ingest
from memorydesk.store import open_workspace

EXAMPLE = REPO / "resources" / "examples" / "receipts.jsonl"


def moments() -> list:
    """Every receipt time, a second either side, and times before, between and after them all."""
    times = sorted({r.at_utc for r in read_jsonl(EXAMPLE)})
    second = timedelta(seconds=1)
    around = {t + d for t in times for d in (-second, timedelta(0), second)}
    extra = [parse_utc(s, "t") for s in ("2000-01-01T00:00:00Z", "2099-12-31T08:00:00Z", "2100-01-01T00:00:00Z",
                                         "2100-01-02T09:10:30Z", "2200-01-01T00:00:00Z")]
    return sorted(around | set(extra))


def cut(tmp_path: Path, moment) -> Path:
    """The example file as it stood at ``moment``: later lines blanked (numbering kept)."""
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    kept = [line if parse_utc(json.loads(line)["atUtc"], "atUtc") <= moment else "" for line in lines]
    path = tmp_path / f"cut-{format_utc(moment).replace(':', '')}.jsonl"
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return path


def cli(path: Path, moment) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", "lineage", "classify", str(path), "--now",
                           format_utc(moment), "--json"], capture_output=True, text=True, timeout=120)


def test_every_case_at_every_moment_in_process(tmp_path: Path) -> None:
    receipts = read_jsonl(EXAMPLE)
    seen_states = set()
    for moment in moments():
        whole = [v.to_json() for v in classify(receipts, now=moment)]
        assert whole == [v.to_json() for v in classify(read_jsonl(cut(tmp_path, moment)), now=moment)], moment
        seen_states |= {v["state"] for v in whole}
    assert len(seen_states) == 9  # the times cover every case of the file


def test_an_hour_before_any_receipt_of_a_run_it_is_not_judged() -> None:
    receipts = read_jsonl(EXAMPLE)
    verdicts = {v.run_id: v for v in classify(receipts, now=parse_utc("2099-12-31T08:00:00Z", "t"))}
    assert "run-01-healthy" not in verdicts
    assert set(verdicts) == {"run-09-stale-evidence"}  # the only run dated 2024
    # at 09:05:00 the healthy run's generation (09:11) has not happened: its newest receipt is the mtm commit
    early = {v.run_id: v for v in classify(receipts, now=parse_utc("2099-12-31T09:05:00Z", "t"))}
    assert "generation" not in early["run-01-healthy"].reason


@pytest.mark.slow
def test_the_command_line_judges_as_of_now(tmp_path: Path) -> None:
    picked = [parse_utc(s, "t") for s in ("2099-12-31T08:00:00Z", "2099-12-31T09:00:00Z", "2099-12-31T09:05:00Z",
                                          "2099-12-31T09:10:30Z", "2100-01-01T00:00:00Z", "2100-01-02T09:10:30Z")]
    for moment in picked:
        whole, part = cli(EXAMPLE, moment), cli(cut(tmp_path, moment), moment)
        assert whole.returncode == part.returncode, moment
        assert json.loads(whole.stdout) == json.loads(part.stdout), moment
    early = json.loads(cli(EXAMPLE, picked[0]).stdout)
    assert [v["runId"] for v in early] == ["run-09-stale-evidence"]


@pytest.mark.slow
def test_a_workspace_is_judged_as_of_now_too(tmp_path: Path) -> None:
    ws = tmp_path / "ws.db"
    with open_workspace(ws, create=True) as handle:
        ingest(handle, read_jsonl(EXAMPLE))
    moment = parse_utc("2099-12-31T09:05:00Z", "t")
    assert json.loads(cli(ws, moment).stdout) == json.loads(cli(cut(tmp_path, moment), moment).stdout)


def test_no_receipt_yet_is_said(tmp_path: Path) -> None:
    result = cli(EXAMPLE, parse_utc("2000-01-01T00:00:00Z", "t"))
    assert result.returncode == 0 and json.loads(result.stdout) == []
    assert "none of the 31 receipts" in result.stderr and "2000-01-01T00:00:00Z" in result.stderr
