"""``memory-desk import memoryos`` as an operator runs it: a subprocess, its output, its exit code."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import textwrap
import threading
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from fixtures.memoryos_dir import MemoryOSDir, qa
from helpers import SHARED_DATA, sha256
from memorydesk.lineage.memoryos import import_directory

SAMPLES = SHARED_DATA / "memoryos"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", *args], capture_output=True, text=True, timeout=120,
                          check=False)


def needs_samples() -> None:
    if not SAMPLES.exists():
        pytest.skip("../shared/data/memoryos is not present in this checkout")


@pytest.mark.shared
def test_llm_down_reports_the_error_text_and_the_fallback_session(tmp_path: Path) -> None:
    needs_samples()
    workspace = tmp_path / "ws.db"
    result = run("import", "memoryos", str(SAMPLES / "llm_down" / "data"), str(workspace), "--timezone", "UTC",
                 "--json", "--receipts-out", str(tmp_path / "r.jsonl"))
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert list(report) == ["users", "assistants", "anomalies", "receipts", "imported"]
    assert report["users"]["lena_d"] == {"stm": 5, "stm_fill": {"entries": 5, "capacity": None}, "mtm_sessions": 8,
                                         "mtm_pages": 22, "lpm_knowledge": 4, "profile": "error_text"}
    errors = sorted(f"{a['file']} {a['path']}" for a in report["anomalies"] if a["kind"] == "llm_error_text")
    assert errors == sorted([
        "users/lena_d/short_term.json [2].agent_response",
        "users/lena_d/mid_term.json sessions.session_237c3e31.details[page_id=page_17352edb].meta_info",
        "users/lena_d/mid_term.json sessions.session_237c3e31.details[page_id=page_caabbb59].meta_info",
        "users/lena_d/mid_term.json sessions.session_237c3e31.details[page_id=page_af7299bb].meta_info",
        "users/lena_d/long_term_user.json user_profiles.lena_d.data"])
    assert [a["path"] for a in report["anomalies"] if a["kind"] == "fallback_session"] == [
        "sessions.session_237c3e31.summary"]
    assert all(list(a) == ["kind", "user", "file", "path", "detail"] for a in report["anomalies"])
    lines = (tmp_path / "r.jsonl").read_text().splitlines()
    assert len(lines) == report["receipts"] == report["imported"]["receipts"]

    classified = run("lineage", "classify", str(tmp_path / "r.jsonl"), "--now", "2025-03-16T00:00:00Z", "--json")
    assert classified.returncode == 1 and classified.stderr == ""
    assert "scope_conflict" not in {v["state"] for v in json.loads(classified.stdout)}
    assert run("check", str(workspace)).returncode == 0


@pytest.mark.shared
def test_a_clean_sample_exits_0_and_importing_again_says_nothing_is_new(tmp_path: Path) -> None:
    needs_samples()
    workspace, data = tmp_path / "ws.db", str(SAMPLES / "normal" / "data")
    first = run("import", "memoryos", data, str(workspace), "--timezone", "Europe/Berlin")
    assert first.returncode == 0, first.stderr
    assert "no anomalies" in first.stdout and "(new workspace)" in first.stdout
    again = run("import", "memoryos", data, str(workspace), "--timezone", "Europe/Berlin")
    assert again.returncode == 0 and again.stdout.splitlines()[-1].startswith("nothing new:")
    assert run("check", str(workspace)).returncode == 0


def synthetic(tmp_path: Path) -> MemoryOSDir:
    folder = MemoryOSDir(tmp_path / "data")
    folder.short_term = [qa(1, "2025-05-01 10:00:00"), qa(2, "2025-05-01 10:05:00")]
    folder.write()
    return folder


@pytest.mark.parametrize("case", ["no_zone", "unknown_zone", "not_memoryos", "truncated"])
def test_unusable_input_is_one_sentence_exit_2_and_nothing_written(tmp_path: Path, case: str) -> None:
    folder = synthetic(tmp_path)
    existing = tmp_path / "ws.db"
    import_directory(folder.root, existing, "UTC")
    data, zone = str(folder.root), ["--timezone", "UTC"]
    if case == "no_zone":
        zone = []
    elif case == "unknown_zone":
        zone = ["--timezone", "Europe/Atlantis"]
    elif case == "not_memoryos":
        data = str(tmp_path)
    else:
        stm = folder.user_dir() / "short_term.json"
        stm.write_text(stm.read_text()[: len(stm.read_text()) // 2])
    before = sha256(existing)
    for target in (existing, tmp_path / "fresh.db"):
        result = run("import", "memoryos", data, str(target), *zone)
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr.startswith("memory-desk: ") and result.stderr.count("\n") == 1, result.stderr
        assert "Traceback" not in result.stderr
    assert sha256(existing) == before and not (tmp_path / "fresh.db").exists()


def test_dry_run_creates_nothing(tmp_path: Path) -> None:
    folder = synthetic(tmp_path)
    result = run("import", "memoryos", str(folder.root), str(tmp_path / "ws.db"), "--timezone", "UTC", "--dry-run",
                 "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["dry_run"] is True and report["imported"]["stm_items"] == 2
    assert not (tmp_path / "ws.db").exists()


class Lines:
    """A subprocess's output lines, read in the background (so a test can wait with a timeout)."""

    def __init__(self, stream) -> None:
        self.queue: queue.Queue[str] = queue.Queue()
        self.stream = stream
        self.thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        """After the process ended: the pump has reached the end of the stream."""
        self.thread.join(timeout=30)
        self.stream.close()

    def _pump(self, stream) -> None:
        for line in stream:
            self.queue.put(line)

    def next(self, timeout: float = 60) -> str:
        return self.queue.get(timeout=timeout)


