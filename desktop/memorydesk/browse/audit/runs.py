"""Recall-audit runs kept in the workspace (``store.audit_tables``): listed and read back.

``memory.audit_runs.save_run`` keeps one audit report with what makes two runs comparable
(the time, the file and workspace, the data stamp, the schemas, the product rules version);
``as_run`` reads its row as a ``Run``, ``unsaved_run`` a report that is not kept.
``latest`` and ``previous`` name the newest two runs.
A file opened read-only without the desk's tables simply has no runs.

A run belongs to the file it was taken in. A copy of the file (``cp``, a restored backup, a
salvage) holds the same workspace id and the same rows, runs included, so neither tells it
apart: the file's device and inode do (``file_key``, kept with each run; a move keeps them).
Runs taken in another file, or on another workspace, are not listed and are refused by id.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, literal_column, select

from memorydesk.core.errors import BadInput
from memorydesk.memory.audit_runs import file_key, product_schema, run_rows
from memorydesk.search.audit import AGE_BUCKETS
from memorydesk.store import Workspace
from memorydesk.store.audit_tables import FACTS, RUNS
from memorydesk.store.ours import AUDIT_SCHEMA

ALIASES = ("latest", "previous")
GROUPS = (("domain", "domain"), ("memory_type", "memory type"), ("age", "age"), ("veracity", "veracity"))


@dataclass(frozen=True)
class Run:
    id: str
    workspace_id: str
    file: str
    file_key: str
    at: float
    kind: str  # topics | queries
    origin: str  # command | window
    data_stamp: str
    product_schema: str
    desk_schema: int
    rules_version: str
    sample: int | None
    seed: int | None
    what_if: tuple[str, ...]
    complete: bool
    facts: int
    found: int
    recall: float | None
    summary: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {"run": self.id, "at": self.at, "kind": self.kind, "origin": self.origin, "facts": self.facts,
                "found": self.found, "recall": self.recall, "complete": self.complete, "sample": self.sample,
                "seed": self.seed, "what_if": list(self.what_if), "data_stamp": self.data_stamp,
                "product_schema": self.product_schema, "rules_version": self.rules_version, "file": self.file}

    def group_recall(self, group: str) -> dict[str, float | None]:
        """recall@10 per label of ``group`` (domain, memory_type, age, veracity), as the audit printed it."""
        return {label: row.get("recall_at_10") for label, row in self.summary.get(f"by_{group}", {}).items()}


@dataclass(frozen=True)
class RunFact:
    position: int
    fact_id: str
    query: str
    stage: str
    rank: int | None
    domain: str
    memory_type: str
    veracity: str
    age_days: float | None
    decay_factor: float | None
    mmr_against: str | None
    mmr_similarity: float | None
    score_rank: int | None
    undecayed_rank: int | None

    def group(self, name: str) -> str:
        if name == "age":
            return age_label(self.age_days)
        return str(getattr(self, name))


def age_label(age_days: float | None) -> str:
    """The audit's age bucket (``search.audit.AGE_BUCKETS``) of an age in days."""
    hours = max(0.0, (age_days or 0.0) * 24)
    return next(label for limit, label in AGE_BUCKETS if hours < limit)


def kept(ws: Workspace) -> bool:
    """Whether this file has the runs' tables (``ws.desk_schema`` says so; opening never adds them)."""
    return ws.desk_schema >= AUDIT_SCHEMA


def _fact(r: dict[str, Any]) -> RunFact:
    return RunFact(r["position"], r["fact_id"], r["query"], r["stage"], r["rank"], r["domain"], r["memory_type"],
                   r["veracity"], r["age_days"], r["decay_factor"], r["mmr_against"], r["mmr_similarity"],
                   r["score_rank"], r["undecayed_rank"])


def unsaved_run(ws: Workspace, report: dict[str, Any], *, sample: int | None = None, seed: int | None = None,
                what_if: Sequence[str] = ()) -> tuple[Run, list[RunFact]]:
    """``report`` as a run that is not kept (the gate without ``--save``)."""
    row, rows = run_rows(ws, report, "command", sample, seed, what_if)
    row["id"] = "this-run"
    return as_run(row), [_fact(r) for r in rows]


