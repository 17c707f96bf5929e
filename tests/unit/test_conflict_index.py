"""Filters on the facts (domain, agent, text) answered from the arrays kept per file version give
the lines the row-by-row SQL filter gives: same keys in the same order, same row counts, with
dangling rows, pairs written both ways, text that is not ASCII, and the other filters beside."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest

from fixtures.conflicts import T0, build
from memorydesk.browse.conflicts import listing as conflicts
from memorydesk.browse.conflicts.index import fact_columns
from memorydesk.browse.conflicts.listing import ConflictQuery, agent_names, first_lines, line_keys
from memorydesk.search.cache import clear_caches
from memorydesk.store import open_workspace


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> tuple[Path, dict]:
    """The known conflicts, plus rows whose facts are gone, a pair written in both orders and a
    fact whose text is not ASCII."""
    path = tmp_path_factory.mktemp("conflict-index") / "ws.db"
    ids = build(path)
    with open_workspace(path) as ws, ws.write() as conn:
        c, f = ws.layout.conflicts, ws.layout.facts
        a, b = ids["pair"]
        conn.execute(c.insert().values(id="reversed", workspace_id=ws.workspace_id, fact_a_id=b, fact_b_id=a,
                                       conflict_type="cross_agent", created_at=T0 + 9_000))
        for k in range(3):  # an open pair whose second fact no longer exists, flagged three times
            conn.execute(c.insert().values(id=f"gone-{k}", workspace_id=ws.workspace_id, fact_a_id=a,
                                           fact_b_id="no-such-fact", conflict_type="cross_agent",
                                           created_at=T0 + 9_100 + k))
        conn.execute(c.insert().values(id="both-gone", workspace_id=ws.workspace_id, fact_a_id="ghost-1",
                                       fact_b_id="ghost-2", conflict_type="contradiction", resolution="superseded",
                                       created_at=T0 + 9_200))
        conn.execute(f.update().where(f.c.id == b).values(topic="Éscalade ÜBER Straße", content="Ünïcode CAFÉ"))
    return path, ids


def _sql_path(ws, q: ConflictQuery) -> tuple[list[int], int]:
    """The row-by-row SQL filter the arrays replace."""
    with ws.read() as conn:
        keys, rows = conflicts._fold(conflicts._matching(ws, conn, q, 256))
    return list(keys), rows


def _queries(ws) -> list[ConflictQuery]:
    with ws.read() as conn:
        agents = sorted(agent_names(ws, conn))
    texts = ["", "escalation AFTER", "pull request", "éscalade", "ÉSCALADE", "straße", "café", "cafÉ", "ü", "e",
             "no such words", "  runbooks  ", "—"]
    base = [ConflictQuery(domain=d, agent=g, text=t)
            for d, g, t in itertools.product([None, "ops", "elsewhere"], [None, *agents[:2], "nobody"], texts)]
    others = [ConflictQuery(type="cross_agent"), ConflictQuery(state="open"), ConflictQuery(state="dangling"),
              ConflictQuery(since=T0 + 1_000, until=T0 + 9_150), ConflictQuery(state="resolved", type="contradiction")]
    return [q for q in base if conflicts.reads_facts(q)] + [
        o.with_(domain=q.domain, agent=q.agent, text=q.text) for o in others for q in base[:: 7]]


def test_filters_on_facts_give_the_lines_the_sql_filter_gives(mixed) -> None:
    with open_workspace(mixed[0], read_only=True) as ws:
        queries = _queries(ws)
        nonempty = 0
        for q in queries:
            want_keys, want_rows = _sql_path(ws, q)
            got = line_keys(ws, q)
            assert (list(got.keys), got.rows) == (want_keys, want_rows), q
            assert [line.key for line in first_lines(ws, q, 3)] == want_keys[:3], q
            nonempty += bool(want_keys)
        assert nonempty > 20  # the comparison is not between empty lists


def test_text_that_is_not_ascii_is_matched_as_the_sql_filter_lowers_it(mixed) -> None:
    _path, ids = mixed
    with open_workspace(mixed[0], read_only=True) as ws:
        # SQLite's lower() folds ASCII only: "É" in a fact stays "É", while the filter's text is lowered
        assert line_keys(ws, ConflictQuery(text="ÉSCALADE")).keys.tolist() == []
        found = line_keys(ws, ConflictQuery(text="Ünïcode"))
        assert found.keys.tolist() == [] and _sql_path(ws, ConflictQuery(text="Ünïcode")) == ([], 0)
        assert len(line_keys(ws, ConflictQuery(text="straße")).keys) >= 1


def test_a_pair_with_a_missing_fact_folds_into_one_line(mixed) -> None:
    with open_workspace(mixed[0], read_only=True) as ws:
        with ws.read() as conn:
            index = fact_columns(ws, conn).index
            lines = line_keys(ws, ConflictQuery(domain="ops"))
        gone = [int(k) for k in index.rowid[(index.b == -1) & (index.pair >= 0)]]
        assert len(gone) == 3 and len({int(p) for p in index.pair[(index.b == -1) & (index.pair >= 0)]}) == 1
        assert max(gone) in lines.keys and not set(gone[1:]) & set(lines.keys)  # the newest row holds the line
        assert int(index.rowid[(index.a == -1) & (index.b == -1)][0]) not in lines.keys  # both facts gone


def test_a_write_reads_the_arrays_again(mixed, tmp_path) -> None:
    copy = tmp_path / "copy.db"
    shutil.copyfile(mixed[0], copy)
    with open_workspace(copy) as ws:
        before = line_keys(ws, ConflictQuery(text="brand new words"))
        assert before.keys.tolist() == []
        with ws.write() as conn:
            f = ws.layout.facts
            fid = conn.execute(f.select().limit(1)).first().id
            conn.execute(f.update().where(f.c.id == fid).values(content="Brand NEW words here"))
        after = line_keys(ws, ConflictQuery(text="brand new words"))
        assert after.keys.tolist() == _sql_path(ws, ConflictQuery(text="brand new words"))[0] != []


def test_a_needle_the_buffer_cannot_hold_goes_to_sql(mixed) -> None:
    with open_workspace(mixed[0], read_only=True) as ws:
        with ws.read() as conn:
            cols = fact_columns(ws, conn)
        assert cols.with_text("a\x00b") is None and cols.with_text("a\x01") is None
        q = ConflictQuery(text="escalation\x00")
        assert list(line_keys(ws, q).keys) == _sql_path(ws, q)[0]
        clear_caches(ws)
