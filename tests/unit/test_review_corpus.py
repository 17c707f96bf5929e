"""The review scan on the planted corpus (every kind found, nothing on the clean facts around
them), on the clean corpus and the product-format fixture; the JSON contract; and a rescan
that reads only what changed and agrees with a full scan."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fixtures.review_corpus import NOW, Planted, build, measure
from memorydesk.browse.review.scan import Options, scan
from memorydesk.core.review.finding import ITEM_KINDS, KINDS, SEVERITIES
from memorydesk.memory.service import MemoryService
from memorydesk.store import open_workspace

pytestmark = pytest.mark.slow
TEXT_KINDS = ("secret", "personal_data", "injection")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Planted:
    return build(tmp_path_factory.mktemp("review") / "corpus.db")


@pytest.fixture(scope="module")
def report(corpus: Planted):
    with open_workspace(corpus.path, read_only=True) as ws:
        return scan(ws, Options(now=NOW))


def _ids(report, kind: str) -> set[str]:
    return {f.item_id for f in report.findings if f.kind == kind}


def test_every_planted_text_finding_is_found_and_none_on_clean_facts(corpus: Planted, report) -> None:
    assert set(corpus.secret) | {corpus.policy_secret} <= _ids(report, "secret")
    assert set(corpus.personal) | {corpus.note_id} <= _ids(report, "personal_data")
    assert set(corpus.injection) | {corpus.policy_injection, corpus.item_id} <= _ids(report, "injection")
    for kind in TEXT_KINDS:
        assert not _ids(report, kind) & corpus.clean, kind


def test_each_secret_plugin_and_injection_rule_is_named(corpus: Planted, report) -> None:
    # each planted secret is found and named by the detector that read it (detect-secrets' plugin, the
    # provider rule set or the prose rules; a provider's own rule comes before a generic plugin)
    named = {f.item_id: f.evidence["rule"] for f in report.findings if f.kind == "secret"}
    assert set(corpus.secret) <= set(named)
    assert all(named[fid] for fid in corpus.secret)
    assert {"Provider rules", "Prose rules"} <= set(named.values())
    rules = {(f.item_id, f.evidence["rule"]) for f in report.findings if f.kind == "injection"}
    assert set(corpus.injection.items()) <= rules


def test_severities_follow_reach(corpus: Planted, report) -> None:
    by = {(f.kind, f.item_id): f.severity for f in report.findings}
    assert by[("secret", corpus.policy_secret)] == "critical"
    assert by[("injection", corpus.policy_injection)] == "critical"
    assert {by[("secret", fid)] for fid in corpus.secret} == {"high"}
    assert {by[("personal_data", fid)] for fid in corpus.personal} == {"medium"}
    assert by[("injection", corpus.item_id)] == "high"
    assert report.findings[0].severity == "critical" and report.findings[0].item_kind == "policy"


def test_duplicates_losing_corrections_unreachable_fading(corpus: Planted, report) -> None:
    clusters = [set(f.evidence["cluster"]) for f in report.findings if f.kind == "duplicate"]
    assert sorted(map(sorted, clusters)) == sorted(map(sorted, corpus.duplicate))
    for f in (f for f in report.findings if f.kind == "duplicate"):
        assert f.evidence["mmr"]["checked"] and f.item_id in f.evidence["cluster"]
        kinds = {k for d in f.evidence["diffs"] for side in ("a", "b") for k, _t in d["diff"][side]}
        assert "same" in kinds and kinds <= {"same", "removed", "added"}
    losing = {f.item_id: f.evidence["older"]["id"] for f in report.findings if f.kind == "losing_correction"}
    assert losing == corpus.losing
    says = next(f for f in report.findings if f.kind == "losing_correction").evidence["says"]
    assert "not a verdict" in says and "cosine" in says
    assert _ids(report, "unreachable") == corpus.unreachable
    assert next(f for f in report.findings if f.kind == "unreachable").severity == "medium"  # no embedding either
    assert _ids(report, "fading") == corpus.fading
    assert any("no usable embedding" in n for n in report.notes)


def test_precision_and_recall_per_kind(corpus: Planted, report) -> None:
    figures = measure(report.findings, corpus)
    assert set(figures) == set(KINDS)
    for kind, row in figures.items():
        assert row["planted"] and row["precision"] == row["recall"] == 1.0, (kind, row)


def test_json_contract(report) -> None:
    rows = [f.to_json() for f in report.findings]
    assert rows and all(set(r) == {"kind", "severity", "item_kind", "item_id", "field", "evidence", "state"}
                        for r in rows)
    assert {r["kind"] for r in rows} == set(KINDS)
    assert {r["item_kind"] for r in rows} <= set(ITEM_KINDS) and {r["severity"] for r in rows} <= set(SEVERITIES)
    dup = next(r for r in rows if r["kind"] == "duplicate")
    assert dup["item_id"] == dup["evidence"]["members"][0]["id"]  # the newest member


def test_clean_corpus_has_no_text_findings(tmp_path: Path) -> None:
    clean = build(tmp_path / "clean.db", clean_only=True)
    with open_workspace(clean.path, read_only=True) as ws:
        found = scan(ws, Options(now=NOW))
    assert [f for f in found.findings if f.kind in TEXT_KINDS] == []


def test_product_fixture_has_no_text_findings(product_db: Path) -> None:
    with open_workspace(product_db, read_only=True) as ws:
        found = scan(ws)
    assert [f for f in found.findings if f.kind in TEXT_KINDS] == []
    assert {f.kind for f in found.findings} == {"unreachable"}  # the Hebrew fact, which has no embedding


def test_rescan_reads_only_what_changed_and_agrees_with_a_full_scan(corpus: Planted, tmp_path: Path) -> None:
    path = tmp_path / "copy.db"
    shutil.copyfile(corpus.path, path)
    for side in ("-wal", "-shm"):
        if Path(f"{corpus.path}{side}").exists():
            shutil.copyfile(f"{corpus.path}{side}", f"{path}{side}")
    with open_workspace(path) as ws:
        first = scan(ws, Options(now=NOW))
        svc = MemoryService(ws)
        svc.propose_fact(domain="ops", topic="new-key", content="Use key AKIAZ3MSJV4WQ5RXB7NF for uploads.",
                         agent_id="agent-1", now=NOW)
        svc.supersede_fact(next(iter(corpus.secret)), "system:cleanup")
        again = scan(ws, Options(now=NOW), first.cache)
        full = scan(ws, Options(now=NOW))
    assert again.scanned["fact"] == 1 and first.scanned["fact"] > 100
    assert sorted(f.key for f in again.findings) == sorted(f.key for f in full.findings)
    assert len(_ids(again, "secret")) == len(_ids(first, "secret"))  # one secret gone, one new
