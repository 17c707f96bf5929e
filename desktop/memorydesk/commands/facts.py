"""``memory-desk facts WORKSPACE [--as-of T] [--state S] [--json]``: facts as they stood at T.

Read-only. Every fact that existed at T (default: now), newest written first, with its
state then — ``active``, ``expired`` (``valid_until`` passed at T), ``superseded``,
``deleted`` — and ``changed_since`` (its row changed after T; the product keeps only
today's text). The rules are in ``browse.history.as_of``. ``--json`` prints
``[{id, domain, topic, state, changed_since}]``. Exit 0; 2 on bad input.
"""

from __future__ import annotations

import json
import sys
import time

from memorydesk.browse.history.as_of import STATES, facts_as_of
from memorydesk.commands.output import write_out
from memorydesk.core.moments import parse_moment, utc_text
from memorydesk.core.product.text import one_line
from memorydesk.store import open_workspace


def register(sub) -> None:
    p = sub.add_parser("facts", help="the facts as they stood at a time, with their state then (read-only)")
    p.add_argument("workspace")
    p.add_argument("--as-of", metavar="T", help="RFC 3339 UTC or unix seconds (default: now)")
    p.add_argument("--state", choices=("all", *STATES), default="all", help="only facts in this state then")
    p.add_argument("--json", action="store_true", help="print a JSON list (see the docs)")
    p.set_defaults(func=run)


def run(args) -> int:
    at = parse_moment(args.as_of, "--as-of") if args.as_of is not None else int(time.time())
    with open_workspace(args.workspace, read_only=True) as ws:
        count = 0
        for fact in facts_as_of(ws, at, args.state):
            if args.json:
                write_out(("[\n  " if not count else ",\n  ") + json.dumps(fact.to_json(), ensure_ascii=False))
            else:
                mark = "  (changed since)" if fact.changed_since else ""
                where = f"{one_line(fact.domain, 60)}/{one_line(fact.topic, 60)}"
                write_out(f"{fact.id}  {fact.state:<10} [{where}]{mark}\n")
            count += 1
        if args.json:
            write_out("\n]\n" if count else "[]\n")
        else:
            print(f"{count:,} fact{'s' if count != 1 else ''} as of {utc_text(at)}", file=sys.stderr)
    sys.stdout.flush()
    return 0
