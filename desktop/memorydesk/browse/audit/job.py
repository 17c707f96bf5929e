"""One recall audit as the window and the command line run it: first wait for search's copies
of the file when they are being built (an audit through the product's SQL is several times
slower a fact), then audit, then (optionally) keep the run.

``Progress`` is ``(done, total, text)``: total 0 while waiting, with the text saying why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from memorydesk.browse.audit.runs import Run, RunFact, run_facts
from memorydesk.search import audit
from memorydesk.search.copies.ready import BUILD_FOR, WAITING, Progress, wait_for_copies
from memorydesk.store import Workspace

AUDITING = "asking for each fact's own topic"
ASKING = "asking your questions"


@dataclass(frozen=True)
class Plan:
    """What to audit: every active fact, a seeded sample, given fact ids, or questions."""

    sample: int | None = None
    seed: int = 0
    ids: tuple[str, ...] | None = None
    queries: tuple[tuple[str, tuple[str, ...]], ...] | None = None
    what_if: tuple[str, ...] = ()

    @property
    def size(self) -> int | None:
        if self.queries is not None:
            return len(self.queries)
        return len(self.ids) if self.ids is not None else self.sample

    @classmethod
    def again(cls, ws: Workspace, run: Run, what_if: Sequence[str] = ()) -> Plan:
        """The facts (or questions) ``run`` asked, asked again: the gate's default."""
        if run.kind == "queries":
            pairs: dict[str, list[str]] = {}
            for f in run_facts(ws, run):
                pairs.setdefault(f.query, []).append(f.fact_id)
            return cls(queries=tuple((q, tuple(t)) for q, t in pairs.items()), what_if=tuple(what_if))
        if run.sample is None:
            return cls(what_if=tuple(what_if))
        return cls(ids=tuple(f.fact_id for f in run_facts(ws, run)), seed=run.seed or 0, what_if=tuple(what_if))


def run_audit(ws: Workspace, plan: Plan, *, progress: Progress | None = None,
              cancelled: Callable[[], bool] | None = None, now: float | None = None) -> dict[str, Any]:
    """The audit's report (``search.audit``'s), after waiting for search's copies if they are on the way."""
    wait_for_copies(ws, progress, cancelled, plan.size)
    doing = ASKING if plan.queries is not None else AUDITING
    step = None if progress is None else (lambda done, total: progress(done, total, doing))
    names = list(plan.what_if)
    if plan.queries is not None:
        return audit.audit_queries(ws, [(q, list(t)) for q, t in plan.queries], what_if=names, now=now,
                                   progress=step, cancelled=cancelled)
    if plan.ids is not None:
        return audit.audit_ids(ws, plan.ids, what_if=names, now=now, progress=step, cancelled=cancelled)
    return audit.audit_workspace(ws, sample=plan.sample, seed=plan.seed, what_if=names, now=now, progress=step,
                                 cancelled=cancelled)


__all__ = ["ASKING", "AUDITING", "BUILD_FOR", "WAITING", "Plan", "Progress", "Run", "RunFact", "run_audit",
           "wait_for_copies"]
