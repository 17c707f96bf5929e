"""`memory-desk lineage`: judge lineage receipts.

``lineage classify FILE.jsonl [--now T] [--fresh-for 24h] [--json]`` reads receipts
(``-`` reads standard input) — or, given a workspace database instead of a file, the
receipts stored in it (opened read-only) — and prints one verdict per run, sorted by ``runId``:
aligned text columns ``runId state color reason``, judged as of ``--now`` (only receipts
with ``atUtc`` ≤ ``--now`` count; a run without one is not listed), or with ``--json`` a list of
``{"runId", "state", "color", "reason"}``. Exit 0 when every run is healthy or
waiting (also when the file holds no receipt at all, which is said on stderr), 1
otherwise, 2 on bad input: a bad receipt line is reported as ``line N: …`` on
stderr and nothing is classified.

``lineage ingest WORKSPACE FILE`` stores receipts in a workspace, all or
nothing: a bad line stores none (``line N: …``, exit 2). ``x-`` extension fields are
not stored. FILE (for ``classify`` too) is JSON Lines or OTLP/JSON, told from its content.

``lineage export WORKSPACE [--format jsonl|otlp-json] [--out FILE]`` writes the stored
receipts (standard output without ``--out``; a file is written whole or not at all).
``lineage serve WORKSPACE [--listen 127.0.0.1:4318]`` receives receipts over OTLP/HTTP
until interrupted (:mod:`memorydesk.lineage.otlp_serve`).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from datetime import UTC, datetime, timedelta

from memorydesk.core.errors import BadInput
from memorydesk.core.health.scalar import RunHealth, classify
from memorydesk.core.health.table import DEFAULT_FRESH_FOR, format_duration, parse_duration
from memorydesk.core.receipts import Receipt, format_utc, gc_paused, parse_utc
from memorydesk.lineage.jsonl import BadReceiptLine
from memorydesk.lineage.receipt_files import parse_receipts, read_receipts


def register(sub) -> None:
    parser = sub.add_parser("lineage", help="lineage receipts: classify runs, ingest into a workspace")
    commands = parser.add_subparsers(dest="lineage_command", required=True,
                                     metavar="{classify,ingest,export,serve}")

    c = commands.add_parser(
        "classify",
        help="classify each run of a receipts file, a workspace or a ClickHouse source",
        description="Classify each run of a lineage receipts file, or of the receipts stored in a workspace. "
        "The first rule that holds decides a run's "
        "state: scope_conflict, source_at_risk, promotion_missing (at-risk); stale_retrieval (stale); "
        "generation_unverified, uncertain (uncertain); stale_evidence (stale); waiting; healthy. "
        "Runs are judged as of --now, as an operator would have seen them then: only receipts with "
        "atUtc at or before --now count, and a run with no such receipt is not listed (it has not "
        "happened yet). "
        "Exit 0 if every run is healthy or waiting, 1 otherwise, 2 on bad input. "
        "resources/examples/receipts.jsonl holds one run in each state (judge it --now 2099-12-31T10:00:00Z).",
    )
    c.add_argument("file", metavar="SOURCE",
                   help="receipts, one JSON object per line, or OTLP/JSON ('-' for stdin); a workspace: its "
                        "stored receipts; chdb:PATH[?database=D&table=T] (a ClickHouse data directory) or "
                        "clickhouse://HOST[:PORT][/DB][?table=T] (a server): the OpenTelemetry Collector "
                        "exporter's otel_traces table")
    c.add_argument("--now", metavar="T", help="judge as of this RFC 3339 UTC time: receipts dated after it do not "
                        "count yet, runs without an earlier receipt are left out (default: the current time)")
    c.add_argument(
        "--fresh-for",
        metavar="DURATION",
        default=format_duration(DEFAULT_FRESH_FOR),
        help="freshness window, e.g. 24h, 90m, 2d, 3600s, up to 3650d (default: %(default)s)",
    )
    c.add_argument("--json", action="store_true", help='print [{"runId", "state", "color", "reason"}]')
    c.set_defaults(func=run_classify)

    i = commands.add_parser("ingest", help="store receipts in a workspace, all or nothing; already stored ones "
                                           "are skipped")
    i.add_argument("workspace", metavar="WORKSPACE")
    i.add_argument("file", metavar="FILE", help="receipts: JSON Lines, or OTLP/JSON traces or logs (what a "
                                                "Collector's file exporter writes), told from the content; "
                                                "'-' for stdin")
    i.set_defaults(func=run_ingest)

    from memorydesk.commands import lineage_otlp

    lineage_otlp.register(commands)


def run_ingest(args: argparse.Namespace) -> int:
    from memorydesk.lineage.receipt_store import ingest
    from memorydesk.store import open_workspace

    receipts = read_any(args.file)
    with open_workspace(args.workspace) as ws:
        done = ingest(ws, receipts)
    runs = len({r.run_id for r in receipts})
    line = f"stored {done.stored} receipts of {runs} runs in {args.workspace}"
    if done.skipped:
        line += f"; skipped {done.skipped} already stored (the same receiptId, or the same fields)"
    print(line)
    return 0


def run_classify(args: argparse.Namespace) -> int:
    now = _parse_now(args.now)
    fresh_for = _parse_fresh_for(args.fresh_for)
    with gc_paused(promote=True):  # one pause from reading to printing
        receipts = read_any(args.file)
        results = classify(receipts, now=now, fresh_for=fresh_for)
        if not results:
            said = (f"no receipts in {args.file}" if not receipts else
                    f"none of the {len(receipts)} receipts in {args.file} is dated at or before {format_utc(now)}")
            print(f"memory-desk: {said}", file=sys.stderr)
        sys.stdout.write(_as_json(results) if args.json else _as_text(results))
        sys.stdout.flush()
        return 0 if all(r.ok for r in results) else 1


def read_any(path: str) -> list[Receipt]:
    """The receipts of a file (``-``: standard input) or of a workspace; a bad line names the file
    and the line."""
    from memorydesk.core.inputs import RECEIPTS_MAX, check_input_file, read_input
    from memorydesk.lineage.fleet.source import is_source

    if is_source(path):  # chdb:PATH or clickhouse://HOST: the exporter's otel_traces table
        from memorydesk.lineage.fleet import read as fleet
        from memorydesk.lineage.fleet.source import parse_source

        return fleet.read_receipts(parse_source(path))
    if path != "-":  # a FIFO, a device, a socket is refused before it is opened (it would never end)
        check_input_file(path, "receipts", RECEIPTS_MAX)
    if path != "-" and _is_database(path):
        from memorydesk.lineage.receipt_store import load
        from memorydesk.store import open_workspace

        with open_workspace(path, read_only=True) as ws:
            return load(ws)
    try:
        if path == "-":
            return parse_receipts(io.BytesIO(read_input("-", "receipts", RECEIPTS_MAX)))
        return read_receipts(path)
    except BadReceiptLine as exc:
        raise BadInput(f"{'standard input' if path == '-' else path}: {exc}") from None


def _is_database(path: str) -> bool:
    """A workspace rather than a receipts file: the file starts with SQLite's header."""
    try:
        with open(path, "rb") as stream:
            return stream.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False  # read_receipts says what is wrong with it


def _parse_now(text: str | None) -> datetime:
    if text is None:
        return datetime.now(UTC)
    try:
        return parse_utc(text, "--now")
    except BadInput as exc:
        raise BadInput(str(exc).replace("field '--now'", "--now", 1)) from None


def _parse_fresh_for(text: str) -> timedelta:
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise BadInput(f"--fresh-for: {exc}") from None


def _as_json(results: list[RunHealth]) -> str:
    if not results:
        return "[]\n"
    rows = ",\n".join("  " + json.dumps(r.to_json(), ensure_ascii=False) for r in results)
    return "[\n" + rows + "\n]\n"


def _as_text(results: list[RunHealth]) -> str:
    if not results:
        return ""
    run_width = max(len(r.run_id) for r in results)
    state_width = max(len(r.state) for r in results)
    color_width = max(len(r.color) for r in results)
    return "".join(
        f"{r.run_id:<{run_width}}  {r.state:<{state_width}}  {r.color:<{color_width}}  {r.reason}\n"
        for r in results
    )
