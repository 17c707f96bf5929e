"""``memory-desk purge WORKSPACE FACT_ID… [--note ID] [--working-item ID] [--policy ID] --reason TEXT
[--backups keep|erase|delete] [--actor NAME]``.

Erases facts for good (docs/architecture.md, "What the desk does to memory"): the facts, their earlier versions and
every copy of their text in the file; the history keeps ids, who, when and why. Then it empties the
write-ahead log, or says which program keeps it from doing so (the erase finishes at
the next open). Backups beside the file that still hold the text are listed, and erased
or deleted with ``--backups``; a fact already purged from the workspace can be given
again to deal with its backups. ``--note`` empties an agent's note, ``--working-item``
deletes an item of the hot tier and ``--policy`` a policy the same way (a secret the review
found there, or text of a purged fact the forget check found quoted there), with the copies
of their text the history kept.

Exit 0 when the text is in no file beside the workspace any more, 1 when it still is
somewhere (each place said on stdout), 2 on bad input.
"""

from __future__ import annotations

import getpass

from memorydesk.commands.args import reason_arg, text_arg


def register(sub) -> None:
    p = sub.add_parser("purge", help="erase facts for good (text, index entries, vectors, earlier versions)",
                       description="Erase facts for good: their text, full-text entries, vectors, earlier "
                                   "versions and the history's copies of the text. Not undoable.")
    p.add_argument("workspace")
    p.add_argument("fact_ids", nargs="*", metavar="FACT_ID", type=text_arg("FACT_ID", 200))
    p.add_argument("--note", action="append", default=[], metavar="NOTE_ID", type=text_arg("--note", 200),
                   help="an agent's note to empty for good (its id, as `memory-desk review --json` gives it; "
                        "repeatable)")
    p.add_argument("--working-item", action="append", default=[], metavar="ITEM_ID",
                   type=text_arg("--working-item", 200), help="a working-memory item to delete for good (repeatable)")
    p.add_argument("--policy", action="append", default=[], metavar="POLICY_ID", type=text_arg("--policy", 200),
                   help="a policy to delete for good, with the copies of its rule the history kept (repeatable)")
    p.add_argument("--reason", required=True, type=reason_arg(), help="why (kept in the history; not blank)")
    p.add_argument("--backups", choices=("keep", "erase", "delete"), default="keep",
                   help="backups beside the workspace that hold the text: keep them (default; they are listed), "
                        "erase the text there too, or delete them")
    p.add_argument("--actor", type=text_arg("--actor", 200), help="who purges (default: the login name)")
    p.set_defaults(func=run)


def run(args) -> int:
    from memorydesk.core.errors import BadInput
    from memorydesk.memory.actions.purge import purge
    from memorydesk.memory.actions.purge_items import purge_items_outcome
    from memorydesk.store import open_workspace

    if not (args.fact_ids or args.note or args.working_item or args.policy):
        raise BadInput("purge: give at least one FACT_ID, --note, --working-item or --policy "
                       "(see `memory-desk purge --help`)")
    actor = args.actor or _login()
    with open_workspace(args.workspace) as ws:
        outcomes = [purge(ws, actor, args.fact_ids, args.reason, backups=args.backups)] if args.fact_ids else []
        outcomes += [purge_items_outcome(ws, actor, kind, ids, args.reason, backups=args.backups)
                     for kind, ids in (("note", args.note), ("working_item", args.working_item),
                                       ("policy", args.policy)) if ids]
        lines = [line for outcome in outcomes for line in outcome.lines()]
        complete = all(outcome.complete for outcome in outcomes)
        notice = ws.take_notice()  # what the first change added, and where the backup is
    if notice:
        print(notice)
    for line in lines:
        print(line)
    if complete:
        print("the text is in no file beside the workspace")
        return 0
    return 1


def _login() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "command line"
