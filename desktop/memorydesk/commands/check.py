"""``memory-desk check WORKSPACE [--repair] [--thorough] [--json]``: the integrity report.

Exit 0 when clean, 1 when problems remain, 2 when the file is unusable or a repair is
refused. The report is made read-only. ``--repair`` then rebuilds the derived indexes
(FTS, vectors) and removes the rows a stopped canary run left, nothing else — unless SQLite
calls the file damaged: then it writes nothing (no backup either) and says how to recover
(``salvage`` or a backup).
"""

from __future__ import annotations

import json
import sys

from memorydesk.core.errors import WorkspaceDamaged
from memorydesk.store import integrity, open_workspace
from memorydesk.store.errors import recovery_advice


def register(sub) -> None:
    p = sub.add_parser("check", help="integrity report of a workspace (read-only unless --repair)")
    p.add_argument("workspace")
    p.add_argument("--repair", action="store_true",
                   help="rebuild the full-text and vector indexes and remove the rows a stopped canary run left "
                        "(refused when SQLite reports the file damaged)")
    p.add_argument("--thorough", action="store_true",
                   help=f"SQLite's full integrity_check also on files over {integrity.THOROUGH_UP_TO // 2**20} MB "
                        "(smaller ones always get it), and FTS5's comparison of the index with the facts")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)


def _notes(notes: list[str]) -> None:
    for note in dict.fromkeys(notes):
        print(f"memory-desk: note: {note}", file=sys.stderr)


def run(args) -> int:
    with open_workspace(args.workspace, read_only=True, incomplete_ok=True) as ws:
        report = integrity.check(ws, thorough=args.thorough or args.repair)
        notes = ws.notes  # said once the command has its answer (a refusal stays one line)
    repaired: list[str] = []
    if args.repair:
        damaged = [p for p in report.problems if p.kind == "sqlite_corrupt"]
        if damaged:
            more = f" and {len(damaged) - 1} more" if len(damaged) > 1 else ""
            raise WorkspaceDamaged(f"{args.workspace}: SQLite reports the file damaged ({damaged[0].detail}{more}); "
                                   f"--repair writes nothing into a damaged file; {recovery_advice(args.workspace)}")
        index_mismatch = any(p.kind == "fts_out_of_sync" and not p.id for p in report.problems)  # FTS5 found it
        with open_workspace(args.workspace) as ws:  # a product file is adopted (backed up first) only to repair
            report = integrity.check(ws, sqlite=False)
            if index_mismatch or any(p.kind in integrity.DERIVED_KINDS for p in report.problems):
                repaired = integrity.repair(ws)
                report = integrity.check(ws, sqlite=False)
            if any(p.kind == "canary_leftover" for p in report.problems):
                repaired += integrity.remove_canary_leftovers(ws)
                report = integrity.check(ws, sqlite=False)
            notes = [*notes, ws.take_notice()] if ws.notice else notes
            report.sqlite_check = "integrity_check"
    _notes(notes)
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
    if report.sqlite_check == "quick_check":
        _notes(["SQLite's quick_check ran (the file is over "
                f"{integrity.THOROUGH_UP_TO // 2**20} MB); --thorough runs its full integrity_check"])
    return 1 if report.problems else 0
