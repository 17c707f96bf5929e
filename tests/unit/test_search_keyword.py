"""Keyword search as the product runs it, checked on the sample workspace's raw rows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sqlean

from helpers import sha256
from memorydesk.core.errors import BadInput, ReadOnlyWorkspace
from memorydesk.search.agent import is_keyword_reachable, keyword_search, search, unreachable_fact_ids
from memorydesk.search.scope import repo_scope
from memorydesk.store import open_workspace

pytestmark = pytest.mark.shared

_STOP = set(
    "a an the is are was were be been i me my mine we us our you your he she it they them their and or but if in "
    "on at to of for with by as from this that these those what who whom whose where when why how do does did "
    "have has had s t m re ve ll d".split()
)


def _terms(query: str) -> list[str]:
    """The product's term rule, written out again for the test."""
    out: list[str] = []
    for tok in re.sub(r"[^a-z0-9\s]", " ", query.lower()).split():
        if len(tok) >= 2 and tok not in _STOP and tok not in out:
            out.append(tok)
    return out


def _raw(path: Path):
    return sqlean.connect(f"file:{path}?immutable=1", uri=True)


def _raw_search(path: Path, query: str, ws_id: str, limit: int = 20) -> list[str]:
    """Plain SQL against the file: the product's MATCH, active facts, ``ORDER BY rank``."""
    terms = _terms(query)
    if not terms:
        return []
    match = "({topic content} : (" + " OR ".join(t + "*" for t in terms) + f')) AND (workspace_id : "{ws_id}")'
    with _raw(path) as conn:
        rows = conn.execute(
            "SELECT f.id FROM memory_facts_fts JOIN memory_facts_table f ON f.rowid = memory_facts_fts.rowid "
            "WHERE memory_facts_fts MATCH ? AND f.workspace_id = ? AND f.superseded_by IS NULL "
            "ORDER BY rank LIMIT ?",
            (match, ws_id, limit),
        ).fetchall()
    return [r[0] for r in rows]


@pytest.fixture
def ws(sample_db: Path):
    with open_workspace(sample_db, read_only=True) as w:
        yield w


def test_english_and_german_queries_return_the_expected_first_fact(ws, expected: dict) -> None:
    for q in expected["search"]["queries"]:
        if not _terms(q["query"]):
            continue  # the Hebrew query: see the next test
        result = keyword_search(ws, q["query"])
        assert result.ids[0] == q["expected_first_id"], q["query"]
        assert result.ids[0] != q["first_without_active_filter"] or q["first_without_active_filter"] == q[
            "expected_first_id"]


def test_results_match_plain_sql_over_the_raw_rows(ws, sample_db: Path, expected: dict) -> None:
    queries = [q["query"] for q in expected["search"]["queries"]] + [
        "how do we deploy", "backup retention policy", "terraform plan review", "the", "PR 42",
        "invoice rounding half-even", "Löschfrist", "redis cache",
    ]
    for query in queries:
        result = keyword_search(ws, query)
        assert result.ids == _raw_search(sample_db, query, expected["workspace_id"]), query
        assert len(result.ids) <= 20
        assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)
        assert all(h.voices["fact"].rank == i for i, h in enumerate(result.hits, 1))


def test_match_is_scoped_to_the_workspace(ws, expected: dict) -> None:
    result = keyword_search(ws, "sentry quota throttle")
    assert result.match == (
        '({topic content} : (sentry* OR quota* OR throttle*)) AND (workspace_id : "'
        + expected["workspace_id"] + '")'
    )


def test_superseded_facts_never_come_back(ws, sample_db: Path) -> None:
    with _raw(sample_db) as conn:
        superseded = {r[0] for r in conn.execute(
            "SELECT id FROM memory_facts_table WHERE superseded_by IS NOT NULL")}
    for query in ("sentry quota throttle", "Löschanfragen Datenschutz", "review turnaround", "backup schedule"):
        assert not superseded & set(keyword_search(ws, query).ids)


def test_hebrew_and_stopword_queries_find_nothing_like_the_product(ws) -> None:
    for query in ("פריסה", "the is a", "ü", "日本語"):
        result = keyword_search(ws, query)
        assert result.hits == [] and result.match is None
        assert result.notes


