"""MemoryOS's naive local times, read in the zone the operator names, across DST changes."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from fixtures.memoryos_dir import MemoryOSDir, qa, shifted_copy
from helpers import SHARED_DATA
from memorydesk.core.errors import BadInput
from memorydesk.lineage.memoryos import import_directory, load_zone
from memorydesk.lineage.memoryos.localtime import read_local

BERLIN = ZoneInfo("Europe/Berlin")


def test_a_time_on_either_side_of_a_change_gets_that_dates_offset() -> None:
    winter = read_local("2025-03-29 12:00:00", BERLIN, "x")
    summer = read_local("2025-03-31 12:00:00", BERLIN, "x")
    assert winter.utc == datetime(2025, 3, 29, 11, 0, tzinfo=UTC) and winter.choice is None
    assert summer.utc == datetime(2025, 3, 31, 10, 0, tzinfo=UTC) and summer.choice is None


def test_a_skipped_time_is_read_with_the_offset_before_the_change_and_says_so() -> None:
    reading = read_local("2025-03-30 02:30:00", BERLIN, "x")
    assert reading.utc == datetime(2025, 3, 30, 1, 30, tzinfo=UTC)
    assert "does not exist in Europe/Berlin" in reading.choice and "+01:00" in reading.choice


def test_a_repeated_time_is_read_as_its_first_occurrence_and_says_so() -> None:
    reading = read_local("2025-10-26 02:30:00", BERLIN, "x")
    assert reading.utc == datetime(2025, 10, 26, 0, 30, tzinfo=UTC)
    assert "happens twice" in reading.choice and "+02:00" in reading.choice and "01:30:00Z" in reading.choice


def test_utc_has_no_ambiguous_times_and_an_offset_in_the_text_wins() -> None:
    assert read_local("2025-10-26 02:30:00", ZoneInfo("UTC"), "x").choice is None
    given = read_local("2025-10-26T02:30:00+05:00", BERLIN, "x")
    assert given.utc == datetime(2025, 10, 25, 21, 30, tzinfo=UTC) and given.choice is None


@pytest.mark.parametrize("text", ["yesterday", "2025-13-01 00:00:00", "", 1741600000])
def test_a_time_memoryos_does_not_write_is_refused_naming_where(text) -> None:
    with pytest.raises(BadInput, match="users/a/short_term.json"):
        read_local(text, BERLIN, "users/a/short_term.json [0].timestamp")


@pytest.mark.parametrize("name", [None, "", "Mars/Olympus", "europe/berlin", "../etc/passwd",
                                  "/usr/share/zoneinfo/UTC"])
def test_a_missing_or_unknown_zone_is_one_sentence(name) -> None:
    with pytest.raises(BadInput) as caught:
        load_zone(name)
    message = str(caught.value)
    assert "\n" not in message and ("required" in message or "unknown time zone" in message)


def test_skipped_and_repeated_times_are_reported_with_the_choice(tmp_path: Path) -> None:
    folder = MemoryOSDir(tmp_path / "data")
    folder.short_term = [qa(1, "2025-03-30 01:59:59"), qa(2, "2025-03-30 02:30:00"), qa(3, "2025-10-26 02:30:00"),
                         qa(4, "2025-10-26 03:30:00")]
    folder.write()
    result = import_directory(folder.root, tmp_path / "ws.db", "Europe/Berlin")
    ambiguous = [a for a in result.anomalies if a.kind == "ambiguous_local_time"]
    assert [(a.user, a.file, a.path) for a in ambiguous] == [
        ("ana", "users/ana/short_term.json", "[1].timestamp"), ("ana", "users/ana/short_term.json", "[2].timestamp")]
    times = sorted(r.at_utc for r in result.receipts if r.status == "committed")
    assert times == [datetime(2025, 3, 30, 0, 59, 59, tzinfo=UTC), datetime(2025, 3, 30, 1, 30, tzinfo=UTC),
                     datetime(2025, 10, 26, 0, 30, tzinfo=UTC), datetime(2025, 10, 26, 2, 30, tzinfo=UTC)]
    assert result.exit_code == 1


@pytest.mark.shared
def test_a_directory_spanning_a_dst_change_converts_both_sides(tmp_path: Path) -> None:
    sample = SHARED_DATA / "memoryos" / "normal"
    if not sample.exists():
        pytest.skip("../shared/data/memoryos is not present in this checkout")
    shift = timedelta(days=19)  # 2025-03-10 … 03-22 becomes 03-29 … 04-10: Berlin moves to +02:00 on 03-30
    data = shifted_copy(sample / "data", tmp_path / "data", shift)
    truth = json.loads((sample / "SCENARIO.json").read_text())
    result = import_directory(data, tmp_path / "ws.db", "Europe/Berlin")

    expected = []
    for pair in truth["qa_pairs"]:
        local = datetime.strptime(pair["timestamp"], "%Y-%m-%d %H:%M:%S") + shift
        expected.append(local.replace(tzinfo=BERLIN).astimezone(UTC))
    present = sorted(r.at_utc for r in result.receipts if r.tier == "stm" and r.source_present
                     and r.status == "committed")
    assert present == sorted(expected)
    offsets = {(local.replace(tzinfo=BERLIN)).utcoffset() for local in
               (datetime.strptime(p["timestamp"], "%Y-%m-%d %H:%M:%S") + shift for p in truth["qa_pairs"])}
    assert offsets == {timedelta(hours=1), timedelta(hours=2)}  # both sides of the change are in the data
    in_gap = 0
    for path in data.rglob("*.json"):
        for text in _times(json.loads(path.read_text(encoding="utf-8"))):
            local = datetime.strptime(text, "%Y-%m-%d %H:%M:%S")
            offsets = {local.replace(tzinfo=BERLIN, fold=fold).utcoffset() for fold in (0, 1)}
            in_gap += len(offsets) > 1
    assert len([a for a in result.anomalies if a.kind == "ambiguous_local_time"]) == in_gap


def _times(value):
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("timestamp", "last_visit_time", "last_updated") and isinstance(item, str):
                yield item
            else:
                yield from _times(item)
    elif isinstance(value, list):
        for item in value:
            yield from _times(item)


@pytest.mark.parametrize(("stamp", "zone"), [("0001-01-01 00:00:00", "Europe/Berlin"), ("9999-12-31 23:59:59",
                                              "America/New_York"), ("0001-01-01 00:00:00", "UTC"),
                                             ("9999-12-31 23:59:59", "UTC"), ("1969-12-31 22:00:00", "UTC")])
def test_a_time_outside_what_memoryos_can_have_written_is_bad_input_exit_2(tmp_path: Path, capsys, stamp: str,
                                                                           zone: str) -> None:
    """Issue 35, point 7: year 1 and 9999 were an internal error (OverflowError, exit 70) in a zone whose
    offset crosses the calendar's end, and were imported in UTC. Now one sentence, exit 2, nothing made."""
    from memorydesk import cli

    folder = MemoryOSDir(tmp_path / "data")
    folder.short_term = [qa(1, "2025-03-10 19:05:00"), qa(2, stamp)]
    data = folder.write()
    code = cli.main(["import", "memoryos", str(data), str(tmp_path / "ws.db"), "--timezone", zone])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "short_term.json [1].timestamp" in err and "outside the years 1970–9998" in err
    assert not (tmp_path / "ws.db").exists()