WRITER = textwrap.dedent("""
    import json, sys, time
    path, full = sys.argv[1], json.loads(sys.argv[2])
    text = json.dumps(full, indent=2)
    with open(path, "w", encoding="utf-8") as f:   # MemoryOS rewrites the whole file in place
        f.write(text[: len(text) // 2]); f.flush()
        time.sleep(3.0)                              # caught half written for a few polls
        f.write(text[len(text) // 2:])
""")


def test_watch_picks_up_a_rewritten_file_and_waits_out_a_partial_write(tmp_path: Path) -> None:
    folder = synthetic(tmp_path)
    workspace = tmp_path / "ws.db"
    watcher = subprocess.Popen(
        [sys.executable, "-m", "memorydesk", "import", "memoryos", str(folder.root), str(workspace), "--timezone",
         "UTC", "--watch", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = Lines(watcher.stdout), Lines(watcher.stderr)
    try:
        first = json.loads(out.next())
        assert first["imported"]["stm_items"] == 2
        grown = folder.short_term + [qa(3, "2025-05-01 10:10:00")]
        subprocess.run([sys.executable, "-c", WRITER, str(folder.user_dir() / "short_term.json"), json.dumps(grown)],
                       check=True, timeout=60)
        assert "waiting for a complete users/ana/short_term.json" in err.next()
        second = json.loads(out.next())
        assert second["users"]["ana"]["stm"] == 3 and second["imported"]["stm_items"] == 1
        # the new QA's two receipts (held, waiting) and, for the two QAs still there, that they still wait
        assert {k: v for k, v in second["imported"].items() if v} == {"stm_items": 1, "receipts": 2 + 2}
    finally:
        watcher.send_signal(signal.SIGINT)
        code = watcher.wait(timeout=30)
        out.close()
        err.close()
    assert code == 0
    check = run("check", str(workspace))
    assert check.returncode == 0, check.stdout


def test_watch_and_dry_run_do_not_combine(tmp_path: Path) -> None:
    folder = synthetic(tmp_path)
    result = run("import", "memoryos", str(folder.root), str(tmp_path / "ws.db"), "--timezone", "UTC", "--watch",
                 "--dry-run")
    assert result.returncode == 2 and "cannot be combined" in result.stderr
    assert not (tmp_path / "ws.db").exists()


@pytest.mark.shared
def test_the_crash_sample_with_its_capacity_names_where_the_lost_qa_lies(tmp_path: Path) -> None:
    needs_samples()
    truth = json.loads((SAMPLES / "crash_mid_migration" / "SCENARIO.json").read_text())
    lost = truth["anomalies"][0]["lost_qa"]["timestamp"]
    lost_utc = datetime.strptime(lost, "%Y-%m-%d %H:%M:%S").replace(tzinfo=ZoneInfo("Europe/Berlin")).astimezone(UTC)
    result = run("import", "memoryos", str(SAMPLES / "crash_mid_migration" / "data"), str(tmp_path / "ws.db"),
                 "--timezone", "Europe/Berlin", "--stm-capacity", "5", "--json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    [found] = [a for a in report["anomalies"] if a["kind"] == "interrupted_migration"]
    assert found["user"] == "omar_c" and found["to_utc"].endswith("Z") and found["from_utc"].endswith("Z")
    low, high = (datetime.strptime(found[k], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC) for k in ("from_utc", "to_utc"))
    assert low < lost_utc < high
    assert (found["from_local"], found["to_local"]) == ("2025-03-17 20:22:00", "2025-03-17 20:28:00")
    assert report["users"]["omar_c"]["stm_fill"] == {"entries": 4, "capacity": 5}
    text = run("import", "memoryos", str(SAMPLES / "crash_mid_migration" / "data"), str(tmp_path / "t.db"),
               "--timezone", "Europe/Berlin", "--stm-capacity", "5")
    assert "interrupted_migration  omar_c" in text.stdout and "reconcile" in text.stdout
    # the interval is an at-risk run, named by the report, and `lineage classify` judges it so (issue 34, point 3)
    assert found["run_id"] in text.stdout and "at-risk run of omar_c's interrupted migration" in text.stdout
    assert "cannot see" in text.stdout and "with_receipts" in text.stdout
    judged = run("lineage", "classify", str(tmp_path / "t.db"), "--json")
    assert judged.returncode == 1, judged.stderr
    at_risk = [r for r in json.loads(judged.stdout) if r["color"] == "at-risk"]
    assert [(r["runId"], r["state"]) for r in at_risk] == [(found["run_id"], "source_at_risk")]
    assert f"added {found['from_utc']}..{found['to_utc']}" in at_risk[0]["reason"]


@pytest.mark.shared
@pytest.mark.parametrize("sample", ["normal", "llm_down", "two_themes_duplicate_pages"])
def test_the_other_samples_with_their_capacity_report_no_interrupted_migration(tmp_path: Path, sample: str) -> None:
    needs_samples()
    truth = json.loads((SAMPLES / sample / "SCENARIO.json").read_text())
    capacity = truth["config"]["short_term_capacity"]
    result = run("import", "memoryos", str(SAMPLES / sample / "data"), str(tmp_path / "ws.db"), "--timezone",
                 truth["timezone"]["TZ"], "--stm-capacity", str(capacity), "--json")
    report = json.loads(result.stdout)
    assert not [a for a in report["anomalies"] if a["kind"] == "interrupted_migration"]
    assert {u: v["stm_fill"]["capacity"] for u, v in report["users"].items()} == {u: capacity for u in report["users"]}


@pytest.mark.shared
def test_without_a_capacity_the_fill_is_only_said(tmp_path: Path) -> None:
    needs_samples()
    result = run("import", "memoryos", str(SAMPLES / "crash_mid_migration" / "data"), str(tmp_path / "ws.db"),
                 "--timezone", "Europe/Berlin")
    assert result.returncode == 0, result.stderr
    assert "short-term memory holds 4 entries" in result.stdout and "--stm-capacity" in result.stdout
    assert "no anomalies" in result.stdout
    bad = run("import", "memoryos", str(SAMPLES / "crash_mid_migration" / "data"), str(tmp_path / "x.db"),
              "--timezone", "Europe/Berlin", "--stm-capacity", "0")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and not (tmp_path / "x.db").exists()
