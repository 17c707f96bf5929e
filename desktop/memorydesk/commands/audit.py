"""``memory-desk audit recall WORKSPACE [--sample N] [--seed S] [--queries F] [--what-if NAME] [--json]``.

Where the agent's hybrid recall loses facts. For each active fact (or a seeded random
sample), the hybrid search is asked for the fact's own topic and the fact's fate is given
as one stage: found (with its rank) / not_candidate / mmr / decay / fusion. With
``--queries F`` the questions come from a JSON list of ``{"query", "expect": [fact ids]}``.
``--what-if NAME`` (repeatable, or ``all``) runs the same audit under an alternative that
is NOT what the product does, to measure a proposal. Read-only: no recall is recorded.
Exit 0 when recall@10 is 1.0, 1 otherwise, 2 on bad input.
"""

from __future__ import annotations

import json
import sys

from memorydesk.commands.output import write_out
from memorydesk.core.fusion import VARIANTS
from memorydesk.search.loss import STAGE_WORDS
from memorydesk.store import open_workspace


def register(sub) -> None:
    p = sub.add_parser("audit", help="where the agent's recall loses facts (read-only)")
    audit_sub = p.add_subparsers(dest="audit_command", required=True)
    r = audit_sub.add_parser(
        "recall", help="ask the agent's hybrid recall for each fact's topic; say where each fact is lost",
        description="For each active fact (or a sample), search as the agent does (hybrid) with the fact's "
                    "topic, and report whether the fact comes back in the top 10 and, if not, where it was "
                    "lost: not_candidate (no voice lists it), mmr (removed for diversity), decay (its age), "
                    "fusion (the voices ranked it too low). Read-only.")
    r.add_argument("workspace")
    r.add_argument("--sample", type=int, metavar="N", help="a seeded random sample of N active facts (default: all)")
    r.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the sample (default 0)")
    r.add_argument("--queries", metavar="FILE",
                   help='your own questions: a JSON list of {"query": text, "expect": [fact ids]} (UTF-8, at most 64 MB; '
                        "'-' reads standard input)")
    r.add_argument("--what-if", action="append", default=[], metavar="NAME",
                   choices=[*VARIANTS, "all"],
                   help="also run under an alternative that is NOT what the product does: "
                        + ", ".join(VARIANTS) + ", or all (repeatable)")
    r.add_argument("--json", action="store_true", help="print the full report as JSON")
    r.set_defaults(func=run)


def _progress(done: int, total: int) -> None:
    print(f"\r  {done:,} / {total:,}", end="", file=sys.stderr, flush=True)


def run(args) -> int:
    from memorydesk.search import audit

    names = list(VARIANTS) if "all" in args.what_if else list(dict.fromkeys(args.what_if))
    queries = None
    if args.queries:
        queries = audit.load_queries(args.queries)
    show = _progress if sys.stderr.isatty() and not args.json else None
    with open_workspace(args.workspace, read_only=True) as ws:
        if queries is not None:
            report = audit.audit_queries(ws, queries, what_if=names, progress=show)
        else:
            report = audit.audit_workspace(ws, sample=args.sample, seed=args.seed, what_if=names, progress=show)
    if show is not None:
        print(file=sys.stderr)
    summary = report["summary"]
    if args.json:
        write_out(json.dumps(report, ensure_ascii=False, indent=2) + "\n", flush=True)
    else:
        write_out("\n".join(_text(report, queries is not None)) + "\n", flush=True)
    return 0 if summary["recall_at_10"] == 1.0 else 1


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f} %"


def _text(report: dict, by_query: bool) -> list[str]:
    s = report["summary"]
    what = "expected facts" if by_query else "facts asked for by their own topic"
    lines = [f"recall@10: {_pct(s['recall_at_10'])} — {s['found']:,} of {s.get('targets', s.get('facts')):,} {what} "
             "come back in the agent's top 10"]
    for stage, count in s["stages"].items():
        lines.append(f"  {stage:<14} {count:>7,}  {STAGE_WORDS[stage]}")
    if not by_query:
        for group, title in (("by_domain", "domain"), ("by_memory_type", "memory type"), ("by_age", "age"),
                             ("by_veracity", "veracity")):
            lines.append(f"by {title}:")
            for label, row in s[group].items():
                lines.append(f"  {label[:40]:<40} {_pct(row['recall_at_10']):>8}  ({row['found']:,}/{row['facts']:,})")
        lines.append(f"unreachable by any query (no embedding, no keyword term): {s['unreachable']['count']:,}")
    for name, row in s.get("what_if", {}).items():
        lines.append(f"what if {name} (NOT what the product does): recall@10 {_pct(row['recall_at_10'])}, "
                     f"brings back {row['brought_back']:,}, loses {row['newly_lost']:,}")
    return lines
