"""``memory-desk check WORKSPACE [--repair] [--json]``: the integrity report.

Exit 0 when clean, 1 when problems remain, 2 when the file is unusable. Read-only
unless ``--repair``, which rebuilds derived indexes (FTS, vectors) and nothing else.
"""

from __future__ import annotations

import json
import sys

from memorydesk.store import integrity, open_workspace


def register(sub) -> None:
    p = sub.add_parser("check", help="integrity report of a workspace (read-only unless --repair)")
    p.add_argument("workspace")
    p.add_argument("--repair", action="store_true", help="rebuild the full-text and vector indexes")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    repaired: list[str] = []
    with open_workspace(args.workspace, read_only=not args.repair) as ws:
        report = integrity.check(ws)
        if args.repair and any(p.kind in integrity.DERIVED_KINDS for p in report.problems):
            repaired = integrity.repair(ws)
            report = integrity.check(ws)
    if args.json:
        payload = report.to_json()
        if args.repair:
            payload["repaired"] = repaired
        json.dump(payload, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        for line in repaired:
            print(f"repaired: {line}")
        for p in report.problems:
            print(f"{p.kind}\t{p.table}\t{p.id}\t{p.detail}")
        summary = report.summary
        if summary:
            print("summary: " + ", ".join(f"{k} {v}" for k, v in summary.items()))
        else:
            print("no problems found")
    return 1 if report.problems else 0
