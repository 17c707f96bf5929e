"""``memory-desk audit runs WORKSPACE [--json]`` and ``memory-desk audit compare WORKSPACE RUN_A RUN_B [--json]``:
the recall-audit runs kept in a workspace, and two of them side by side (read-only). Also the
words the gate of ``audit recall --baseline`` prints."""

from __future__ import annotations

import datetime as dt
import json
import sys
from typing import Any

from memorydesk.commands.args import workspace_command
from memorydesk.commands.output import write_out
from memorydesk.store import open_workspace


def register(audit_sub) -> None:
    workspace_command(audit_sub, "runs", help="the recall-audit runs kept in a workspace, oldest first (read-only)",
                      description="List the recall-audit runs kept in WORKSPACE (audit recall --save, and every "
                                  "run of the window's audit), oldest first.",
                      json_help="print the runs as JSON", func=run_runs)
    c = workspace_command(audit_sub, "compare", help="two kept recall-audit runs side by side (read-only)",
                          description="recall@10 of RUN_A then and RUN_B now, overall and per group; the facts "
                                      "newly lost and brought back, with the stage that changed and the likely "
                                      "cause; the facts in only one run apart. RUN: an id from `audit runs`, "
                                      "latest or previous.",
                          json_help="print the comparison as JSON", func=run_compare)
    c.add_argument("run_a", metavar="RUN_A")
    c.add_argument("run_b", metavar="RUN_B")


def when(at: float) -> str:
    return dt.datetime.fromtimestamp(at, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f} %"


def run_runs(args) -> int:
    from memorydesk.browse.audit.runs import list_runs

    with open_workspace(args.workspace, read_only=True) as ws:
        runs, foreign = list_runs(ws)
        name = ws.path.name
    if foreign:
        print(f"memory-desk: {name} also holds {foreign:,} run(s) taken in another file or on another workspace "
              "(copied in with its rows), not listed", file=sys.stderr)
    if args.json:
        write_out(json.dumps([r.to_json() for r in runs], ensure_ascii=False, indent=2) + "\n", flush=True)
        return 0
    if not runs:
        write_out(f"no recall-audit runs kept in {name} (memory-desk audit recall {name} --save keeps one)\n",
                  flush=True)
        return 0
    lines = [f"{'run':<10} {'when':<24} {'recall@10':>9} {'facts':>8}  {'what':<28} data"]
    previous = None
    for r in runs:
        what = ("every fact" if r.sample is None else f"sample {r.sample:,}, seed {r.seed}") \
            if r.kind == "topics" else "your questions"
        what += f", {r.origin}" + ("" if r.complete else ", stopped")
        data = "—" if previous is None else ("same" if previous.data_stamp == r.data_stamp else "changed")
        lines.append(f"{r.id:<10} {when(r.at):<24} {pct(r.recall):>9} {r.facts:>8,}  {what:<28} {data}")
        previous = r
    write_out("\n".join(lines) + "\n", flush=True)
    return 0


def run_compare(args) -> int:
    from memorydesk.browse.audit.compare import compare

    with open_workspace(args.workspace, read_only=True) as ws:
        report = compare(ws, args.run_a, args.run_b)
    for note in report["notes"]:
        print(f"memory-desk: {note}", file=sys.stderr)
    if args.json:
        write_out(json.dumps(report, ensure_ascii=False, indent=2) + "\n", flush=True)
    else:
        write_out("\n".join(compare_text(report)) + "\n", flush=True)
    return 0


def _fact_line(entry: dict[str, Any]) -> str:
    asked = f" for “{entry['query']}”" if entry.get("query") else ""
    return f"  {entry['id']}{asked}: {entry['from']} → {entry['to']} — {entry['why']}"


def compare_text(report: dict[str, Any], *, limit: int = 50) -> list[str]:
    from memorydesk.browse.audit.compare import headline

    a, b = report["a"], report["b"]
    first, second = headline(report, pct)
    lines = [f"{first} (run {a['run']} {when(a['at'])}, run {b['run']} {when(b['at'])})", second,
             f"{report['in_both']:,} facts in both runs; {len(report['newly_lost']):,} newly lost, "
             f"{len(report['brought_back']):,} brought back"]
    for title, key in (("newly lost", "newly_lost"), ("brought back", "brought_back")):
        if report[key]:
            lines.append(f"{title}:")
            lines += [_fact_line(e) for e in report[key][:limit]]
            if len(report[key]) > limit:
                lines.append(f"  … and {len(report[key]) - limit:,} more (--json lists them all)")
    if report["groups"]:
        lines.append("by group, facts in both runs (recall@10 then → now):")
        for g in report["groups"]:
            moved = "" if g["change"] is None else f"  {g['change'] * 100:+.1f}"
            lines.append(f"  {g['group'].replace('_', ' '):<12} {g['label'][:32]:<32} {pct(g['a']['recall']):>8} → "
                         f"{pct(g['b']['recall']):>8}{moved}")
    for key, run in (("only_in_a", a["run"]), ("only_in_b", b["run"])):
        if report[key]:
            lines.append(f"only in run {run} ({len(report[key]):,}):")
            lines += [f"  {e['id']}: {e['stage']} — {e['why']}" for e in report[key][:limit]]
            if len(report[key]) > limit:
                lines.append(f"  … and {len(report[key]) - limit:,} more (--json lists them all)")
    return lines
