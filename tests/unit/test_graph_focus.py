"""The graph tab's focus is the graph voice's walk: checked against a walk computed here
from the raw edge rows (plain sqlite3, no desk code), on hand-built graphs and on the
product-format sample."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memorydesk.browse.graph.focus import focus
from memorydesk.core.errors import BadInput
from memorydesk.search.hybrid import graph_ids
from memorydesk.store import open_workspace

T0 = 1_790_000_000


def reference_walk(path: Path, seed: str, depth: int = 2) -> tuple[list[tuple[str, int]], list[tuple]]:
    """(nodes as (id, hop) in walk order, edges as (source, target, type, weight, hop) in read order)."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    table = "episodic_edges_table" if con.execute(
        "SELECT 1 FROM sqlite_master WHERE name = 'episodic_edges_table'").fetchone() else "episodic_edges"
    rows = con.execute(f"SELECT rowid, source_fact_id, target_fact_id, edge_type, weight FROM {table}").fetchall()
    con.close()
    nodes, edges = [(seed, 0)], []
    seen, frontier = {seed}, [seed]
    for hop in range(1, depth + 1):
        touching = [r for r in rows if r[1] in frontier or r[2] in frontier]
        touching.sort(key=lambda r: (-float(r[4]), r[0]))
        nxt = []
        for rowid, s, t, kind, w in touching:
            for near, far in ((s, t), (t, s)):
                if near in frontier and far not in seen:
                    seen.add(far)
                    nxt.append(far)
                    nodes.append((far, hop))
            edges.append((s, t, kind, float(w), hop))
        frontier = nxt
    return nodes, edges


@pytest.fixture
def small(ws):
    """seed — a (0.9) — c (0.8, superseded) — d ; seed — b (0.5) — e ; b — ghost (missing);
    equal weights a—x and a—y in table order; f is unreachable (3 hops)."""
    facts = {"seed": None, "a": None, "b": None, "c": "d2", "d": None, "e": None, "x": None, "y": None,
             "f": None, "d2": None}
    with ws.write() as conn:
        for i, (fid, sup) in enumerate(facts.items()):
            conn.execute(ws.layout.facts.insert().values(
                id=fid, workspace_id=ws.workspace_id, domain="dom", topic=f"t-{fid}", content=fid,
                superseded_by=sup, created_at=T0 + i, updated_at=T0 + i))
        for n, (s, t, w, kind) in enumerate([
            ("a", "seed", 0.9, "related_to"), ("seed", "c", 0.8, "references"), ("seed", "b", 0.5, "related_to"),
            ("c", "d", 0.7, "related_to"), ("b", "e", 0.4, "contextual"), ("ghost", "b", 0.6, "related_to"),
            ("a", "y", 0.3, "related_to"), ("x", "a", 0.3, "related_to"), ("e", "f", 1.0, "related_to"),
            ("a", "c", 0.2, "related_to"),
        ]):
            conn.execute(ws.layout.edges.insert().values(
                id=f"edge-{n}", workspace_id=ws.workspace_id, source_fact_id=s, target_fact_id=t, edge_type=kind,
                weight=w, created_at=T0))
    return ws


def test_focus_walks_both_directions_heaviest_first_with_hops(small) -> None:
    found = focus(small, "seed")
    assert [(n.id, n.hop) for n in found.nodes] == [
        ("seed", 0), ("a", 1), ("c", 1), ("b", 1),  # a—seed is stored the other way round: both directions
        ("d", 2), ("ghost", 2), ("e", 2), ("y", 2), ("x", 2)]  # equal weights (a—y, x—a) in table order
    kinds = {n.id: n.kind for n in found.nodes}
    assert kinds["ghost"] == "missing" and kinds["d"] == "fact"
    active = {n.id: n.active for n in found.nodes}
    assert active["c"] is False and active["d"] is True  # walked through c, which is never recalled
    assert "f" not in kinds  # three hops away
    tree = [(e.source, e.target) for e in found.edges if e.tree]
    assert ("c", "d") in tree and ("a", "c") not in tree  # a—c was read, but c was already reached
    assert [e.hop for e in found.edges] == sorted(e.hop for e in found.edges)
    assert found.edges[1].kind == "references"


def test_focus_is_what_the_graph_voice_recalls(small) -> None:
    found = focus(small, "seed")
    with small.read() as conn:
        voice = graph_ids(small, conn, ["seed"])
    assert voice == [n.id for n in found.nodes if n.hop > 0 and n.active and n.kind == "fact"]


def test_focus_matches_the_reference_walk(small) -> None:
    for seed in ("seed", "a", "ghost", "c", "f"):
        found = focus(small, seed, allow_missing=True)
        nodes, edges = reference_walk(small.path, seed)
        assert [(n.id, n.hop) for n in found.nodes] == nodes
        assert [(e.source, e.target, e.kind, e.weight, e.hop) for e in found.edges] == edges


def test_an_unknown_fact_is_one_clear_sentence(small) -> None:
    with pytest.raises(BadInput, match="no fact"):
        focus(small, "nope")


@pytest.mark.shared
def test_focus_on_the_product_sample_matches_the_reference(sample_db: Path) -> None:
    with sqlite3.connect(sample_db) as con:
        seeds = [r[0] for r in con.execute(
            "SELECT source_fact_id FROM episodic_edges_table GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 25")]
        facts = {r[0]: r[1] for r in con.execute("SELECT id, superseded_by FROM memory_facts_table")}
    ws = open_workspace(sample_db, read_only=True)
    try:
        missing_seen = 0
        for seed in seeds:
            found = focus(ws, seed, allow_missing=True)
            nodes, edges = reference_walk(sample_db, seed)
            assert [(n.id, n.hop) for n in found.nodes] == nodes
            assert [(e.source, e.target, e.kind, e.weight, e.hop) for e in found.edges] == edges
            for n in found.nodes:
                assert n.kind == ("fact" if n.id in facts else "missing")
                assert n.active == (n.id in facts and facts[n.id] is None)
            missing_seen += sum(n.kind == "missing" for n in found.nodes)
            with ws.read() as conn:
                assert graph_ids(ws, conn, [seed]) == [n.id for n in found.nodes if n.hop and n.active]
        assert missing_seen > 0  # the sample's dangling edges show up as missing nodes
    finally:
        ws.close()
