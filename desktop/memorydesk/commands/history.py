"""``memory-desk history WORKSPACE [--since T] [--until T] [--actor NAME] [--kind K] [--text S] [--json]``.

Read-only. Every change the file can account for, newest first (``browse.history.entries``):
the desk's own changes (who, when, why) and what agents wrote as far as the product's
rows tell it. Times are RFC 3339 UTC, unix seconds or a date alone (``2026-12-06``: that day's
midnight in this computer's local time, as the window's typed time field reads it). ``--json`` prints
``[{at, actor, actor_kind, kind, action, ids, summary, reason, undone, at_known, entry, undone_by,
details}]`` (``at`` unix seconds, ``actor_kind`` agent / reviewer / system, ``ids`` strings,
``undone`` true for a change of the desk since undone — the text and Markdown say “· undone”
after its action, as the tab does; ``entry`` the desk's entry number; ``reason`` a reason only,
``details`` what the row says of itself); the text gives one line per change: time, entry
(``#43``), who, what, ids, what changed, ``why:``, ``details:``. ``--text '#43'`` finds entry 43.
``--format markdown`` the same range as a Markdown table, ``--content-free`` with every text
hashed (as the Conflicts export). Exit 0; 2 on bad input.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator

from memorydesk.browse.history.entries import KINDS, HistoryQuery, iter_events
from memorydesk.browse.history.export import export_json, export_markdown, text_line
from memorydesk.commands.args import text_arg
from memorydesk.commands.output import write_out
from memorydesk.core.errors import BadInput
from memorydesk.core.moments import parse_moment, read_local
from memorydesk.core.receipts import gc_paused
from memorydesk.store import open_workspace


def register(sub) -> None:
    p = sub.add_parser("history", help="every change the file can account for, newest first (read-only)")
    p.add_argument("workspace")
    p.add_argument("--since", metavar="T",
                   help="only changes at or after T (RFC 3339 UTC, unix seconds, or a date: its local midnight)")
    p.add_argument("--until", metavar="T", help="only changes at or before T (a date: its local midnight)")
    p.add_argument("--actor", metavar="NAME", type=text_arg("--actor", 200),
                   help="only changes by this agent (id, name or role), reviewer or sentinel")
    p.add_argument("--kind", metavar="K", choices=KINDS, help="only this kind: " + ", ".join(KINDS))
    p.add_argument("--text", metavar="S", type=text_arg("--text", 1000), default="",
                   help="only changes whose summary, ids, reason or details hold S ('#43': entry 43)")
    p.add_argument("--json", action="store_true", help="print a JSON list (see the docs)")
    p.add_argument("--format", choices=("text", "markdown"), default="text", help="text (default) or markdown")
    p.add_argument("--content-free", action="store_true", help="hash every memory text (for sharing a ticket)")
    p.set_defaults(func=run)


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
FORMS = "write a date (2026-12-06: its local midnight), RFC 3339 UTC (2026-12-06T14:00:00Z) or unix seconds"


def moment_of(text: str, what: str) -> int:
    """RFC 3339 UTC or unix seconds (``parse_moment``), or a date alone: its local midnight, read as
    the window reads a typed date (``read_local``: a midnight the clocks skipped is refused)."""
    value = (text or "").strip()
    try:
        if _DATE.fullmatch(value):
            return int(read_local(value)[0].timestamp())
        return parse_moment(value, what)
    except BadInput as exc:
        said = str(exc).split("; write ")[0].split(" (write ")[0]  # its own list of forms leaves dates out
        raise BadInput(f"{said if said.startswith(what) else f'{what}: {said}'}; {FORMS}") from None


def query_of(args) -> HistoryQuery:
    since = moment_of(args.since, "--since") if args.since is not None else None
    until = moment_of(args.until, "--until") if args.until is not None else None
    return HistoryQuery(since=since, until=until, actor=args.actor or "", kind=args.kind or "",
                        text=args.text or "").check()


def run(args) -> int:
    query = query_of(args)
    # a one-shot walk makes a few objects per change, and the collector would scan them again and again
    with open_workspace(args.workspace, read_only=True) as ws, gc_paused(promote=True):
        events = iter_events(ws, query)
        if args.json:
            _write(export_json(events, content_free=args.content_free))
        elif args.format == "markdown":
            _write(export_markdown(events, ws.name, query, content_free=args.content_free))
        else:
            count = [0]

            def lines() -> Iterator[str]:
                for event in events:
                    yield text_line(event, content_free=args.content_free) + "\n"
                    count[0] += 1

            _write(lines())
            print(f"{count[0]:,} change{'s' if count[0] != 1 else ''}", file=sys.stderr)
    sys.stdout.flush()
    return 0


def _write(chunks: Iterable[str], per_write: int = 2000) -> None:
    """Print ``chunks`` a few thousand at a time (one write each, not one per line)."""
    held: list[str] = []
    for chunk in chunks:
        held.append(chunk)
        if len(held) >= per_write:
            write_out("".join(held))
            held.clear()
    write_out("".join(held))
