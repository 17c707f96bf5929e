"""Two kept recall-audit runs side by side (``memory-desk audit compare``, the audit window's
Compare page, the gate of ``audit recall --baseline``).

Like is compared with like: the headline recall@10 then and now (``both``, and ``change``)
and the groups count only the facts (or questions) asked in both runs; each run's own figure
over everything it asked stays beside it (``a.recall``, ``b.recall``). Two samples of a
changed workspace hold different facts, and a drop between them says nothing about either.

recall@10 then and now, overall and per group (domain, memory type, age, veracity); the facts
newly lost and brought back, each with the stage in either run and the likely cause the desk
can name; the facts in only one run apart, with what became of them. Causes, first that applies:

- ``changed``: the history names a change to the fact between the runs (an edit, a restore, a
  link removed…);
- ``near_duplicate``: lost to MMR, and the chosen hit too similar to it (token Jaccard ≥ 0.5) is
  named (written after the first run, or there then but not chosen); ``mmr`` when it is less alike;
- ``decay``: lost to decay, and its own decay factor fell between the runs (then and now given);
- ``rules``: the two runs were ranked by different product rules (``core.product.rules``);
- ``crowded``: facts were written between the runs and now rank above it (its own weight unchanged);
- ``none``: nothing the desk can name.

Runs must be of one workspace, one kind, and one product schema (``BadInput`` otherwise).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from memorydesk.browse.audit.runs import GROUPS, Run, RunFact, get_run, run_facts
from memorydesk.browse.history.entries import HistoryQuery, iter_events
from memorydesk.browse.history.event import Event
from memorydesk.core.errors import BadInput
from memorydesk.search.audit import AGE_BUCKETS
from memorydesk.store import Workspace

Key = tuple[str, str]  # (query for a questions run, "" otherwise; fact id)
NEAR = 0.5  # MMR's token Jaccard from which a rival is called a near-duplicate
AGED = 0.005  # a drop of the decay factor (0..1) from which a fact is said to have aged into decay


def _day(at: float) -> str:
    return dt.datetime.fromtimestamp(at, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


@dataclass
class Context:
    """What the causes read: the two runs, their facts by key, the history between them."""

    ws: Workspace
    a: Run
    b: Run
    fa: dict[Key, RunFact]
    fb: dict[Key, RunFact]
    events: dict[str, list[Event]]  # fact id -> events naming it, between the two runs
    created: dict[str, int]  # fact id -> created_at, for the facts causes name
    written_between: int


def comparable(a: Run, b: Run, name: str) -> None:
    if a.kind != b.kind:
        what = {"topics": "each fact's own topic", "queries": "your own questions"}
        raise BadInput(f"run {a.id} asked {what[a.kind]} and run {b.id} {what[b.kind]}; compare two runs of one kind")
    if a.product_schema != b.product_schema:
        old, new = sorted((a, b), key=lambda r: r.at)
        raise BadInput(f"run {old.id} was taken before {name}'s schema changed ({old.product_schema} then, "
                       f"{new.product_schema} in run {new.id}); runs across a schema change are not comparable, so "
                       f"keep a new baseline (memory-desk audit recall {name} --save)")


def _key(run: Run, f: RunFact) -> Key:
    return (f.query if run.kind == "queries" else "", f.fact_id)


def _history(ws: Workspace, a: Run, b: Run) -> dict[str, list[Event]]:
    out: dict[str, list[Event]] = defaultdict(list)
    lo, hi = sorted((a.at, b.at))
    for event in iter_events(ws, HistoryQuery(since=int(lo), until=int(hi) + 1)):
        if event.at < int(lo) or event.at > hi or event.action == "created":  # history is timed in whole seconds
            continue
        for fid in event.ids:
            out[fid].append(event)
    return out


def _created(ws: Workspace, ids: Sequence[str]) -> dict[str, int]:
    f = ws.layout.facts
    out: dict[str, int] = {}
    with ws.read() as conn:
        for at in range(0, len(ids), 500):
            chunk = list(ids[at:at + 500])
            out.update({r[0]: int(r[1] or 0) for r in conn.execute(
                select(f.c.id, f.c.created_at).where(f.c.id.in_(chunk)))})
    return out


def _written_between(ws: Workspace, a: Run, b: Run) -> int:
    f = ws.layout.facts
    lo, hi = sorted((a.at, b.at))
    with ws.read() as conn:
        return int(conn.execute(select(func.count()).select_from(f).where(
            f.c.created_at > lo, f.c.created_at <= hi, f.c.workspace_id == ws.workspace_id)).scalar() or 0)


def _event_words(e: Event) -> str:
    reason = f" (“{e.reason}”)" if e.reason else ""
    return f"{e.action} by {e.actor} at {_day(e.at)}: {e.summary}{reason}"


def _cause(ctx: Context, fact: RunFact, then: RunFact, lost: bool) -> dict[str, str]:
    """The likely cause of ``fact``'s change of stage (``then``: its row in the earlier run)."""
    events = ctx.events.get(fact.fact_id, [])
    if events:
        return {"cause": "changed", "why": "changed between the runs: " + _event_words(events[0])}
    now = fact if lost else then  # the run in which it was lost
    if now.stage == "mmr" and now.mmr_against:
        rival = now.mmr_against
        born = ctx.created.get(rival)
        new = born is not None and born > min(ctx.a.at, ctx.b.at)
        near = now.mmr_similarity is not None and now.mmr_similarity >= NEAR
        who = "a near-duplicate" if near else "a chosen hit similar to it"
        cause = "near_duplicate" if near else "mmr"
        sim = f" (similarity {now.mmr_similarity:.2f})" if now.mmr_similarity is not None else ""
        if lost:
            when = "written after the first run" if new else "there in the first run too, not chosen then"
            return {"cause": cause, "why": f"{who}, {rival}{sim}, now wins MMR ({when})"}
        gone = ctx.events.get(rival)
        how = f"; it was {gone[0].action} since" if gone else ""
        return {"cause": cause, "why": f"{who} that won MMR in the first run, {rival}{sim}, no longer wins{how}"}
    factors = ""
    if then.decay_factor is not None and fact.decay_factor is not None:
        factors = f"decay ×{then.decay_factor:.3f} then, ×{fact.decay_factor:.3f} now"
    aged = then.decay_factor is not None and fact.decay_factor is not None and \
        then.decay_factor - fact.decay_factor > AGED
    if now.stage == "decay" and aged:
        days = abs(ctx.b.at - ctx.a.at) / 86400
        if lost:
            return {"cause": "decay", "why": f"aged into decay: {days:.1f} days older than in the first run; {factors}"}
        return {"cause": "decay", "why": f"no longer lost to decay: the facts above it aged or went; {factors}"}
    if ctx.a.rules_version != ctx.b.rules_version:
        return {"cause": "rules", "why": f"ranked by other product rules ({ctx.a.rules_version} then, "
                                         f"{ctx.b.rules_version} now)"}
    if ctx.written_between and lost:
        already = f" (its own weight did not change: {factors})" if now.stage == "decay" and factors else ""
        return {"cause": "crowded", "why": f"{ctx.written_between:,} fact(s) written between the runs now rank above "
                                           f"it{already}"}
    return {"cause": "none", "why": "no cause the desk can name (the same data, rules and stage numbers say no more)"}


