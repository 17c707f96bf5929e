"""A write by another process keeps search's term cache for the terms it did not touch
(``FileState.forget_changed_terms``), forgets those it did, and every answer stays the
product's (``World.keyword``: the plain FTS5 query)."""

from __future__ import annotations

from pathlib import Path

from fixtures.search_world import T0, World
from fixtures.second_writer import SecondWriter
from memorydesk.search.agent import search
from memorydesk.search.copies import follow


def _keyword(world: World, query: str) -> list[tuple[str, float]]:
    return [(h.id, h.bm25) for h in search(world.ws, query, mode="keyword").hits]


def test_a_write_keeps_the_cached_terms_it_did_not_touch(tmp_path: Path) -> None:
    world = World(tmp_path / "terms.db", seed=31)
    try:
        state = follow.wait_ready(world.ws)
        assert state is not None
        untouched, gained, edited = world.words[40], world.words[3], world.words[7]
        with world.ws.read() as conn:
            (victim,) = conn.exec_driver_sql(
                "SELECT id FROM memory_facts_table WHERE content LIKE ? AND content NOT LIKE ? LIMIT 1",
                (f"%{edited}%", f"%{untouched}%")).fetchone()
        for word in (untouched, gained, edited):
            assert _keyword(world, word) == world.keyword(word, 20, None)
        assert {untouched, gained, edited} <= set(state.terms)
        kept_rows = state.terms[untouched][1]
        with SecondWriter(world.path) as writer:  # a new fact holding ``gained``; an edit of one holding ``edited``
            writer.write([{"op": "insert", "id": "fresh-1", "workspace_id": world.ws.workspace_id, "domain": "codebase",
                           "topic": "fresh", "content": f"{gained} {gained} only", "confidence": 0.9,
                           "memory_type": "fact", "created_at": T0 + 10},
                          {"op": "edit", "id": victim, "topic": "rewritten", "content": "nothing of before"}])
        for word in (untouched, gained, edited):
            assert _keyword(world, word) == world.keyword(word, 20, None), word
        assert state.followed == 1 and follow.wait_ready(world.ws) is state  # followed, not rebuilt
        assert state.terms[untouched][1] is kept_rows  # kept across the write, not read again
        assert state.terms[untouched][0] == state.keyword.epoch
        assert "fresh-1" in {fid for fid, _ in world.keyword(gained, 200, None)}
    finally:
        world.close()


def test_a_cached_term_whose_row_was_deleted_is_forgotten(tmp_path: Path) -> None:
    world = World(tmp_path / "deleted.db", seed=32)
    try:
        state = follow.wait_ready(world.ws)
        assert state is not None
        word = world.words[5]
        assert _keyword(world, word) == world.keyword(word, 20, None)
        first = world.keyword(word, 20, None)[0][0]
        before = state.terms[word][1]
        with SecondWriter(world.path) as writer:
            writer.write([{"op": "delete", "id": first}])
        assert _keyword(world, word) == world.keyword(word, 20, None)
        assert first not in {fid for fid, _ in _keyword(world, word)}
        assert state.terms[word][1] is not before and len(state.terms[word][1]) == len(before) - 1
    finally:
        world.close()
