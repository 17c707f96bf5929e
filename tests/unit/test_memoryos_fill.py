"""How full short-term memory is, and the interrupted migration it can prove (``--stm-capacity``)."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path

from fixtures.memoryos_dir import MemoryOSDir, page, qa, session
from memorydesk.core.receipts import format_utc
from memorydesk.lineage.memoryos import import_directory
from memorydesk.lineage.memoryos.fill import StmFill


def folder(tmp_path: Path, stm: int, *, pages: int = 1) -> MemoryOSDir:
    made = MemoryOSDir(tmp_path / "data")
    made.short_term = [qa(10 + k, f"2025-05-01 11:{k:02d}:00") for k in range(stm)]
    if pages:
        made.add_session(session("session_a", [page(f"page_{k}", qa(k, f"2025-05-01 10:{k:02d}:00"))
                                               for k in range(pages)], "2025-05-01 10:30:00"))
    made.write()
    return made


def interrupted(result) -> list:
    return [a for a in result.anomalies if a.kind == "interrupted_migration"]


def test_below_capacity_with_pages_is_an_interrupted_migration(tmp_path: Path) -> None:
    result = import_directory(folder(tmp_path, 2, pages=3).root, tmp_path / "ws.db", "UTC", stm_capacity=4)
    [found] = interrupted(result)
    stm_file = tmp_path / "data" / "users" / "ana" / "short_term.json"
    written = datetime.fromtimestamp(math.ceil(stm_file.stat().st_mtime), UTC)
    assert found.extra == {"from_utc": "2025-05-01T10:02:00Z", "to_utc": "2025-05-01T11:00:00Z",
                           "popped_after_utc": "2025-05-01T11:01:00Z", "popped_by_utc": format_utc(written),
                           "from_local": "2025-05-01 10:02:00", "to_local": "2025-05-01 11:00:00",
                           "entries": 2, "capacity": 4, "missing": 2, "run_id": result.at_risk_runs["ana"]}
    assert found.to_json()["from_utc"] == "2025-05-01T10:02:00Z" and result.exit_code == 1


def test_full_over_capacity_or_nothing_migrated_is_no_loss(tmp_path: Path) -> None:
    full = import_directory(folder(tmp_path / "a", 3).root, tmp_path / "a.db", "UTC", stm_capacity=3)
    over = import_directory(folder(tmp_path / "b", 5).root, tmp_path / "b.db", "UTC", stm_capacity=3)
    filling = import_directory(folder(tmp_path / "c", 1, pages=0).root, tmp_path / "c.db", "UTC", stm_capacity=3)
    assert not interrupted(full) and not interrupted(over) and not interrupted(filling)
    assert over.users["ana"].stm_fill == StmFill(5, 3)
    assert any("over its capacity (not a loss)" in line for line in over.lines())


def test_empty_short_term_memory_with_pages_names_an_open_interval(tmp_path: Path) -> None:
    result = import_directory(folder(tmp_path, 0, pages=2).root, tmp_path / "ws.db", "UTC", stm_capacity=2)
    [found] = interrupted(result)
    assert found.extra["to_utc"] is None and "after 2025-05-01 10:01:00" in found.detail


def test_without_a_capacity_nothing_is_judged_and_the_fill_is_said(tmp_path: Path) -> None:
    result = import_directory(folder(tmp_path, 1, pages=2).root, tmp_path / "ws.db", "UTC")
    assert not interrupted(result) and result.users["ana"].stm_fill == StmFill(1, None)
    assert result.to_json()["users"]["ana"]["stm_fill"] == {"entries": 1, "capacity": None}
    assert any("give --stm-capacity N" in line for line in result.lines())
