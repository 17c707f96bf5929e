"""JSON Lines in and out: line numbers on every error, all or nothing, stable export."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from fixtures.receipts import complete_lineage, receipt, to_jsonl
from memorydesk.core.errors import BadInput
from memorydesk.lineage.jsonl import (
    BadReceiptLine,
    dump_jsonl,
    parse_jsonl,
    read_jsonl,
    receipt_to_line,
    write_jsonl,
)

GOOD = json.dumps(receipt("stm", "committed"))


def test_one_receipt_per_line_blank_lines_skipped_line_numbers_kept() -> None:
    text = to_jsonl(complete_lineage()[:2]) + "\n   \n\t\n" + to_jsonl(complete_lineage()[2:3])
    receipts = parse_jsonl(text)
    assert [r.line for r in receipts] == [1, 2, 6]
    assert [r.tier for r in receipts] == ["stm", "mtm", "stm"]


def test_crlf_bom_and_no_final_newline_are_fine() -> None:
    text = "\ufeff" + GOOD + "\r\n" + GOOD
    assert len(parse_jsonl(text)) == 2
    assert len(parse_jsonl(text.encode("utf-8"))) == 2
    assert parse_jsonl("") == [] and parse_jsonl("\n\n") == []


def test_files_text_and_binary_streams_read_alike(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(to_jsonl(complete_lineage()), encoding="utf-8")
    from_path = read_jsonl(path)
    with open(path, encoding="utf-8") as stream:
        from_text = parse_jsonl(stream)
    with open(path, "rb") as stream:
        from_bytes = parse_jsonl(stream)
    assert from_path == from_text == from_bytes and len(from_path) == 6


def test_a_line_separator_inside_a_string_does_not_split_the_line() -> None:
    row = receipt("stm", "committed") | {"x-note": "a\u2028b"}
    [r] = parse_jsonl(json.dumps(row, ensure_ascii=False) + "\n")
    assert r.extensions == {"x-note": "a\u2028b"}


def bad(line: str) -> str:
    """The error for a file whose third line is ``line``."""
    text = GOOD + "\n\n" + line + "\n" + GOOD + "\n"
    with pytest.raises(BadReceiptLine) as caught:
        parse_jsonl(text)
    assert caught.value.line == 3
    assert isinstance(caught.value, BadInput)
    message = str(caught.value)
    assert message.startswith("line 3: ") and "\n" not in message
    return message


def row_with(**changes: object) -> str:
    row = receipt("stm", "committed")
    for key, value in changes.items():
        if value is ...:
            del row[key]
        else:
            row[key] = value
    return json.dumps(row)


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"runId": "r1", ', "line 3: not valid JSON (Expecting property name enclosed in double quotes"),
        ("not json", "line 3: not valid JSON (Expecting value at column 1)"),
        (GOOD + " " + GOOD, "line 3: not valid JSON (extra data at column"),
        (GOOD[:-1] + ', "atUtc": "2025-03-22T11:00:00Z"}', "line 3: field 'atUtc' appears more than once"),
        (GOOD[:-1] + ', "x-n": NaN}', "line 3: NaN is not allowed in JSON"),
        ("[1, 2]", "line 3: a receipt must be a JSON object, got an array"),
        ("null", "line 3: a receipt must be a JSON object, got null"),
        (row_with(text="remember: Lena is vegan"), "line 3: unknown field 'text' (receipts carry no content"),
        (row_with(content="x"), "line 3: unknown field 'content'"),
        (row_with(runId=...), "line 3: missing required field runId"),
        (row_with(atUtc=..., tier=...), "line 3: missing required fields tier, atUtc"),
        (row_with(atUtc="2025-03-22T11:00:00"), "line 3: field 'atUtc': '2025-03-22T11:00:00' has no UTC offset"),
        (
            row_with(atUtc="2025-03-22T12:00:00+01:00"),
            "line 3: field 'atUtc': '2025-03-22T12:00:00+01:00' is not in UTC",
        ),
        (row_with(waitingUntil="soon"), "line 3: field 'waitingUntil': 'soon' is not an RFC 3339 time"),
        (row_with(sourcePresent="false"), "line 3: field 'sourcePresent' must be true or false, got a string"),
        (row_with(version=2.0), "line 3: field 'version' must be a string or an integer, got a number"),
        (row_with(runId=12), "line 3: field 'runId' must be a string, got an integer"),
        (row_with(tier="cache"), "line 3: field 'tier': 'cache' is not one of"),
    ],
)
def test_malformed_lines_are_reported_with_their_number(line: str, message: str) -> None:
    assert bad(line).startswith(message)


def test_invalid_utf8_is_reported_with_its_line() -> None:
    data = (GOOD + "\n").encode() + b'{"runId": "\xff"}\n'
    with pytest.raises(BadReceiptLine, match=r"^line 2: not valid UTF-8"):
        parse_jsonl(data)


def test_all_or_nothing_the_first_bad_line_stops_everything(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    rows = [json.dumps(r) for r in complete_lineage()]
    rows.insert(4, row_with(text="secret"))
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(BadReceiptLine, match="^line 5: "):
        read_jsonl(path)


def test_unreadable_file_is_bad_input_without_a_line(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="cannot read") as caught:
        read_jsonl(tmp_path / "missing.jsonl")
    assert not isinstance(caught.value, BadReceiptLine)


def test_export_is_compact_stable_camel_case_and_round_trips() -> None:
    rows = complete_lineage()
    rows[0]["x-run-host"] = "ci-3"
    rows[0]["version"] = 22
    receipts = parse_jsonl(to_jsonl(rows))
    text = dump_jsonl(receipts)
    lines = text.splitlines()
    assert len(lines) == 6 and text.endswith("\n") and " " not in lines[0].replace("memorydesk 0.3.0", "")
    assert lines[0] == (
        '{"runId":"run-1","userScope":"user-a","assistantScope":"assistant-1","tier":"stm",'
        '"status":"committed","version":"22","sourceVersion":"memorydesk 0.3.0",'
        '"atUtc":"2025-03-22T11:00:00Z","sourcePresent":true,"x-run-host":"ci-3"}'
    )
    again = parse_jsonl(text)
    assert again == receipts and dump_jsonl(again) == text
    assert receipt_to_line(receipts[5]) == lines[5]


def test_write_jsonl_to_a_stream() -> None:
    receipts = parse_jsonl(to_jsonl(complete_lineage()))
    out = io.StringIO()
    assert write_jsonl(receipts, out) == 6
    assert out.getvalue() == dump_jsonl(receipts)