def _only(ctx: Context, fact: RunFact, other: Run, first: bool) -> dict[str, Any]:
    events = ctx.events.get(fact.fact_id, [])
    if events:
        why = _event_words(events[0])
    elif first:
        why = f"not audited in run {other.id}" + (" (a sample)" if other.sample is not None else "")
    else:
        born = ctx.created.get(fact.fact_id)
        why = (f"written after run {other.id}" if born is not None and born > other.at else
               f"not audited in run {other.id}" + (" (a sample)" if other.sample is not None else ""))
    return {"id": fact.fact_id, "query": fact.query, "stage": fact.stage, "rank": fact.rank, "why": why}


def _group_rows(a_facts: Sequence[RunFact], b_facts: Sequence[RunFact]) -> list[dict[str, Any]]:
    rows = []
    for group, _title in GROUPS:
        counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # a found, a n, b found, b n
        for side, facts in ((0, a_facts), (2, b_facts)):
            for f in facts:
                c = counts[f.group(group)]
                c[side] += f.stage == "found"
                c[side + 1] += 1
        order = [label for _l, label in AGE_BUCKETS] if group == "age" else sorted(counts)
        for label in order:
            if label not in counts:
                continue
            fa, na, fb, nb = counts[label]
            ra, rb = (round(fa / na, 4) if na else None), (round(fb / nb, 4) if nb else None)
            rows.append({"group": group, "label": label, "a": {"recall": ra, "facts": na, "found": fa},
                         "b": {"recall": rb, "facts": nb, "found": fb},
                         "change": None if ra is None or rb is None else round(rb - ra, 4)})
    return rows