# --- reading ------------------------------------------------------------------------------------


def as_run(r: Any) -> Run:
    """A run's row (as kept, or as ``memory.audit_runs.save_run`` returns it) as a ``Run``."""
    m = dict(r._mapping) if hasattr(r, "_mapping") else dict(r)
    return Run(m["id"], m["workspace_id"], m["file"], m["file_key"], float(m["at"]), m["kind"], m["origin"],
               m["data_stamp"],
               m["product_schema"], int(m["desk_schema"]), m["rules_version"], m["sample"], m["seed"],
               tuple(json.loads(m["what_if"] or "[]")), bool(m["complete"]), int(m["facts"]), int(m["found"]),
               m["recall"], json.loads(m["summary"] or "{}"))


def all_runs(ws: Workspace) -> list[Run]:
    """Every run kept in the file, oldest first (whatever workspace it names)."""
    if not kept(ws):
        return []
    with ws.read() as conn:
        return [as_run(r) for r in conn.execute(select(RUNS).order_by(RUNS.c.at, literal_column("rowid")))]


def _foreign(ws: Workspace, run: Run, key: str) -> str | None:
    """Why ``run`` is not this file's (None: it is)."""
    if run.workspace_id != ws.workspace_id:
        return (f"recall-audit run {run.id} was taken on another workspace ({run.workspace_id}, in {run.file}), not on "
                f"{ws.path.name}'s ({ws.workspace_id}); its rows were copied in with that workspace's tables")
    if run.file_key != key:
        return (f"recall-audit run {run.id} was taken in another file ({run.file}): {ws.path.name} is a copy of it, "
                "restored from a backup or salvaged, and its facts and history since are not that file's; compare "
                "runs taken in this file (a copy starts with none), or gate the original file itself")
    return None


def list_runs(ws: Workspace) -> tuple[list[Run], int]:
    """This file's runs, oldest first, and how many runs of another file or workspace it holds."""
    runs = all_runs(ws)
    key = file_key(ws) if runs else ""
    mine = [r for r in runs if _foreign(ws, r, key) is None]
    return mine, len(runs) - len(mine)


def get_run(ws: Workspace, run_id: str) -> Run:
    """One of this workspace's runs by id (or ``latest`` / ``previous``); ``BadInput`` otherwise."""
    name = ws.path.name
    if not kept(ws):
        raise BadInput(f"{name} keeps no recall-audit runs yet (memory-desk audit recall {name} --save keeps one), "
                       f"so there is no run {run_id!r}")
    if run_id in ALIASES:
        mine, _other = list_runs(ws)
        wanted = 1 if run_id == "latest" else 2
        if len(mine) < wanted:
            raise BadInput(f"{name} keeps {len(mine)} recall-audit run(s) of its own, so there is no {run_id!r} run")
        return mine[-wanted]
    with ws.read() as conn:
        row = conn.execute(select(RUNS).where(RUNS.c.id == run_id.strip().lower())).first()
    if row is None:
        raise BadInput(f"{name} keeps no recall-audit run {run_id!r}; memory-desk audit runs {name} lists them")
    run = as_run(row)
    why = _foreign(ws, run, file_key(ws))
    if why is not None:
        raise BadInput(why)
    return run


def run_facts(ws: Workspace, run: Run) -> list[RunFact]:
    with ws.read() as conn:
        rows = conn.execute(select(FACTS).where(FACTS.c.run_id == run.id).order_by(FACTS.c.position)).all()
    return [_fact(dict(r._mapping)) for r in rows]


def run_count(ws: Workspace) -> int:
    if not kept(ws):
        return 0
    with ws.read() as conn:
        return int(conn.execute(select(func.count()).select_from(RUNS)).scalar() or 0)


__all__ = ["ALIASES", "GROUPS", "Run", "RunFact", "age_label", "all_runs", "as_run", "file_key", "get_run", "kept",
           "list_runs", "product_schema", "run_count", "run_facts", "unsaved_run"]