@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid"])
def test_hostile_queries_never_raise(ws, mode: str) -> None:
    piece = '"NEAR( * AND OR NOT ) ^ {topic} : col:x -- \'; DROP TABLE x; löschen פריסה 🚀 \x00 '
    queries = ['"', "NEAR(", "*", "AND OR NOT", '"unbalanced', "topic:", "^start", "a" * 10_000, "",
               "   ", piece, (piece * (1_048_576 // len(piece) + 1))[:1_048_576]]
    for query in queries:
        result = search(ws, query, mode=mode, limit=5)
        assert isinstance(result.hits, list)


def test_read_only_search_leaves_the_file_unchanged(sample_db: Path) -> None:
    before = sha256(sample_db)
    with open_workspace(sample_db, read_only=True) as ws:
        for mode in ("keyword", "semantic", "hybrid"):
            search(ws, "deploy sentry quota", mode=mode)
        with pytest.raises(ReadOnlyWorkspace):
            search(ws, "deploy", mode="keyword", record_recall=True)
    assert sha256(sample_db) == before


def test_an_agents_recall_is_recorded_and_a_preview_is_not(sample_db: Path) -> None:
    with open_workspace(sample_db) as ws:
        def counts() -> dict[str, tuple[int, int | None]]:
            with ws.read() as conn:
                return {r[0]: (r[1], r[2]) for r in conn.exec_driver_sql(
                    "SELECT id, recall_count, last_recalled_at FROM memory_facts_table")}

        before = counts()
        preview = search(ws, "sentry quota", mode="keyword")
        assert counts() == before and not preview.recorded
        result = search(ws, "sentry quota", mode="keyword", record_recall=True, now=1_795_200_000)
        after = counts()
        assert result.recorded
        for fid, (n, at) in after.items():
            if fid in result.ids:
                assert (n, at) == (before[fid][0] + 1, 1_795_200_000)
            else:
                assert (n, at) == before[fid]


def test_repo_scope_keeps_workspace_wide_and_the_repos_domains(ws) -> None:
    everything = keyword_search(ws, "import alias layers repositories conventions", limit=20)
    scoped = keyword_search(ws, "import alias layers repositories conventions", limit=20, repo="acme-lumen-web")
    domains = {h.domain for h in scoped.hits}
    assert not any(d.startswith("repo:acme-lumen-api/") for d in domains)
    assert any(d.startswith("repo:acme-lumen-web/") for d in domains)
    assert any(d.startswith("repo:acme-lumen-api/") for d in {h.domain for h in everything.hits})
    assert repo_scope("Acme/Lumen-Web").slug == "acme-lumen-web"
    scope = repo_scope("acme-lumen-web")
    assert scope.admits("repo:scratch") and scope.admits("codebase") and scope.admits("repo:acme-lumen-web/x")
    assert not scope.admits("repo:acme-lumen-api/x")
    with pytest.raises(BadInput):
        repo_scope("///")


def test_reachability(ws, sample_db: Path, expected: dict) -> None:
    assert not is_keyword_reachable("שפה", "כל ההודעות נכתבות בעברית")
    assert not is_keyword_reachable("", "is it the")
    assert not is_keyword_reachable("🚀", "日本語 ü")
    assert is_keyword_reachable("שפה", "PR 42 merged")
    assert is_keyword_reachable("Datumsformat", "")
    unreachable = set(unreachable_fact_ids(ws))
    # the fact the Hebrew example query finds by plain FTS is Hebrew only: the agent can never reach it
    hebrew_only = next(q["expected_first_id"] for q in expected["search"]["queries"] if q["query"] == "פריסה")
    assert hebrew_only in unreachable
    mixed = next(f["id"] for f in expected["specific_facts"] if f["key"] == "hebrew_rtl")
    assert mixed not in unreachable  # Hebrew mixed with Latin words
    with _raw(sample_db) as conn:
        rows = conn.execute("SELECT id, topic, content FROM memory_facts_table WHERE superseded_by IS NULL "
                            "AND workspace_id = ?", (expected["workspace_id"],)).fetchall()
    assert unreachable == {fid for fid, topic, content in rows if not _terms(f"{topic} {content}")}
    # and truly unreachable: no query made of the fact's own words finds it
    for fid, topic, content in rows:
        if fid in unreachable:
            assert fid not in keyword_search(ws, f"{topic} {content}").ids


def test_newer_layout_is_searched_too(newer_product_db: Path) -> None:
    with open_workspace(newer_product_db, read_only=True) as ws:
        assert keyword_search(ws, "ESLint strict").ids == ["f-11"]
        assert keyword_search(ws, "web app builds").ids == ["f-01"]  # f-02 is superseded
