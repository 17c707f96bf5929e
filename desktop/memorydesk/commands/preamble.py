"""``memory-desk preamble WORKSPACE --agent AGENT [--task TEXT]``.

Prints exactly the dispatch preamble the agent would get, followed by one newline;
prints nothing at all when the preamble is empty. ``--agent`` takes an agent's id or
its exact name; one that names no agent is refused (exit 2) with the close matches.
Read-only.
"""

from __future__ import annotations

import sys

from memorydesk.browse.agents import resolve_agent
from memorydesk.commands.args import text_arg
from memorydesk.core.inputs import NAME_MAX, TASK_MAX
from memorydesk.search.preamble import build_preamble
from memorydesk.store import open_workspace


def register(sub) -> None:
    p = sub.add_parser("preamble", help="print the dispatch preamble an agent would get (read-only)")
    p.add_argument("workspace")
    p.add_argument("--agent", required=True, metavar="AGENT", type=text_arg("--agent", NAME_MAX),
                   help="the agent's id or exact name (`memory-desk agents WORKSPACE` lists them)")
    p.add_argument("--task", default="", metavar="TEXT", type=text_arg("--task", TASK_MAX),
                   help="the task text (facts are added only when it is 20 characters or more)")
    p.set_defaults(func=run)


def run(args) -> int:
    with open_workspace(args.workspace, read_only=True) as ws:
        text = build_preamble(ws, resolve_agent(ws, args.agent), args.task)
    if text:
        sys.stdout.buffer.write((text + "\n").encode("utf-8"))
        sys.stdout.flush()
    return 0
