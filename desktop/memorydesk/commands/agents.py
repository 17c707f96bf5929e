"""``memory-desk agents WORKSPACE [--json]``: the agents of a workspace (read-only).

One line per agent, by name: id, name, role and the length of its note (the note its
dispatch preamble carries, in characters). ``--json`` prints a list of
``{"id", "name", "role", "note_length"}``. The ids are what ``preamble --agent`` takes
(it takes an exact name too).
"""

from __future__ import annotations

import json
import sys

from memorydesk.browse.agents import agent_list
from memorydesk.commands.args import workspace_command
from memorydesk.store import open_workspace


def register(sub) -> None:
    workspace_command(sub, "agents", help="list a workspace's agents: id, name, role, note length (read-only)",
                      description="List the agents of a workspace: id, name, role and the length of the note its "
                                  "dispatch preamble carries (characters). Read-only.",
                      json_help='print [{"id", "name", "role", "note_length"}]', func=run)


def run(args) -> int:
    with open_workspace(args.workspace, read_only=True) as ws:
        agents = agent_list(ws)
    if args.json:
        json.dump([a.to_json() for a in agents], sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    if not agents:
        print(f"no agents in {args.workspace}", file=sys.stderr)
        return 0
    rows = [("ID", "NAME", "ROLE", "NOTE")] + [(a.id, a.name, a.role or "—", f"{a.note_length:,}") for a in agents]
    w = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        print(f"{r[0]:<{w[0]}}  {r[1]:<{w[1]}}  {r[2]:<{w[2]}}  {r[3]:>{w[3]}}")
    return 0
