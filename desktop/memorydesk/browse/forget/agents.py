"""The forget check's agent paths: what an agent is handed, asked with the agent's own code —
``search.agent.search`` in each mode for the fact's topic and for its distinctive words (or
for the typed text), ``search.preamble.build_preamble`` for a task that names it, for every
agent, and the graph voice's walk (``search.hybrid.graph_ids``) from its former neighbours.

A path still returns it when a hit (or a fact line of the preamble) is a version of the fact,
or holds its text; a preamble also when its policies or the agent's note hold the text. Each
search is a preview: no recall is recorded.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select

from memorydesk.browse.forget.subject import Subject
from memorydesk.core.forget import probes
from memorydesk.core.forget.receipt import CANNOT_TELL, GONE, STILL, Answer, Found
from memorydesk.core.product.text import snippet
from memorydesk.embedding.embedder import Embedder, get_embedder
from memorydesk.search.agent import MODES, search
from memorydesk.search.cache import snapshot_version
from memorydesk.search.hybrid import fact_briefs, graph_ids
from memorydesk.search.preamble import FACTS_HEADING, NOTES_HEADING, POLICIES_HEADING, build_preamble
from memorydesk.store import Workspace

AGENT = "agent"
MODE_WORDS = {"keyword": "keyword search", "semantic": "semantic search", "hybrid": "hybrid search"}
QUERY_WORDS = {"topic": "for its topic", "words": "for its distinctive words", "text": "for the text"}
SECTIONS = {POLICIES_HEADING: "policies", NOTES_HEADING: "note", FACTS_HEADING: "fact lines"}


def _returns(subject: Subject) -> Callable[[str, str, str], bool]:
    """Does a returned fact (id, topic, content) give it back: a version of it, or its text?"""
    versions = set(subject.versions)
    return lambda fid, topic, content: fid in versions or probes.holds(topic, subject.needles) or \
        probes.holds(content, subject.needles)


def search_paths(ws: Workspace, subject: Subject, embedder: Embedder | None, now: float) -> list[Answer]:
    kinds = ["text"] if subject.kind != "facts" else ["topic", "words"]
    emb = embedder if embedder is not None else get_embedder()
    model_ok, model_why = emb.status()
    returns = _returns(subject)
    out: list[Answer] = []
    for mode in MODES:
        for kind in kinds:
            key, label = f"search.{mode}.{kind}", f"{MODE_WORDS[mode]} {QUERY_WORDS[kind]}"
            queries = [q for k, q in subject.queries if k == kind]
            if not queries:
                if not subject.queries:  # nothing of its text is known: nothing to search for
                    out.append(Answer(key, label, AGENT, CANNOT_TELL, why=subject.unknown_why))
                else:
                    out.append(Answer(key, label, AGENT, GONE, why="it has no word the product's keyword search "
                                                                   "keeps, so no query of its words exists"))
                continue
            hits: list[str] = []
            no_terms = 0
            for query in queries:
                result = search(ws, query, mode=mode, embedder=emb, now=now)
                no_terms += result.match is None
                hits += [h.id for h in result.hits if returns(h.id, h.topic, h.content)]
            hits = list(dict.fromkeys(hits))
            if hits:
                out.append(Answer(key, label, AGENT, STILL, (Found("fact", tuple(hits)),),
                                  f"returns {len(hits)} fact(s) that are a version of it or hold its text"))
            elif mode != "keyword" and not model_ok:
                out.append(Answer(key, label, AGENT, CANNOT_TELL, why=f"the vector voice could not be asked: "
                                                                      f"{model_why or 'the model is unavailable'}"))
            elif mode == "keyword" and no_terms == len(queries):
                out.append(Answer(key, label, AGENT, GONE, why="the query keeps no keyword term, so the product's "
                                                               "keyword search returns nothing for it"))
            else:
                out.append(Answer(key, label, AGENT, GONE, why="none of what it returns is a version of it or "
                                                               "holds its text"))
    return out


def _agents(ws: Workspace) -> list[str]:
    agents, notes = ws.layout.agents, ws.layout.notes
    with ws.read() as conn:
        ids = list(conn.execute(select(agents.c.id)).scalars())
        ids += list(conn.execute(select(notes.c.agent_id).distinct()).scalars())
    return list(dict.fromkeys(ids))


def _fact_lines(ws: Workspace, subject: Subject) -> list[tuple[str, str]]:
    """``(id, the start of its preamble line)`` of every active fact that would give it back: a
    version of it, or a fact holding its text."""
    facts = ws.layout.facts
    wanted = list(dict.fromkeys([*subject.versions, *subject.holders]))
    with ws.read() as conn:
        rows = conn.execute(select(facts.c.id, facts.c.domain, facts.c.topic, facts.c.content)
                            .where(facts.c.superseded_by.is_(None), facts.c.id.in_(wanted))).all()
    return [(r[0], f"- [{r[1]}/{r[2]}] {snippet(r[3] or '')} (confidence ") for r in rows]


def _sections(preamble: str) -> dict[str, str]:
    out = {}
    for part in preamble.split("\n\n"):
        for heading, name in SECTIONS.items():
            if part.startswith(heading):
                out[name] = part
    return out


def preamble_path(ws: Workspace, subject: Subject) -> Answer:
    """The preamble every agent gets for a task that names it."""
    label = "the preamble for a task naming it (every agent)"
    tasks = [probes.task_naming(q) for _k, q in subject.queries if len(q) < 10_000]
    if not tasks:
        return Answer("preamble", label, AGENT, CANNOT_TELL,
                      why="its text is not known here, so no task can name it")
    agents = _agents(ws)
    if not agents:
        return Answer("preamble", label, AGENT, GONE, why="the file has no agent to build a preamble for")
    lines = _fact_lines(ws, subject)
    holders: list[str] = []
    sections: set[str] = set()
    facts: set[str] = set()
    for agent in agents:
        for task in tasks:
            parts = _sections(build_preamble(ws, agent, task))
            hit = False
            for name, text in parts.items():
                named = [fid for fid, line in lines if name == "fact lines" and line in text]
                if named or probes.holds(text, subject.needles):
                    sections.add(name)
                    facts.update(named)
                    hit = True
            if hit:
                holders.append(agent)
    holders = list(dict.fromkeys(holders))
    if not holders:
        return Answer("preamble", label, AGENT, GONE,
                      why=f"the preambles of all {len(agents)} agent(s) for {len(tasks)} task(s) naming it "
                          "hold none of it")
    found = (Found("agent", tuple(holders)), Found("section", tuple(sorted(sections))),
             Found("fact", tuple(sorted(facts))))
    return Answer("preamble", label, AGENT, STILL, tuple(f for f in found if f.ids),
                  f"{len(holders)} of {len(agents)} agent(s) are handed it ({', '.join(sorted(sections))})")


def graph_path(ws: Workspace, subject: Subject) -> Answer:
    """The graph voice's walk (two hops, both directions) from the facts it was linked to."""
    label = "the graph voice from its former neighbours"
    seeds = [n for n in subject.neighbours if n not in subject.versions]
    if not seeds:
        return Answer("graph", label, AGENT, GONE, why="nothing links to it now and no earlier check recorded what "
                                                      "did, so no walk of the graph voice reaches it")
    returns = _returns(subject)
    with ws.read() as conn:
        snapshot_version(ws, conn)
        reached = graph_ids(ws, conn, seeds)
        briefs = fact_briefs(ws, conn, reached)
    hits = [fid for fid in reached if fid in briefs and returns(fid, briefs[fid].topic, briefs[fid].content)]
    if hits:
        return Answer("graph", label, AGENT, STILL, (Found("fact", tuple(hits)),),
                      f"walking from its {len(seeds)} neighbour(s) reaches a version of it or its text")
    if not subject.text_known:
        return Answer("graph", label, AGENT, CANNOT_TELL, why=f"the walk from {len(seeds)} neighbour(s) reaches "
                      f"{len(reached)} active fact(s), none a version of it; whether they hold its text cannot be told")
    return Answer("graph", label, AGENT, GONE, why=f"the walk from {len(seeds)} neighbour(s) reaches "
                                                   f"{len(reached)} active fact(s), none a version of it or its text")
