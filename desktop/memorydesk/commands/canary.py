"""``memory-desk canary WORKSPACE``: the operator gate (exit 0 only when every check passes)."""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser(
        "canary", help="the operator gate: a canary memory through the real tiers; exit 0 only if every check passes",
        description="Write a canary memory (a random id, no personal content) into WORKSPACE and send it down "
                    "the real path in four lanes, in two processes: store, promote, retrieve, dispatch. Print one "
                    "PASS/FAIL line per check, then remove the canary. Exit 0 only if every check passes. "
                    "It writes to the workspace, and removes what it wrote.")
    p.add_argument("workspace")
    p.set_defaults(func=run)


def run(args) -> int:
    from memorydesk.lineage.canary import run_gate

    return 0 if run_gate(args.workspace) else 1
