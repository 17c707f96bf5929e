"""``memory-desk forget-check WORKSPACE (FACT_ID… | --text TEXT) [--json | --markdown] [--save [--reason R]
[--actor NAME]]``.

Asks every way an agent could still get the facts (or the typed text) back — the agent's searches,
the dispatch preamble, the graph voice, the versions, the tables that quote it, the full-text
index, the vectors, the file's bytes, its write-ahead log, the backups beside it and the MemoryOS
tiers — and prints a verdict per path (``browse.forget.check``). Read-only unless ``--save``
keeps the forget receipt with the history (``memory.actions.forget``).

Exit 0 when every path answered gone; 1 when a path still returns it, or could not tell (each
named); 2 on bad input (an id that is nowhere, a text too short, both or neither given).
"""

from __future__ import annotations

import getpass
import json

from memorydesk.commands.args import reason_arg, text_arg
from memorydesk.commands.output import write_out
from memorydesk.core.inputs import NAME_MAX, QUERY_MAX


def register(sub) -> None:
    p = sub.add_parser("forget-check", help="ask every way an agent could still get a fact or a text back",
                       description="After a delete or a purge: ask every way an agent could still get the facts (or "
                                   "a typed text) back, and print a verdict per path. Exit 0 gone everywhere, 1 still "
                                   "somewhere or a path could not tell, 2 bad input.")
    p.add_argument("workspace")
    p.add_argument("fact_ids", nargs="*", metavar="FACT_ID", type=text_arg("FACT_ID", NAME_MAX))
    p.add_argument("--text", type=text_arg("--text", QUERY_MAX), help="check a text instead: an e-mail address, a "
                                                                      "name, a secret (never kept in the receipt)")
    form = p.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print the forget receipt as JSON")
    form.add_argument("--markdown", action="store_true", help="print the forget receipt as Markdown (for a ticket)")
    p.add_argument("--save", action="store_true", help="keep the receipt with the workspace's history (a write)")
    p.add_argument("--reason", type=reason_arg(), default=None, help="with --save: why (e.g. the ticket; not blank)")
    p.add_argument("--actor", type=text_arg("--actor", 200), help="with --save: who (default: the login name)")
    p.set_defaults(func=run)


def run(args) -> int:
    from memorydesk.browse.forget.check import forget_check
    from memorydesk.core.errors import BadInput
    from memorydesk.embedding.embedder import one_shot
    from memorydesk.search.copies import follow
    from memorydesk.store import open_workspace

    if bool(args.fact_ids) == (args.text is not None):
        raise BadInput("forget-check: give FACT_IDs or --text, one of them (see `memory-desk forget-check --help`)")
    if (args.reason or args.actor) and not args.save:
        raise BadInput("forget-check: --reason and --actor go with --save")
    one_shot()  # a few queries: the session that is quickest to build and run once
    # one check: search's copies could not be built before it ends
    with follow.one_shot(), open_workspace(args.workspace, read_only=not args.save) as ws:
        receipt = forget_check(ws, fact_ids=args.fact_ids, text=args.text)
        saved = _save(ws, receipt, args) if args.save else ""
    if args.json:
        write_out(json.dumps(receipt.to_json(), ensure_ascii=False, indent=2) + "\n", flush=True)
    elif args.markdown:
        write_out(receipt.to_markdown(), flush=True)
    else:
        write_out(_text(receipt), flush=True)
    if saved and not (args.json or args.markdown):
        write_out(saved + "\n", flush=True)
    return 0 if receipt.gone_everywhere else 1


def _save(ws, receipt, args) -> str:
    """Keep the receipt with the history; what to say about it (and what the first change added)."""
    from memorydesk.memory.reviewer import Reviewer

    change = Reviewer(ws, args.actor or _login(), embedder=False).keep_forget_receipt(receipt, args.reason or "")
    notice = ws.take_notice()
    return f"{notice}\n{change.message}" if notice else change.message


def _text(receipt) -> str:
    from memorydesk.core.forget.receipt import WORDS

    lines = [receipt.summary(), *receipt.notes, ""]
    width = max(len(a.label) for a in receipt.answers)
    for a in receipt.answers:
        what = "; ".join(f.words() for f in a.found)
        lines.append(f"{WORDS[a.verdict]:<16} {a.label:<{width}}  {what + ' — ' if what else ''}{a.why}")
    lines.append(f"\nreceipt {receipt.receipt_id}, {receipt.elapsed_ms / 1000:.2f} s, data stamp {receipt.data_stamp}")
    return "\n".join(lines) + "\n"


def _login() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "command line"
