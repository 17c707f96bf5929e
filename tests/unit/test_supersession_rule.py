"""The one rule for when and by whom a fact was set aside (``core.supersession``), case by case."""

from __future__ import annotations

from memorydesk.core.supersession import CLEANUP_AGE, Written, set_aside

DAY = 86_400


def fact(fid: str, created: int, updated: int | None = None, by: str | None = None, agent: str | None = None,
         key: int = 0) -> Written:
    return Written(fid, created, created if updated is None else updated, by, agent, "coder", key)


def test_a_newer_fact_sets_it_aside_at_its_own_write() -> None:
    old, new = fact("a", 100, by="b", agent="ada", key=1), fact("b", 500, agent="bram", key=2)
    got = set_aside(old, new, contradiction_at=500)
    assert (got.at, got.kind, got.writer, got.why, got.after) == (500, "agent", new, "contradiction", False)
    assert set_aside(old, new).why == "superseded by a newer fact"  # no conflict row records it


def test_a_new_fact_that_lost_to_an_older_one_lost_at_its_own_write() -> None:
    old, new = fact("a", 500, 500, by="b", agent="ada", key=2), fact("b", 100, agent="bram", key=1)
    got = set_aside(old, new, contradiction_at=500)
    assert (got.at, got.kind, got.writer) == (500, "agent", old)
    assert got.why == "contradiction: its own write lost to an older fact"
    # the supersession is an update of the row: never after its last update
    assert set_aside(fact("a", 500, 600, by="b", key=2), new, contradiction_at=900).at == 600
    # one second, two facts: the later row wrote (the rowid orders them)
    same = set_aside(fact("a", 500, by="b", key=9), fact("b", 500, key=3), contradiction_at=500)
    assert same.writer is not None and same.writer.id == "a"


def test_sentinels_and_the_cleanups_unknown_time() -> None:
    cleaned = set_aside(fact("a", 1_000, 2_000, by="system:cleanup"), None)
    assert (cleaned.at, cleaned.after, cleaned.kind, cleaned.by) == (1_000 + CLEANUP_AGE, True, "sentinel",
                                                                     "system:cleanup")
    late = set_aside(fact("a", 1_000, 1_000 + 40 * DAY, by="system:cleanup"), None)
    assert late.at == 1_000 + 40 * DAY  # not before updated_at either
    harvest = set_aside(fact("a", 1_000, 5_000, by="system:harvest"), None)
    assert (harvest.at, harvest.after, harvest.kind) == (5_000, False, "sentinel")


def test_what_no_write_explains_is_timed_by_the_row_and_names_nobody() -> None:
    dangling = set_aside(fact("a", 100, 300, by="gone"), None)
    assert (dangling.at, dangling.kind) == (300, "unknown") and "names no fact" in dangling.why
    cycle = set_aside(fact("b", 500, 700, by="a"), fact("a", 100, by="b"))
    assert (cycle.at, cycle.kind) == (700, "unknown") and "cycle" in cycle.why
    older = set_aside(fact("b", 500, 700, by="a"), fact("a", 100))
    assert older.kind == "unknown" and "no conflict row records it" in older.why
