"""The Facts tab's search, run as operations: the agent's keyword search (the default),
the agent's hybrid ranking ("as the agent sees it", a preview), and how to explain it.

``keyword_list`` and ``agent_hits`` run on the worker thread and touch no widget; the
text helpers build what the tab shows. A preview never records a recall: the desk calls
``search`` with ``record_recall`` left off, so nothing in the file changes.
"""

from __future__ import annotations

import array
import html
from dataclasses import dataclass, field
from typing import Any

from memorydesk.browse import facts as browse
from memorydesk.browse.facts import FactQuery, FactRow
from memorydesk.store.workspace import Workspace
from memorydesk.ui.facts import decay, recall
from memorydesk.ui.facts.model import WINDOW

#: how many keyword hits the list shows (an agent gets the best 20)
KEYWORD_LIST = 200
AGENT_KEYWORD = 20
SUBSTRING_TIP = ("The desk's plain text filter on topic and content. Agents never search this way: it finds "
                 "facts for you, it does not show what an agent gets.")


@dataclass
class Listing:
    """A list read in one go: its keys, the workspace's total, and what the search said."""

    keys: array.array
    total: int
    label: str = ""
    tip: str = ""
    note: str = ""  # a sentence for the banner under the filters, or ""
    query: FactQuery | None = None  # what was listed, when it is not the query asked for (search hits)
    windows: dict[int, list[FactRow | None]] = field(default_factory=dict)  # rows read with the keys
    hits: int | None = None  # a keyword search: how many facts it found (the list may show fewer: filters)
    ranks: dict[str, tuple[int, float]] = field(default_factory=dict)  # fact id -> (its rank, its score)


def read_windows(ws: Workspace, keys: array.array, windows: list[int],
                 as_of: int | None = None) -> dict[int, list[FactRow | None]]:
    """The rows of these windows of a list (read with the list, so they show with it)."""
    out = {}
    for w in windows:
        chunk = keys[w * WINDOW:(w + 1) * WINDOW]
        if len(chunk):
            out[w] = browse.rows_for_keys(ws, chunk, as_of)
    return out


@dataclass
class AgentHits:
    result: Any  # search.SearchResult
    rows: list[FactRow]
    now: float
    notes: list[str] = field(default_factory=list)
    losses: dict[str, Any] = field(default_factory=dict)  # hit id -> search.loss.Loss (its funnel)
    missed: list[Any] = field(default_factory=list)  # recall.Missed: what the agent does not get


def quoted(text: str) -> str:
    """“text”, isolated so a right-to-left query does not flip the quotes around it."""
    return f"“\u2068{text}\u2069”"


def nothing_note(text: str) -> str:
    return (f"The agent's keyword search finds nothing for this text: it keeps only a–z and 0–9 words of two "
            f"or more letters that are not stopwords, and {quoted(text)} has none. An agent searching for it by "
            f"keyword gets nothing, and no dispatch preamble picks facts with it. Switch on “As the agent "
            f"sees it” for the hybrid ranking, or choose “Substring” to find the facts yourself.")


def keyword_list(ws: Workspace, query: FactQuery, text: str, windows: list[int] = ()) -> Listing:
    """The facts the product's keyword search returns for ``text`` (worker thread), with the
    filters of ``query`` applied, in the product's rank order unless ``query`` sorts by a
    column (``NATURAL``, no column chosen, means the rank order here)."""
    from memorydesk.search import agent as search  # loaded by the first search (after the first paint)

    result = search.keyword_search(ws, text, limit=KEYWORD_LIST)
    total = browse.count_facts(ws, FactQuery(as_of=query.as_of))  # under As Of: the facts that existed then
    if result.match is None:
        return Listing(array.array("q"), total, "keyword · nothing",
                       "The product's keyword search finds no terms in this text.", nothing_note(text),
                       query.with_(text="", ids=()), hits=0)
    listed = query.with_(text="", ids=tuple(result.ids))
    if listed.sort == browse.NATURAL:
        listed = listed.with_(sort=browse.RANK, descending=False)
    keys = browse.fact_keys(ws, listed)
    n = len(result.ids)
    capped = f"; the list shows its best {KEYWORD_LIST}" if n >= KEYWORD_LIST else ""
    tip = (f"The product's keyword search (FTS5 match {result.match}), with the filters above applied. "
           f"An agent gets the best {AGENT_KEYWORD}{capped}.")
    note = "" if n else f"The agent's keyword search finds no fact for {quoted(text)}."
    found = f"best {n:,} hits" if n >= KEYWORD_LIST else f"{n:,} hit{'s' if n != 1 else ''}"
    ranks = {h.id: (i + 1, h.score) for i, h in enumerate(result.hits)}
    return Listing(keys, total, f"keyword · {found}", tip, note, listed,
                   read_windows(ws, keys, list(windows), listed.as_of),
                   hits=n, ranks=ranks)


