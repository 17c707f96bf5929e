"""`memory-desk lineage export` and `lineage serve`: receipts out of a workspace, and in over OTLP/HTTP."""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from memorydesk.core.errors import BadInput
from memorydesk.lineage.receipt_files import FORMATS


def register(commands) -> None:
    e = commands.add_parser(
        "export", help="write a workspace's receipts as JSON Lines or OTLP/JSON",
        description="Write the receipts stored in WORKSPACE, in the order stored. otlp-json is what an "
                    "OpenTelemetry Collector's file exporter writes: one ExportTraceServiceRequest a line, each run "
                    "a trace, each receipt a span with memory.lineage.* attributes. The workspace is opened "
                    "read-only; --out is written whole or not at all.")
    e.add_argument("workspace", metavar="WORKSPACE")
    e.add_argument("--format", choices=FORMATS, default="jsonl", help="default: %(default)s")
    e.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    e.set_defaults(func=run_export)

    s = commands.add_parser(
        "serve", help="receive receipts over OTLP/HTTP (/v1/traces, /v1/logs) into a workspace",
        description="An OTLP/HTTP receiver: POST /v1/traces or /v1/logs, protobuf or JSON, gzip or not. Spans and "
                    "log records with memory.lineage.* attributes are stored as receipts (all or nothing per "
                    "request, answered once committed); others are not stored. Listens on loopback only; "
                    "Ctrl+C stops it.")
    s.add_argument("workspace", metavar="WORKSPACE")
    s.add_argument("--listen", metavar="HOST:PORT", default="127.0.0.1:4318",
                   help="a loopback address and port (default: %(default)s; port 0 picks a free one)")
    s.add_argument("--max-body", metavar="BYTES", type=int, default=None,
                   help="largest request body accepted, also once decompressed (default: 16 MiB; at most 1 GiB)")
    s.set_defaults(func=run_serve)


def run_export(args: argparse.Namespace) -> int:
    from memorydesk.lineage.receipt_files import export_file, write_receipts
    from memorydesk.lineage.receipt_store import load
    from memorydesk.store import open_workspace

    if args.format == "otlp-json":
        from memorydesk.lineage.otlp_proto import require

        require()
    with open_workspace(args.workspace, read_only=True) as ws:
        if args.out is not None:
            count = export_file(ws, args.out, args.format)
            print(f"wrote {count:,} receipts to {args.out} ({args.format})", file=sys.stderr)
            return 0
        receipts = load(ws)
    write_receipts(receipts, sys.stdout, args.format)
    sys.stdout.flush()
    return 0


def run_serve(args: argparse.Namespace) -> int:
    from memorydesk.lineage.otlp_proto import require
    from memorydesk.lineage.otlp_serve import MAX_BODY, MAX_BODY_LIMIT, ReceiptServer, parse_listen
    from memorydesk.store import open_workspace

    require()
    address = parse_listen(args.listen)
    max_body = args.max_body if args.max_body is not None else MAX_BODY
    if not 1024 <= max_body <= MAX_BODY_LIMIT:
        raise BadInput(f"--max-body: between 1,024 bytes and {MAX_BODY_LIMIT:,} (1 GiB), not {max_body:,}: a request "
                       "body is held in memory whole")
    with open_workspace(args.workspace) as ws:
        try:
            server = ReceiptServer(ws, address, max_body=max_body)
        except OSError as exc:
            raise BadInput(f"cannot listen on {args.listen}: {exc.strerror or exc}") from None
        previous = signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
        print(f"receiving OTLP/HTTP on {server.url} (POST /v1/traces, /v1/logs) into {args.workspace}; "
              "Ctrl+C stops", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
            signal.signal(signal.SIGTERM, previous)
        print(f"stopped: {server.requests:,} requests, {server.stored:,} receipts stored, "
              f"{server.skipped:,} already stored, {server.refused:,} refused", flush=True)
    return 0
