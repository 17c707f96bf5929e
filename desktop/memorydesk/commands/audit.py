"""``memory-desk audit recall WORKSPACE [--sample N] [--seed S] [--queries F] [--what-if NAME] [--save]
[--baseline RUN [--max-drop D]] [--json]`` (and ``audit runs`` / ``audit compare``: ``commands.audit_runs``).

Where the agent's hybrid recall loses facts. For each active fact (or a seeded random
sample), the hybrid search is asked for the fact's own topic and the fact's fate is given
as one stage: found (with its rank) / not_candidate / mmr / decay / fusion. With
``--queries F`` the questions come from a JSON list of ``{"query", "expect": [fact ids]}``.
``--what-if NAME`` (repeatable, or ``all``) runs the same audit under an alternative that
is NOT what the product does, to measure a proposal. No recall is recorded; ``--save`` keeps the
run in the workspace (the only write). Exit 0 when recall@10 is 1.0, 1 otherwise, 2 on bad input.

``--baseline RUN`` is a gate: the baseline's facts (or questions) are asked again, unless
``--sample``/``--queries`` say otherwise, and the exit is 1 when recall@10 fell by more than
``--max-drop`` (default 0.02), overall or in a group, 0 otherwise; what was lost is printed.
"""

from __future__ import annotations

import json
import sys

from memorydesk.commands import audit_runs
from memorydesk.commands.output import write_out
from memorydesk.core.errors import BadInput
from memorydesk.core.product.fusion import VARIANTS
from memorydesk.search.loss import STAGE_WORDS
from memorydesk.store import open_workspace


def register(sub) -> None:
    p = sub.add_parser("audit", help="where the agent's recall loses facts; kept runs compared, and a gate")
    audit_sub = p.add_subparsers(dest="audit_command", required=True)
    r = audit_sub.add_parser(
        "recall", help="ask the agent's hybrid recall for each fact's topic; say where each fact is lost",
        description="For each active fact (or a sample), search as the agent does (hybrid) with the fact's "
                    "topic, and report whether the fact comes back in the top 10 and, if not, where it was "
                    "lost: not_candidate (no voice lists it), mmr (removed for diversity), decay (its age), "
                    "fusion (the voices ranked it too low). Read-only, unless --save keeps the run.")
    r.add_argument("workspace")
    r.add_argument("--sample", type=int, metavar="N", help="a seeded random sample of N active facts (default: all)")
    r.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the sample (default 0)")
    r.add_argument("--queries", metavar="FILE",
                   help='your own questions: a JSON list of {"query": text, "expect": [fact ids]} '
                        "(UTF-8, at most 64 MB; '-' reads standard input)")
    r.add_argument("--what-if", action="append", default=[], metavar="NAME",
                   choices=[*VARIANTS, "all"],
                   help="also run under an alternative that is NOT what the product does: "
                        + ", ".join(VARIANTS) + ", or all (repeatable)")
    r.add_argument("--save", action="store_true",
                   help="keep this run in the workspace (for audit runs / audit compare / --baseline); the only write")
    r.add_argument("--baseline", metavar="RUN",
                   help="a gate: compare with this kept run (an id from audit runs, latest or previous) and exit 1 "
                        "when recall@10 fell by more than --max-drop, overall or in a group")
    r.add_argument("--max-drop", type=float, default=0.02, metavar="D",
                   help="with --baseline: the drop of recall@10 allowed, 0 to 1 (default 0.02: two points)")
    r.add_argument("--json", action="store_true", help="print the full report as JSON")
    r.set_defaults(func=run)
    audit_runs.register(audit_sub)


def _progress(done: int, total: int, text: str = "") -> None:
    print(f"\r  {text}" if not total else f"\r  {done:,} / {total:,}", end="", file=sys.stderr, flush=True)


