"""A receipts file, whatever its format: JSON Lines, or OTLP/JSON (traces or logs), told from the content;
and a workspace's receipts written out in either (:func:`export_file`).

OTLP/JSON is what the OpenTelemetry Collector's file exporter writes: one
``ExportTraceServiceRequest`` (``{"resourceSpans": …}``) or ``ExportLogsServiceRequest``
(``{"resourceLogs": …}``) per line; a single request spread over several lines (pretty
printed) is read too. Anything else is read as JSON Lines. Either way reading is all or
nothing: the first bad line raises :class:`~memorydesk.lineage.jsonl.BadReceiptLine`
(``line N: …``, for OTLP also which span or log record) and nothing is returned.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TextIO

from memorydesk.core.errors import BadInput
from memorydesk.core.receipts import Receipt, gc_paused
from memorydesk.lineage.jsonl import BadReceiptLine, parse_jsonl
from memorydesk.lineage.otlp import ReceiptRecords
from memorydesk.lineage.otlp_json import kind_of, receipts_from_json

OTLP_LINE_MAX = 64 * 1024 * 1024  # bytes of one OTLP/JSON line (one export request)
_MARKERS = (b'"resourceSpans"', b'"resourceLogs"')


def _as_bytes(line: str | bytes) -> bytes:
    return line.encode("utf-8", "surrogatepass") if isinstance(line, str) else bytes(line)


def _is_otlp_line(line: bytes) -> bool:
    text = line.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not text.startswith(b"{") or not any(m in text[:4096] for m in _MARKERS):
        return False
    try:
        return kind_of(json.loads(text)) is not None
    except ValueError:
        return False


def parse_receipts(source: Iterable[str | bytes]) -> list[Receipt]:
    """The receipts of a document given as lines (an open file, text or binary)."""
    lines = iter(source)
    head: list[bytes] = []
    for raw in lines:
        head.append(_as_bytes(raw))
        if head[-1].strip(b"\xef\xbb\xbf \t\r\n"):
            break
    first = head[-1] if head else b""
    if _is_otlp_line(first):
        return _parse_otlp_lines(itertools.chain(head, lines))
    if first.strip(b"\xef\xbb\xbf \t\r\n") == b"{":  # perhaps one pretty-printed request
        rest = b"".join(_as_bytes(line) for line in lines)
        whole = b"".join(head) + rest
        if any(m in whole[:4096] for m in _MARKERS):
            return _parse_otlp_document(whole)
        return parse_jsonl(whole)
    return parse_jsonl(itertools.chain(head, lines))


def read_receipts(path: str | os.PathLike[str]) -> list[Receipt]:
    """Read a receipts file of either format; a file that cannot be read is :class:`BadInput`."""
    try:
        with open(path, "rb") as stream:
            return parse_receipts(stream)
    except OSError as exc:
        raise BadInput(f"cannot read {os.fspath(path)}: {exc.strerror or exc}") from None


def _request_receipts(text: bytes, records: ReceiptRecords, where: str) -> None:
    try:
        obj = json.loads(text)
    except UnicodeDecodeError as exc:
        raise BadInput(f"not valid UTF-8 (byte {exc.start + 1})") from None
    except (ValueError, RecursionError) as exc:
        raise BadInput(f"not valid JSON ({str(exc)[:120]})") from None
    if kind_of(obj) is None:
        raise BadInput("not an OTLP export request (no resourceSpans or resourceLogs); "
                       "a file is either all OTLP/JSON or all JSON Lines")
    receipts_from_json(obj, records, where)


def _numbered(lines: Iterable[bytes]) -> Iterator[tuple[int, bytes]]:
    for number, line in enumerate(lines, 1):
        if line.strip(b"\xef\xbb\xbf \t\r\n"):
            yield number, line


def _parse_otlp_lines(lines: Iterable[bytes]) -> list[Receipt]:
    records = ReceiptRecords()
    with gc_paused():
        for number, line in _numbered(lines):
            try:
                if len(line) > OTLP_LINE_MAX:
                    raise BadInput(f"the line is longer than {OTLP_LINE_MAX:,} bytes")
                _request_receipts(line.lstrip(b"\xef\xbb\xbf"), records, "")
            except BadInput as exc:
                raise BadReceiptLine(number, str(exc)) from None
    return records.receipts


def _parse_otlp_document(whole: bytes) -> list[Receipt]:
    records = ReceiptRecords()
    try:
        _request_receipts(whole.lstrip(b"\xef\xbb\xbf"), records, "")
    except BadInput as exc:
        raise BadReceiptLine(1, f"(one OTLP/JSON request over several lines) {exc}") from None
    return records.receipts


FORMATS = ("jsonl", "otlp-json")


def write_file(path: Path, fill: Callable[[TextIO], object]) -> None:
    """Write ``path`` through a temporary file beside it, fsynced and renamed (never half a file)."""
    partial = path.with_name(path.name + ".partial")
    try:
        with open(partial, "w", encoding="utf-8", newline="\n") as stream:
            fill(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(partial, path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise BadInput(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def write_receipts(receipts: list[Receipt], stream: TextIO, fmt: str) -> int:
    """``receipts`` on ``stream`` as JSON Lines or OTLP/JSON (needs the ``otlp`` extra)."""
    if fmt not in FORMATS:
        raise BadInput(f"unknown receipts format {fmt!r} (one of {', '.join(FORMATS)})")
    if fmt == "jsonl":
        from memorydesk.lineage.jsonl import write_jsonl

        return write_jsonl(receipts, stream)
    from memorydesk.lineage.otlp_proto import write_otlp_json

    return write_otlp_json(receipts, stream)


def export_file(ws, path: str | os.PathLike[str], fmt: str) -> int:
    """Every receipt stored in ``ws`` written to ``path`` in ``fmt``, whole or not at all; how many."""
    from memorydesk.lineage.receipt_store import load

    if fmt == "otlp-json":
        from memorydesk.lineage.otlp_proto import require

        require()
    receipts = load(ws)
    write_file(Path(path), lambda stream: write_receipts(receipts, stream, fmt))
    return len(receipts)
