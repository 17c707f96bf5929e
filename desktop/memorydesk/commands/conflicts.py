"""``memory-desk conflicts WORKSPACE [--open] [--fact ID] [--json]``: conflicts as the tab lists them.

Read-only. Every row of the product's conflict table, newest first, with the repeats of
one open cross-agent pair folded into one line. ``--open``: only lines still open (no
resolution, not settled by a person in the desk); ``--fact ID``: only lines naming that
fact. ``--json`` prints a list of ``{"ids", "type", "state", "fact_a", "fact_b",
"recorded_winner", "rule_winner", "count", "first_at", "last_at", "decision"}``: ``ids`` are the rows
folded into the line (newest first), ``state`` is the row's resolution (``superseded``),
``open``, or ``reviewed`` (an open pair a person settled); ``decision`` is what a person
decided on it in the desk, as the tab says it (``{decision, words, by, at}``, null when
nobody did: a restored loser reads ``superseded`` with the decision ``loser restored``);
``rule_winner`` is the product's rule applied to the two facts as they are now, null when
one is missing; times are the product's unix seconds. The text form prints one line per
conflict line, its state as the tab shows it.
"""

from __future__ import annotations

import datetime as dt
import json
import sys

from memorydesk.browse.conflicts.listing import ConflictLine, ConflictQuery, iter_lines
from memorydesk.commands.output import write_out
from memorydesk.store import open_workspace


def register(sub) -> None:
    p = sub.add_parser("conflicts", help="conflict rows folded, with recorded and rule winner (read-only)")
    p.add_argument("workspace")
    p.add_argument("--open", action="store_true", help="only conflicts nobody resolved yet")
    p.add_argument("--fact", metavar="ID", help="only conflicts naming this fact id")
    p.add_argument("--json", action="store_true", help="print a JSON list (see the docs)")
    p.set_defaults(func=run)


def _when(ts: int) -> str:
    try:
        return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError):
        return str(ts)


def _side(line: ConflictLine, fact_id: str) -> str:
    if fact_id == line.fact_a:
        return "A"
    return "B" if fact_id == line.fact_b else "?"


def _text(line: ConflictLine) -> str:
    where = f"[{line.domain}/{line.topic}]" if line.a.exists or line.b.exists else "[both facts missing]"
    missing = [name for name, f in (("A", line.a), ("B", line.b)) if not f.exists]
    rule = _side(line, line.rule_winner) if line.rule_winner else "-"
    recorded = _side(line, line.recorded_winner) if line.recorded_winner else "-"
    extra = f"  ×{line.count} since {_when(line.first_at)}" if line.count > 1 else ""
    dangling = f"  missing fact {', '.join(missing)}" if missing else ""
    return (f"{_when(line.last_at)}  {line.type:<13} {line.state_text:<10} {where}  A {line.fact_a}  B {line.fact_b}  "
            f"recorded {recorded} rule {rule}{extra}{dangling}")


def run(args) -> int:
    query = ConflictQuery(state="open" if args.open else "all", fact=(args.fact or "").strip() or None)
    with open_workspace(args.workspace, read_only=True) as ws:
        if args.json:
            write_out("[")
            count = 0
            for line in iter_lines(ws, query):
                write_out(("," if count else "") + "\n  " + json.dumps(line.to_json(), ensure_ascii=False))
                count += 1
            write_out("\n]\n" if count else "]\n")
            sys.stdout.flush()
            return 0
        count = 0
        for line in iter_lines(ws, query):
            write_out(_text(line) + "\n")
            count += 1
        print(f"{count} conflict line{'s' if count != 1 else ''}", file=sys.stderr)
        sys.stdout.flush()
    return 0
