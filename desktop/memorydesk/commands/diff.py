"""``memory-desk diff OLD NEW [--json]``: what changed between two workspace files.

Read-only: both files are opened read-only and never changed. Rows are matched by id
(``browse.history.diff``). ``--json`` prints ``{facts: {added, removed, superseded, restored,
changed: [{id, fields}]}, policies: {added, removed, changed: [{id, fields}]}, grants:
[{role, domain, before, after}], edges: {added, removed: [[source, target, type]]},
conflicts: {added, resolved}, notes: {changed}}``, every list sorted (grants by domain,
then role). Exit 0 whether or not they differ (a report, not a check); 2 for the same
path twice or bad input. Files of two different workspaces are compared by id too,
and a line on stderr says so.
"""

from __future__ import annotations

import json
import sys

from memorydesk.browse.history.diff import compare
from memorydesk.commands.output import write_out
from memorydesk.crashlog import stderr_line


def register(sub) -> None:
    p = sub.add_parser("diff", help="what changed between two workspace files, matched by id (read-only)")
    p.add_argument("old", help="the older file (a backup, say)")
    p.add_argument("new", help="the newer file")
    p.add_argument("--json", action="store_true", help="print a JSON object (see the docs)")
    p.set_defaults(func=run)


def run(args) -> int:
    result = compare(args.old, args.new)
    for note in result.notes:
        stderr_line(note)
    if args.json:
        write_out(json.dumps(result.to_json(), ensure_ascii=False, indent=1) + "\n")
    else:
        for name, count in result.counts().items():
            if count:
                write_out(f"{name}: {count:,}\n")
        write_out(_details(result))
        if result.empty:
            write_out("no differences\n")
    sys.stdout.flush()
    return 0


def _details(result) -> str:
    lines = []
    for kind in ("added", "removed", "superseded", "restored"):
        lines += [f"fact {kind}: {fid}" for fid in result.facts[kind]]
    lines += [f"fact changed: {c['id']} ({', '.join(c['fields'])})" for c in result.facts["changed"]]
    for kind in ("added", "removed"):
        lines += [f"policy {kind}: {pid}" for pid in result.policies[kind]]
    lines += [f"policy changed: {c['id']} ({', '.join(c['fields'])})" for c in result.policies["changed"]]
    lines += [f"grant {g['role']} × {g['domain']}: {g['before']} → {g['after']}" for g in result.grants]
    for kind in ("added", "removed"):
        lines += [f"edge {kind}: {s} → {t} ({e})" for s, t, e in result.edges[kind]]
    lines += [f"conflict {kind}: {cid}" for kind in ("added", "resolved") for cid in result.conflicts[kind]]
    lines += [f"notes changed: {agent}" for agent in result.notes_changed]
    return "".join(line + "\n" for line in lines)
