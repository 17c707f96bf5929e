"""``memory-desk canary WORKSPACE``: the operator gate (exit 0 only when every check passes)."""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser("canary", help="run the lineage canary through the real tiers; exit 0 only if it passes")
    p.add_argument("workspace")
    p.set_defaults(func=run)


def run(args) -> int:
    from memorydesk.lineage.canary import run_gate

    return 0 if run_gate(args.workspace) else 1
