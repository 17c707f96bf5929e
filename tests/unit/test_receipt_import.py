"""File ▸ Import receipts…, the back end: all or nothing, with progress, through the store's ingest."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.receipts import complete_lineage, eight_cases, to_jsonl
from memorydesk.core.errors import BadInput
from memorydesk.lineage import receipt_import, receipt_store
from memorydesk.lineage.receipt_import import import_file
from memorydesk.store import open_workspace


def rows() -> list[dict]:
    return [row for _, case, _ in eight_cases() for row in case]


def test_a_good_file_is_stored_whole_with_progress(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(receipt_import, "REPORT_EVERY", 5)
    file = tmp_path / "r.jsonl"
    file.write_text(to_jsonl(rows()), encoding="utf-8")
    seen: list[tuple[int, int, str]] = []
    with open_workspace(tmp_path / "w.db", create=True) as ws:
        result = import_file(ws, file, lambda d, t, x: seen.append((d, t, x)))
        stored = receipt_store.load(ws)
    assert result.read == result.stored == len(stored) == len(rows()) and result.runs == 8
    assert result.message().startswith(f"Imported {len(rows())} receipts of 8 runs from r.jsonl")
    size = file.stat().st_size
    assert seen[-1] == (size, size, f"storing {len(rows())} receipts")
    reading = [d for d, _t, x in seen if x.startswith("reading")]
    assert reading == sorted(reading) and len(reading) >= 4


def test_a_bad_line_refuses_the_whole_file(tmp_path: Path) -> None:
    good = to_jsonl(rows())
    file = tmp_path / "bad.jsonl"
    file.write_text(good + '{"runId": "x", "text": "a diary"}\n', encoding="utf-8")
    with open_workspace(tmp_path / "w.db", create=True) as ws:
        with pytest.raises(BadInput, match=rf"bad.jsonl, line {good.count(chr(10)) + 1}: .*nothing was imported"):
            import_file(ws, file)
        assert receipt_store.load(ws) == []


def test_an_empty_or_missing_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("\n\n", encoding="utf-8")
    with open_workspace(tmp_path / "w.db", create=True) as ws:
        with pytest.raises(BadInput, match="holds no receipts"):
            import_file(ws, tmp_path / "empty.jsonl")
        with pytest.raises(BadInput, match="cannot read nowhere.jsonl"):
            import_file(ws, tmp_path / "nowhere.jsonl")


def test_stopping_before_storing_stores_nothing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(receipt_import, "REPORT_EVERY", 2)
    file = tmp_path / "r.jsonl"
    file.write_text(to_jsonl(complete_lineage() * 3), encoding="utf-8")

    class Stop(Exception):
        pass

    def check() -> None:
        raise Stop

    with open_workspace(tmp_path / "w.db", create=True) as ws:
        with pytest.raises(Stop):
            import_file(ws, file, check=check)
        assert receipt_store.load(ws) == []