def run(args) -> int:
    from memorydesk.browse.audit import compare as audit_compare
    from memorydesk.browse.audit import runs as kept
    from memorydesk.browse.audit.job import Plan, run_audit
    from memorydesk.memory.audit_runs import save_run
    from memorydesk.search import audit
    from memorydesk.search.copies import follow

    names = list(VARIANTS) if "all" in args.what_if else list(dict.fromkeys(args.what_if))
    if args.baseline is None and args.max_drop != 0.02:
        raise BadInput("--max-drop goes with --baseline RUN (the run to compare with)")
    if not 0.0 <= args.max_drop <= 1.0:
        raise BadInput("--max-drop must be a fraction from 0 to 1 (0.02 is two points of recall@10), "
                       f"not {args.max_drop}")
    queries = None
    if args.queries:
        queries = audit.load_queries(args.queries)
    if args.sample is not None and args.sample <= 0:
        raise BadInput(f"--sample must be 1 or more, not {args.sample}")
    show = _progress if sys.stderr.isatty() and not args.json else None
    # copies only for an audit of many facts (``browse.audit.job.BUILD_FOR``)
    with follow.one_shot(), open_workspace(args.workspace, read_only=not args.save) as ws:
        base = None
        if args.baseline is not None:
            base = kept.get_run(ws, args.baseline)
            now_schema = kept.product_schema(ws)
            if base.product_schema != now_schema:
                raise BadInput(f"baseline run {base.id} was taken before {ws.path.name}'s schema changed "
                               f"({base.product_schema} then, {now_schema} now); runs across a schema change are not "
                               f"comparable, so keep a new baseline (memory-desk audit recall {ws.path.name} --save)")
        if queries is not None:
            plan = Plan(queries=tuple((q, tuple(t)) for q, t in queries), what_if=tuple(names))
        elif base is not None and args.sample is None:
            plan = Plan.again(ws, base, names)
        else:
            plan = Plan(sample=args.sample, seed=args.seed, what_if=tuple(names))
        if base is not None and (base.kind == "queries") != (plan.queries is not None):
            asked = ("your own questions: give --queries, or none to ask them again" if base.kind == "queries"
                     else "each fact's own topic: leave out --queries")
            raise BadInput(f"baseline run {base.id} asked {asked}")
        report = run_audit(ws, plan, progress=show)
        if show is not None:
            print(file=sys.stderr)
        sample = plan.sample if plan.ids is None else base.sample if base is not None else len(plan.ids)
        seed = plan.seed if plan.ids is None else base.seed if base is not None else None
        if args.save:
            this = kept.as_run(save_run(ws, report, origin="command", sample=sample, seed=seed, what_if=names))
            this_facts = None
            print(f"memory-desk: kept as recall-audit run {this.id} in {ws.path.name}", file=sys.stderr)
            notice = ws.take_notice()
            if notice:
                print(f"memory-desk: {notice}", file=sys.stderr)
        else:
            this, this_facts = kept.unsaved_run(ws, report, sample=sample, seed=seed, what_if=names)
        compared = None if base is None else audit_compare.compare_runs(ws, base, this, b_facts=this_facts)
    summary = report["summary"]
    failures = [] if compared is None else audit_compare.gate(compared, args.max_drop)
    if args.json:
        if args.save:
            report = {**report, "run": this.id}
        if compared is not None:
            report = {**report, "gate": {"baseline": base.id, "max_drop": args.max_drop, "passed": not failures,
                                         "failures": failures, "compare": compared}}
        write_out(json.dumps(report, ensure_ascii=False, indent=2) + "\n", flush=True)
    else:
        lines = _text(report, queries is not None or plan.queries is not None)
        if compared is not None:
            lines += _gate_text(compared, failures, args.max_drop)
        write_out("\n".join(lines) + "\n", flush=True)
    if compared is not None:
        return 1 if failures else 0
    return 0 if summary["recall_at_10"] == 1.0 else 1


def _gate_text(compared: dict, failures: list[str], max_drop: float) -> list[str]:
    base = compared["a"]
    head = (f"gate against run {base['run']} ({audit_runs.when(base['at'])}, at most {max_drop * 100:.1f} points "
            f"of drop allowed): " + ("FAILED" if failures else "passed"))
    lines = ["", head] + [f"  {f}" for f in failures]
    if failures:
        lines += [line for line in audit_runs.compare_text(compared) if not line.startswith("recall@10:")]
    for note in compared["notes"]:
        lines.append(f"note: {note}")
    return lines


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
