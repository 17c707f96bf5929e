"""Can the agent get this back? The stage where the agent's hybrid recall loses a fact
(``search.loss``), said for people: in the agent view ("What the agent misses" and each
hit's funnel) and in the detail pane for the selected fact (its own topic, or a typed
query).

``misses`` and ``ask`` run on the worker; the ``*_html`` helpers build what is shown.
"""

from __future__ import annotations

import html
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memorydesk.browse import facts as browse
from memorydesk.store.workspace import Workspace
from memorydesk.ui.facts import decay

if TYPE_CHECKING:  # search is loaded by the first search, not by the window's first paint
    from memorydesk.search.agent import SearchResult
    from memorydesk.search.loss import Loss

KIND_WORDS = {"keyword": "Best keyword match", "semantic": "Best semantic match"}
HEADS = {"mmr": "Lost to MMR (diversity)", "decay": "Lost to decay (its age)", "fusion": "Ranked too low by the voices"}


@dataclass
class Missed:
    kind: str  # keyword / semantic
    loss: Loss
    topic: str
    content: str
    name: str = ""  # what tells it apart from facts of the same topic (``browse.naming``)


@dataclass
class Asked:
    """The answer for one fact and one query."""

    fact_id: str
    query: str
    loss: Loss
    hits: int
    now: float


def misses(ws: Workspace, result: SearchResult) -> list[Missed]:
    """The best keyword and the best semantic matches not among the hits, and where they were lost
    (worker thread)."""
    from memorydesk.search.audit import best_missed
    from memorydesk.search.loss import diagnose

    best = best_missed(ws, result)
    losses = diagnose(result, list(best.values()))
    from memorydesk.browse.naming import fact_names

    rows = {r.id: r for r in browse.rows_for_ids(ws, list(best.values()))}
    names = {n.id: n.shown for n in fact_names(ws, list(best.values()))}  # two “invoice list” facts told apart
    return [Missed(kind, losses[fid], rows[fid].topic, rows[fid].content, names.get(fid, rows[fid].topic))
            for kind, fid in best.items() if fid in rows]


def ask(ws: Workspace, fact_id: str, query: str, now: float | None = None) -> Asked:
    """Where the agent's hybrid recall loses ``fact_id`` for ``query`` (worker thread; a preview)."""
    from memorydesk.search.agent import search
    from memorydesk.search.loss import diagnose

    clock = time.time() if now is None else now
    result = search(ws, query, mode="hybrid", now=clock)
    return Asked(fact_id, query, diagnose(result, [fact_id])[fact_id], len(result.hits), clock)


# --- words ----------------------------------------------------------------------------------


def _n(value: float | None, digits: int = 5) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _place(rank: int | None) -> str:
    return "—" if rank is None else f"#{rank}"


def funnel_html(loss: Loss) -> str:
    """Its place after each step: voices → fusion → decay → confidence → MMR."""
    if loss.stage == "not_candidate":
        return "<p>No voice lists it, so it is never scored.</p>"
    steps = [f"{name} {_place(rank)}" for name, rank in loss.funnel]
    if loss.rank is None:
        steps[-1] = "MMR: not chosen"
    return f"<p>Its place after each step: {' → '.join(html.escape(s) for s in steps)} " \
           f"<span style='color:gray'>(of {loss.candidates} candidates)</span></p>"


def verdict_html(loss: Loss, now: float) -> str:
    """One sentence for the stage, and the numbers that decided it."""
    if loss.stage == "found":
        head = f"<b>Found: #{loss.rank}</b> of the agent's 10."
    elif loss.stage == "not_candidate":
        head = ("<b>Not a candidate:</b> no voice lists it — not among the keyword search's 20, the 30 nearest "
                "embeddings, the 30 newest facts, nor two hops from the top seeds.")
    else:
        head = f"<b>{html.escape(HEADS[loss.stage])}.</b>"
    parts = [head]
    if loss.stage != "not_candidate":
        voices = ", ".join(f"{name} #{rank}" for name, rank in loss.voices.items()) or "no voice"
        age = ""
        if loss.created_at is not None:
            age = f", {decay.human_hours(max(0.0, (now - loss.created_at) / 3600))} old"
        parts.append(f"Voices: {html.escape(voices)}; fused {_n(loss.rrf)}; decay ×{_n(loss.decay_factor, 3)}{age}; "
                     f"confidence ×{_n(loss.confidence_factor, 3)}; score {_n(loss.score, 6)} "
                     f"(#{loss.score_rank} by score, #{loss.undecayed_rank} if nothing decayed).")
    if loss.stage == "mmr":
        parts.append(f"MMR chose others: its similarity {_n(loss.mmr_similarity, 2)} to a chosen hit cost it "
                     f"−{_n(loss.mmr_penalty, 3)}, against a score term of only {_n(0.7 * (loss.score or 0), 5)}.")
    elif loss.stage == "decay":
        parts.append("Undecayed it would be in the 10; its age costs it the place.")
    elif loss.stage == "fusion":
        parts.append("Even undecayed the voices rank it too low for the 10.")
    return "<br>".join(parts)


def misses_html(missed: list[Missed], now: float) -> str:
    if not missed:
        return ("<b>What the agent misses:</b> nothing — the best keyword match and the best semantic match "
                "are both among the 10 (or there are none).")
    rows = ["<b>What the agent misses</b> <span style='color:gray'>(not among its 10)</span>"]
    for m in missed:
        topic = html.escape((m.name or m.topic)[:120])
        rows.append(f"{KIND_WORDS[m.kind]}: <a href='fact:{html.escape(m.loss.target)}'>{topic}</a> — "
                    f"{verdict_html(m.loss, now)}")
    return "<br>".join(rows)


def asked_html(answer: Asked | None, own_topic: bool) -> str:
    if answer is None:
        return ""
    where = "its own topic" if own_topic else "this query"
    return (f"<p>For {where} “\u2068{html.escape(answer.query)}\u2069”:</p>"
            f"<p>{verdict_html(answer.loss, answer.now)}</p>{funnel_html(answer.loss)}"
            "<p style='color:gray'>The agent's hybrid recall as a preview: nothing is recorded.</p>")


__all__ = ["Asked", "Missed", "ask", "asked_html", "funnel_html", "misses", "misses_html", "verdict_html"]