def agent_hits(ws: Workspace, text: str, now: float) -> AgentHits:
    """What an agent's hybrid ``search_memory`` returns for ``text``, as a preview (worker thread)."""
    from memorydesk.search import agent as search
    from memorydesk.search.loss import diagnose

    result = search.search(ws, text, mode="hybrid", now=now)
    rows = browse.rows_for_ids(ws, result.ids)
    return AgentHits(result, rows, now, list(result.notes), diagnose(result, result.ids),
                     recall.misses(ws, result) if text.strip() else [])


def agent_note(found: AgentHits) -> str:
    notes = found.notes
    if not found.result.hits:
        notes = ["the agent's hybrid search returns nothing for this text", *notes]
    if not notes:
        return ""
    return "As the agent sees it — " + "; ".join(notes) + "."


# --- the explanation of one hit -------------------------------------------------------------


def _num(value: float, digits: int = 5) -> str:
    return f"{value:.{digits}f}"


def _age(created_at: int | None, now: float) -> str:
    if created_at is None:
        return "of unknown age"
    return decay.human_hours(max(0.0, (now - created_at) / 3600)) + " old"


def explain_html(result: Any, rank: int, hit: Any, now: float, loss: Any = None) -> str:
    """Every factor of one hybrid hit's score, as rich text for the detail pane."""
    e = html.escape
    rows = []
    for name in ("fact", "vector", "temporal", "graph"):
        share = hit.voices.get(name)
        weight = result.weights.get(name)
        if weight is None:
            rows.append(f"<tr><td>{name}</td><td colspan=3><i>did not run</i></td></tr>")
        elif share is None:
            rows.append(f"<tr><td>{name}</td><td align=right>{weight:.3f}</td><td>—</td>"
                        f"<td><i>not among its candidates</i></td></tr>")
        else:
            rows.append(f"<tr><td>{name}</td><td align=right>{share.weight:.3f}</td>"
                        f"<td align=right>#{share.rank}</td>"
                        f"<td align=right>{share.weight:.3f} / (60 + {share.rank}) = "
                        f"{_num(share.contribution)}</td></tr>")
    table = ("<table cellspacing=0 cellpadding=3 border=0><tr><th align=left>voice</th><th>weight</th>"
             "<th>rank</th><th align=left>contribution</th></tr>" + "".join(rows) + "</table>")
    steps = [f"voices together (RRF) <b>{_num(hit.rrf or 0.0)}</b>"]
    if hit.decay_factor is not None:
        steps.append(f"× decay 0.02 + 0.98 × {hit.decay:.3f} = <b>{hit.decay_factor:.3f}</b> "
                     f"(a “{e(decay.params(hit.memory_type)[0])}”, {e(_age(hit.created_at, now))})")
    if hit.confidence_factor is not None:
        steps.append(f"× confidence 0.8 + 0.2 × {min(max(hit.confidence, 0.0), 1.0):.2f} = "
                     f"<b>{hit.confidence_factor:.3f}</b>")
    if hit.boost != 1.0:
        steps.append(f"× repo boost <b>{hit.boost:g}</b>")
    steps.append(f"= score <b>{hit.score:.6f}</b>")
    n = len(result.hits)
    place = f"<b>#{rank}</b> of the {n} the agent gets"
    if hit.score_rank is not None and hit.score_rank != rank:
        place += f" (#{hit.score_rank} by score alone of {len(result.candidates)} candidates)"
    mmr = ""
    if hit.mmr_penalty:
        value = f"; its MMR value {hit.mmr_value:.5f}" if hit.mmr_value is not None else ""
        mmr = (f"<p>Diversity (MMR): similarity {hit.mmr_similarity:.2f} to a hit above costs it "
               f"−{hit.mmr_penalty:.3f} (0.7 × score − 0.3 × similarity; the score term is tiny, so "
               f"similarity decides){value}.</p>")
    elif rank > 1 and hit.mmr_similarity is not None:
        mmr = "<p>Diversity (MMR): no overlap with the hits above.</p>"
    intent = e(result.intent or "general")
    notes = "".join(f"<li>{e(note)}</li>" for note in result.notes)
    funnel = recall.funnel_html(loss) if loss is not None else ""
    return (f"<p>{place} for “{e(result.query)}” · intent <b>{intent}</b> "
            f"(weights are the base weights × this intent's biases)</p>{table}"
            f"<p>{'<br>'.join(steps)}</p>{mmr}{funnel}"
            + (f"<p>How the search ran:</p><ul>{notes}</ul>" if notes else ""))
