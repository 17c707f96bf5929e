"""One-shot commands as a person runs them, each beside a plain script doing the same job.

Run with ``pytest tests/bench/bench_oneshot.py -s`` (or ``python`` on this file). Every
round runs, as its own process, the command and then its plain script (rounds alternate,
so changes of the machine's load hit both alike); each is timed from start to exit, wall
and CPU (user + system of the child). Medians are printed with the ratio and the load
average. Bytecode is written and used as an installed desk would; a first round of each
warms the file cache and compiles, and is not counted.

- ``history``: ``memory-desk history FILE`` (every change, as text) beside one ``UNION ALL …
  ORDER BY`` over the same tables, each row printed as a line (goal ≤ ×1.5);
- ``review``: ``memory-desk review FILE --json`` (every kind), and ``--kind secret --kind
  personal_data --kind injection`` (the text kinds), beside one compiled regex over the
  active facts' topic and content, matches printed as JSON (goal ≤ ×2 each);
- ``keyword``: ``memory-desk search FILE QUERY --mode keyword --json`` beside a process that
  runs the product's FTS5 query with ``sqlite3`` and prints the ids (goal ≤ ×3; the plain
  process applies none of the product's ranking rules);
- ``classify``: ``memory-desk lineage classify FILE.jsonl --json`` on 600,000 receipts
  (60,000 runs) beside ``json.loads`` per line, a group-by runId and a rule per run
  (scopes, a committed promotion, a generation's proof), printed as JSON (goal ≤ ×1.2).

``MEMDESK_BENCH_DEMO``: the workspace (default: the 100,000-fact demo without embeddings,
``review_corpus.demo_100k(embed=0)``); ``MEMDESK_BENCH_ROUNDS`` (default 5);
``MEMDESK_BENCH_ONESHOT``: which of ``history,review,review_text,keyword,classify`` (default
all).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).parents[1])]  # run as a script too

ROUNDS = int(os.environ.get("MEMDESK_BENCH_ROUNDS", "5"))
WHICH = [w for w in os.environ.get("MEMDESK_BENCH_ONESHOT", "history,review,review_text,keyword,classify").split(",")
         if w]
GOALS = {"history": 1.5, "review": 2.0, "review_text": 2.0, "keyword": 3.0, "classify": 1.2}
TEXT_KINDS = ["--kind", "secret", "--kind", "personal_data", "--kind", "injection"]
QUERIES = ["retry budget for the gateway", "deploy the cache", "who owns the schema migration",
           "rollback after the canary alert", "token rotation in the queue"]
NOW = "2025-03-22T12:00:00Z"  # the synthetic receipts' now (fixtures.receipts.NOW_TEXT)

PLAIN_HISTORY = textwrap.dedent("""
    import sqlite3, sys, time
    con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    q = '''
    SELECT created_at, ifnull(authored_by_agent_id, 'unknown'), 'fact created', id,
           topic || ' ' || substr(content, 1, 90) FROM memory_facts_table
    UNION ALL SELECT updated_at, 'unknown', 'fact superseded', id, superseded_by FROM memory_facts_table
           WHERE superseded_by IS NOT NULL
    UNION ALL SELECT created_at, ifnull(required_role, ''), 'policy created', id, rule FROM memory_policies_table
    UNION ALL SELECT created_at, 'product', 'conflict recorded', id,
           conflict_type || ' ' || fact_a_id || ' ' || fact_b_id FROM memory_conflicts_table
    UNION ALL SELECT resolved_at, 'product', 'conflict resolved', id,
           conflict_type || ' ' || fact_a_id || ' ' || fact_b_id FROM memory_conflicts_table
           WHERE resolved_at IS NOT NULL
    UNION ALL SELECT created_at, '', 'edge created', id,
           edge_type || ' ' || source_fact_id || ' ' || target_fact_id FROM episodic_edges_table
    UNION ALL SELECT updated_at, agent_id, 'note updated', agent_id, '' FROM agent_working_memory_table
    UNION ALL SELECT at, actor, action, entity_id, reason FROM memdesk_history
    ORDER BY 1 DESC'''
    out = []
    for at, actor, what, id_, text in con.execute(q):
        out.append(f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(at))}  {actor}  {what}  {id_}  {text}\\n")
        if len(out) >= 2000:
            sys.stdout.write("".join(out)); out.clear()
    sys.stdout.write("".join(out))
""")

PLAIN_REVIEW = textwrap.dedent(r"""
    import json, re, sqlite3, sys
    con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    pattern = re.compile(
        r"(?i)(AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36}|sk-[A-Za-z0-9]{20,}|-----BEGIN [A-Z ]*PRIVATE KEY-----"
        r"|xox[baprs]-[A-Za-z0-9-]{10,}|[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}|\+?\d[\d -]{8,}\d"
        r"|ignore (all )?(previous|prior) instructions|disregard .{0,40}instructions|you are now|system prompt"
        r"|[\u200b-\u200f\u202a-\u202e\u2066-\u2069])")
    found = []
    for fid, topic, content in con.execute(
            "SELECT id, topic, content FROM memory_facts_table WHERE superseded_by IS NULL"):
        for field, text in (("topic", topic), ("content", content)):
            m = pattern.search(text or "")
            if m:
                found.append({"item_id": fid, "field": field, "evidence": m.group(0)})
    sys.stdout.write(json.dumps(found, indent=2) + "\n")
