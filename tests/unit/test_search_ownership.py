"""Search's copies and per-version values belong to the open workspace, not to the process: two
workspaces open at once keep their own (searching one never drops the other's), and closing
one lets its copies go."""

from __future__ import annotations

import gc
import random
import weakref

import pytest

from fixtures.search_world import World
from memorydesk.search.agent import search
from memorydesk.search.cache import cached
from memorydesk.search.copies import follow


@pytest.mark.slow  # two generated workspaces and their copies
def test_two_open_workspaces_keep_their_own_copies_and_closing_one_frees_them(tmp_path) -> None:
    a, b = World(tmp_path / "a.db", seed=3), World(tmp_path / "b.db", seed=4)
    try:
        state_a = follow.wait_ready(a.ws)
        state_b = follow.wait_ready(b.ws)
        assert state_a is not None and state_b is not None and state_a is not state_b
        rng = random.Random(1)
        for _ in range(3):  # searching each in turn: neither's copies are dropped for the other's
            for world in (a, b):
                search(world.ws, world.query(rng), mode="keyword")
        assert follow.wait_ready(a.ws) is state_a and follow.wait_ready(b.ws) is state_b
        assert follow.cache_report(a.ws)["total"] > 0 and follow.cache_report(b.ws)["total"] > 0
        both = follow.cache_report()["total"]
        assert both == follow.cache_report(a.ws)["total"] + follow.cache_report(b.ws)["total"]

        gone = weakref.ref(state_a)
        b_total = follow.cache_report(b.ws)["total"]
        a.ws.close()
        del state_a
        gc.collect()
        assert gone() is None  # nothing holds a's copies any more: their memory is free
        assert follow.cache_report()["total"] == b_total
        assert follow.wait_ready(b.ws) is state_b  # b's are untouched
    finally:
        a.ws.close()
        b.ws.close()


def test_values_kept_per_file_version_are_each_workspaces_own(tmp_path) -> None:
    a, b = World(tmp_path / "a.db", seed=3), World(tmp_path / "b.db", seed=4)
    built: list[str] = []
    try:
        for _ in range(2):
            for world, name in ((a, "a"), (b, "b")):
                with world.ws.read() as conn:
                    got = cached(world.ws, conn, ("probe",), lambda name=name: built.append(name) or name)
                assert got == name
        assert built == ["a", "b"]  # each built once, and kept while the other was asked
    finally:
        a.ws.close()
        b.ws.close()