def compare_runs(ws: Workspace, a: Run, b: Run, *, a_facts: Sequence[RunFact] | None = None,
                 b_facts: Sequence[RunFact] | None = None) -> dict[str, Any]:
    """``{a: {run, recall}, b: {run, recall}, newly_lost, brought_back, only_in_a, only_in_b, groups}``."""
    name = ws.path.name
    comparable(a, b, name)
    a_facts = run_facts(ws, a) if a_facts is None else a_facts
    b_facts = run_facts(ws, b) if b_facts is None else b_facts
    fa = {_key(a, f): f for f in a_facts}
    fb = {_key(b, f): f for f in b_facts}
    rivals = [f.mmr_against for f in (*a_facts, *b_facts) if f.mmr_against]
    ctx = Context(ws, a, b, fa, fb, _history(ws, a, b), {}, _written_between(ws, a, b))
    ctx.created = _created(ws, list(dict.fromkeys([*rivals, *(k[1] for k in fb if k not in fa)])))
    lost, back = [], []
    for key, now in fb.items():
        then = fa.get(key)
        if then is None or (then.stage == "found") == (now.stage == "found"):
            continue
        entry = {"id": now.fact_id, "from": then.stage, "to": now.stage, "rank_a": then.rank, "rank_b": now.rank}
        if a.kind == "queries":
            entry["query"] = now.query
        if then.stage == "found":
            lost.append({**entry, **_cause(ctx, now, then, True)})
        else:
            back.append({**entry, **_cause(ctx, now, then, False)})
    both = [k for k in fa if k in fb]
    then = round(sum(fa[k].stage == "found" for k in both) / len(both), 4) if both else None
    now = round(sum(fb[k].stage == "found" for k in both) / len(both), 4) if both else None
    out: dict[str, Any] = {
        "a": {**a.to_json(), "recall": a.recall}, "b": {**b.to_json(), "recall": b.recall},
        "both": {"facts": len(both), "a": then, "b": now},
        "change": None if then is None or now is None else round(now - then, 4),
        "in_both": len(both), "newly_lost": lost, "brought_back": back,
        "only_in_a": [_only(ctx, fa[k], b, True) for k in fa if k not in fb],
        "only_in_b": [_only(ctx, fb[k], a, False) for k in fb if k not in fa],
        "groups": _group_rows([fa[k] for k in both], [fb[k] for k in both]) if a.kind == "topics" else [],
        "notes": notes(ws, a, b),
    }
    return out


def headline(report: dict[str, Any], pct: Callable[[float | None], str]) -> tuple[str, str]:
    """The comparison's first two sentences, as the Compare page and ``audit compare`` say them:
    recall@10 over the facts in both runs (like with like), then each run whole."""
    both, a, b = report["both"], report["a"], report["b"]
    what = "questions" if a.get("kind") == "queries" else "facts"
    if both["facts"]:
        change = "" if report["change"] is None else f" ({report['change'] * 100:+.1f} points)"
        first = (f"recall@10 on the {both['facts']:,} {what} in both runs: {pct(both['a'])} in run {a['run']} → "
                 f"{pct(both['b'])} in run {b['run']}{change}")
    else:
        first = f"no {what} were asked in both runs: there is nothing to compare like with like"
    only = len(report["only_in_a"]) + len(report["only_in_b"])
    second = (f"each run whole: run {a['run']} {pct(a['recall'])} of {a['facts']:,}, run {b['run']} "
              f"{pct(b['recall'])} of {b['facts']:,}" + (f" ({only:,} in one run only, not in the figure above)"
                                                          if only else ""))
    return first, second


def notes(ws: Workspace, a: Run, b: Run) -> list[str]:
    """Sentences about what makes the two runs less alike than they look."""
    out = []
    for run in (a, b):
        if run.file and run.file != str(ws.path):
            out.append(f"run {run.id} was taken when the file was at {run.file} (moved since)")
        if not run.complete:
            out.append(f"run {run.id} was stopped before it finished ({run.facts:,} facts audited)")
    if a.rules_version != b.rules_version:
        out.append(f"the runs were ranked by different product rules ({a.rules_version}, {b.rules_version})")
    if a.data_stamp == b.data_stamp:
        out.append("the workspace's data is the same in both runs: only time (decay) moved")
    if a.at > b.at:
        out.append(f"run {a.id} is the newer of the two: 'newly lost' reads from {a.id} to {b.id} as given")
    return out


def compare(ws: Workspace, run_a: str, run_b: str) -> dict[str, Any]:
    """``memory-desk audit compare WORKSPACE RUN_A RUN_B``."""
    a, b = get_run(ws, run_a), get_run(ws, run_b)
    if a.id == b.id:
        raise BadInput(f"{run_a} and {run_b} are the same run ({a.id}); give two different runs")
    return compare_runs(ws, a, b)


# --- the gate -----------------------------------------------------------------------------------


MIN_GROUP = 10  # a group counts for the gate when it has this many facts in both runs (1 of 2 is 50 points)


def gate(report: dict[str, Any], max_drop: float) -> list[str]:
    """What fell by more than ``max_drop`` from run a to run b: overall, or a group of at least
    ``MIN_GROUP`` facts in both runs (one sentence each)."""
    out = []
    change = report["change"]
    if change is not None and change < -max_drop - 1e-9:
        both = report["both"]
        out.append(f"recall@10 of the {both['facts']:,} facts in both runs fell from {both['a']:.1%} to "
                   f"{both['b']:.1%} ({change * 100:+.1f} points; at most {max_drop * 100:.1f} allowed)")
    for g in report["groups"]:
        big = min(g["a"]["facts"], g["b"]["facts"]) >= MIN_GROUP
        if big and g["change"] is not None and g["change"] < -max_drop - 1e-9:
            out.append(f"{g['group'].replace('_', ' ')} {g['label']}: recall@10 fell from {g['a']['recall']:.1%} to "
                       f"{g['b']['recall']:.1%} ({g['a']['found']}/{g['a']['facts']} → {g['b']['found']}/"
                       f"{g['b']['facts']})")
    return out


__all__ = ["MIN_GROUP", "compare", "compare_runs", "comparable", "gate", "headline", "notes"]
