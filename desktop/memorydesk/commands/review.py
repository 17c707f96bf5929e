"""``memory-desk review WORKSPACE [--kind K] [--json] [--fail-on SEVERITY]``: the review queue.

Secrets, personal data, injected instructions and hidden characters, near-duplicates,
corrections that lose, unreachable and fading facts, worst first. ``--json`` prints
``[{kind, severity, item_kind, item_id, field, evidence, state}]``. Exit 0 when no open
finding is at or above ``--fail-on`` (default ``high``), 1 when one is, 2 on bad input.
Only reads: nothing is stored (the window keeps its own results).
"""

from __future__ import annotations

import json
import sys

from memorydesk.commands.output import write_out
from memorydesk.core.review.finding import KINDS, SEVERITIES, severity_rank


def register(sub) -> None:
    p = sub.add_parser(
        "review",
        help="the review queue: secrets, personal data, injection, duplicates, losing corrections (read-only)",
        description="Scan the workspace for what a person should look at first: secrets, personal data, injected "
                    "instructions and hidden characters, near-duplicate facts, corrections that lose in recall, "
                    "unreachable and fading facts. Read-only: nothing is stored.")
    p.add_argument("workspace")
    p.add_argument("--kind", action="append", choices=KINDS, metavar="K",
                   help="only this kind (repeatable): " + ", ".join(KINDS))
    p.add_argument("--json", action="store_true", help="print the findings as a JSON list")
    p.add_argument("--fail-on", choices=SEVERITIES, default="high", metavar="SEVERITY",
                   help="exit 1 when an open finding is at least this severe: low, medium, high, critical "
                        "(default high)")
    p.add_argument("--duplicate-cosine", type=float, default=0.92, metavar="C",
                   help="cosine at which two facts count as near-duplicates (default 0.92)")
    p.set_defaults(func=run)


def _progress(stage: str, done: int, total: int) -> None:
    print(f"\r  {stage}: {done:,} / {total:,}    ", end="", file=sys.stderr, flush=True)


def run(args) -> int:
    from memorydesk.browse.review.decisions import apply_states, read_decisions
    from memorydesk.browse.review.scan import Options, scan
    from memorydesk.search.copies import follow
    from memorydesk.store import open_workspace

    options = Options(kinds=tuple(dict.fromkeys(args.kind)) if args.kind else KINDS,
                      duplicate_cosine=args.duplicate_cosine)
    show = _progress if sys.stderr.isatty() and not args.json else None
    # a few recall checks run on the product's SQL; for many the copies are built first
    with follow.one_shot(), open_workspace(args.workspace, read_only=True) as ws:
        report = scan(ws, options, progress=show)
        report.findings = apply_states(report.findings, read_decisions(ws))
    if show is not None:
        print(file=sys.stderr)
    for note in report.notes:
        print(f"memory-desk: note: {note}", file=sys.stderr)
    if args.json:
        write_out(json.dumps([f.to_json() for f in report.findings], ensure_ascii=False, indent=2) + "\n", flush=True)
    else:
        write_out("\n".join(_text(report)) + "\n", flush=True)
    bar = severity_rank(args.fail_on)
    failing = any(f.state == "open" and severity_rank(f.severity) >= bar for f in report.findings)
    return 1 if failing else 0


def _text(report) -> list[str]:
    open_ = [f for f in report.findings if f.state == "open"]
    lines = [f"{len(report.findings):,} finding(s), {len(open_):,} open, in {report.seconds:.1f} s"]
    for kind in KINDS:
        mine = [f for f in report.findings if f.kind == kind]
        if not mine:
            continue
        lines.append(f"{kind.words} ({len(mine):,}):")
        for f in mine[:50]:
            state = "" if f.state == "open" else f" [{f.state}]"
            lines.append(f"  {f.severity:<8} {f.item_kind} {f.item_id} {f.field}: {f.title}{state}")
        if len(mine) > 50:
            lines.append(f"  … and {len(mine) - 50:,} more (--json lists all)")
    return lines