""")

PLAIN_KEYWORD = textwrap.dedent("""
    import re, sqlite3, sys
    path, query = sys.argv[1:3]
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    words = [w for w in re.sub(r"[^a-z0-9\\s]", " ", query.lower()).split() if len(w) > 1]
    match = " OR ".join(w + "*" for w in words)
    rows = con.execute("SELECT f.id FROM memory_facts_fts JOIN memory_facts_table f "
                       "ON f.rowid = memory_facts_fts.rowid WHERE memory_facts_fts MATCH ? "
                       "AND f.superseded_by IS NULL ORDER BY rank LIMIT 20", (match,)).fetchall()
    print("\\n".join(r[0] for r in rows))
""")

PLAIN_CLASSIFY = textwrap.dedent("""
    import json, sys
    runs = {}
    with open(sys.argv[1], encoding="utf-8") as stream:
        for line in stream:
            if line.strip():
                r = json.loads(line)
                runs.setdefault(r["runId"], []).append(r)
    out = []
    for run_id in sorted(runs):
        rs = runs[run_id]
        if len({r["userScope"] for r in rs}) > 1 or len({r["assistantScope"] for r in rs}) > 1:
            state = "scope_conflict"
        elif not any(r["tier"] in ("mtm", "lpm") and r["status"] in ("committed", "verified") for r in rs):
            state = "promotion_missing"
        elif any(r["tier"] == "generation" and not r.get("outcomeReceipt") for r in rs):
            state = "generation_unverified"
        else:
            state = "healthy"
        out.append(json.dumps({"runId": run_id, "state": state, "color": "", "reason": ""}))
    sys.stdout.write("[\\n  " + ",\\n  ".join(out) + "\\n]\\n")
""")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.setdefault("TZ", "UTC")
    return env


def _timed(args: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one process (its output thrown away)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(args, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=3600)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(args)} failed: {done.stderr.decode(errors='replace')[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _demo() -> Path:
    given = os.environ.get("MEMDESK_BENCH_DEMO")
    if given:
        return Path(given)
    from review_corpus import demo_100k

    return demo_100k(embed=0)


def _receipts(folder: Path) -> Path:
    from fixtures.receipts import synthetic_lines

    path = folder / "receipts-600k.jsonl"
    if not path.exists():
        with open(path, "w", encoding="utf-8") as out:
            for line in synthetic_lines(60_000, 10):
                out.write(line + "\n")
    return path


def pairs(folder: Path) -> dict[str, tuple[callable, callable]]:
    """name → (the desk's command for round i, the plain script's)."""
    desk = [sys.executable, "-m", "memorydesk"]
    plain = [sys.executable, "-c"]
    out: dict[str, tuple] = {}
    if {"history", "review", "review_text", "keyword"} & set(WHICH):
        demo = str(_demo())
        out["history"] = (lambda i: [*desk, "history", demo], lambda i: [*plain, PLAIN_HISTORY, demo])
        out["review"] = (lambda i: [*desk, "review", demo, "--json"], lambda i: [*plain, PLAIN_REVIEW, demo])
        out["review_text"] = (lambda i: [*desk, "review", demo, "--json", *TEXT_KINDS],
                              lambda i: [*plain, PLAIN_REVIEW, demo])
        out["keyword"] = (lambda i: [*desk, "search", demo, QUERIES[i % len(QUERIES)], "--mode", "keyword", "--json"],
                          lambda i: [*plain, PLAIN_KEYWORD, demo, QUERIES[i % len(QUERIES)]])
    if "classify" in WHICH:
        receipts = str(_receipts(folder))
        out["classify"] = (lambda i: [*desk, "lineage", "classify", receipts, "--now", NOW, "--json"],
                           lambda i: [*plain, PLAIN_CLASSIFY, receipts])
    return {name: out[name] for name in WHICH if name in out}


def run(folder: Path) -> None:
    print(f"\none-shot commands beside plain scripts, {ROUNDS} rounds each, alternating")
    print(f"  {'what':<12} {'desk wall':>10} {'plain wall':>11} {'ratio':>7} {'desk CPU':>9} {'plain CPU':>10} "
          f"{'ratio':>7} {'goal':>6}  load")
    for name, (desk, plain) in pairs(folder).items():
        _timed(desk(0))  # the file cache and the bytecode, not counted
        _timed(plain(0))
        ours: list[tuple[float, float]] = []
        base: list[tuple[float, float]] = []
        loads = [os.getloadavg()[0]]
        for i in range(ROUNDS):
            ours.append(_timed(desk(i)))
            base.append(_timed(plain(i)))
            loads.append(os.getloadavg()[0])
        dw, dc = (statistics.median(x[k] for x in ours) for k in (0, 1))
        pw, pc = (statistics.median(x[k] for x in base) for k in (0, 1))
        print(f"  {name:<12} {dw:>9.2f}s {pw:>10.2f}s {dw / pw:>6.2f}× {dc:>8.2f}s {pc:>9.2f}s {dc / pc:>6.2f}× "
              f"{'≤ ×' + str(GOALS[name]):>6}  {min(loads):.1f}–{max(loads):.1f}", flush=True)
        print(f"  {'':<12} runs: desk " + ", ".join(f"{w:.2f}" for w, _ in ours)
              + "; plain " + ", ".join(f"{w:.2f}" for w, _ in base), flush=True)


@pytest.mark.slow
def test_bench_oneshot(tmp_path: Path) -> None:
    run(tmp_path)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        run(Path(folder))
