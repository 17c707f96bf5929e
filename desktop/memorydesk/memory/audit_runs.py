"""Recall-audit runs kept in the workspace (``store.audit_tables``): ``save_run`` stores one.

One audit report (``search.audit.audit_workspace`` or ``audit_queries``) is kept in one
transaction, with what makes two runs comparable: the time, the file and workspace it was
taken on, the workspace's data stamp (``store.watermarks``), the product schema (layout and
``user_version``) and the desk's, and the product rules version (``core.product.rules``). It
is a record of the desk's, not a change to memory: no history row, nothing to undo. The
runs are read back, listed and compared by ``browse.audit``.

Run ids are 8 random hex digits, so a copy of the file that goes on auditing never gives a
new run the id of one kept in the original. A run belongs to the file it was taken in: the
file's device and inode (``file_key``) are kept with it.
"""

from __future__ import annotations

import json
import math
import os
import secrets
from collections.abc import Sequence
from typing import Any

from memorydesk.core.product.rules import RULES_VERSION
from memorydesk.store import Workspace
from memorydesk.store.audit_tables import FACTS, RUNS
from memorydesk.store.watermarks import data_stamp


def file_key(ws: Workspace) -> str:
    """The file's device and inode: a copy of the file has others, a move keeps them."""
    st = os.stat(ws.path)
    return f"{st.st_dev}:{st.st_ino}"


def product_schema(ws: Workspace) -> str:
    """The memory layout and the product's ``user_version``: ``suffixed 13``."""
    with ws.read() as conn:
        version = conn.exec_driver_sql("PRAGMA user_version").scalar()
    return f"{ws.layout.kind} {int(version or 0)}"


def _fact_row(run_id: str, n: int, entry: dict[str, Any], queries: bool) -> dict[str, Any]:
    what_if = entry.get("what_if")
    return {"run_id": run_id, "position": n, "fact_id": entry["target"] if queries else entry["id"],
            "query": entry.get("query", ""), "stage": entry["lost_at"], "rank": entry.get("rank"),
            "domain": entry.get("domain", ""), "memory_type": entry.get("memory_type", ""),
            "veracity": entry.get("veracity", ""), "age_days": entry.get("age_days"),
            "decay_factor": entry.get("decay_factor"), "mmr_against": entry.get("mmr_against"),
            "mmr_similarity": entry.get("mmr_similarity"), "score_rank": entry.get("score_rank"),
            "undecayed_rank": entry.get("undecayed_rank"),
            "what_if": json.dumps({k: [v["lost_at"], v["rank"]] for k, v in what_if.items()}) if what_if else None}


def run_rows(ws: Workspace, report: dict[str, Any], origin: str, sample: int | None, seed: int | None,
             what_if: Sequence[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The run's row and its facts' rows for ``report`` (nothing written)."""
    s = report["summary"]
    queries = "results" in report
    entries = report["results"] if queries else report["facts"]
    run_id = secrets.token_hex(4)
    recall = s.get("recall_at_10")
    row = {"id": run_id, "workspace_id": ws.workspace_id, "file": str(ws.path), "file_key": file_key(ws),
           "at": float(s["now"]),
           "kind": "queries" if queries else "topics", "origin": origin, "data_stamp": data_stamp(ws),
           "product_schema": product_schema(ws), "desk_schema": ws.desk_schema, "rules_version": RULES_VERSION,
           "sample": None if queries else sample, "seed": seed if sample is not None and not queries else None,
           "what_if": json.dumps(list(what_if)), "complete": int(bool(s.get("complete", True))),
           "facts": len(entries), "found": int(s.get("found", 0)),
           "recall": None if recall is None or math.isnan(recall) else float(recall),
           "summary": json.dumps(s, ensure_ascii=False)}
    return row, [_fact_row(run_id, n, e, queries) for n, e in enumerate(entries)]


def save_run(ws: Workspace, report: dict[str, Any], *, origin: str = "command", sample: int | None = None,
             seed: int | None = None, what_if: Sequence[str] = ()) -> dict[str, Any]:
    """Keep ``report`` as a new run (one transaction; the first write to a file adds the desk's tables);
    the run's row (``browse.audit.runs.as_run`` reads it as a ``Run``)."""
    row, rows = run_rows(ws, report, origin, sample, seed, what_if)
    with ws.write() as conn:
        row["desk_schema"] = ws.desk_schema  # the write added or migrated our tables if needed
        conn.execute(RUNS.insert().values(**row))
        for at in range(0, len(rows), 2000):
            conn.execute(FACTS.insert(), rows[at:at + 2000])
    return row
