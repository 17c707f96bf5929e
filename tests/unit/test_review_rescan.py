"""A rescan gives exactly a full scan's findings: on the planted corpus changed in every way
an agent or a person changes facts (new facts, supersessions, edits in place, a lost
embedding, a quarantine), rescan after rescan, and after the kept results are read back;
and the vectors a rescan patches in place pair as the vectors read afresh."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from fixtures.review_corpus import DAY, NOW, Planted, build
from memorydesk.browse.review import cache as kept_results
from memorydesk.browse.review import vectors
from memorydesk.browse.review.items import QUARANTINED
from memorydesk.browse.review.scan import Options, scan
from memorydesk.memory import review_results
from memorydesk.memory.service import MemoryService
from memorydesk.store import open_workspace

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Planted:
    return build(tmp_path_factory.mktemp("rescan") / "corpus.db")


def _copy(corpus: Planted, path: Path) -> Path:
    shutil.copyfile(corpus.path, path)
    for side in ("-wal", "-shm"):
        if Path(f"{corpus.path}{side}").exists():
            shutil.copyfile(f"{corpus.path}{side}", f"{path}{side}")
    return path


#: the places a recall check kept from an earlier scan gives as of that check (a set whose members did
#: not change keeps its check; other facts' changes can move those places by one or two, and with them
#: the stage a fact is lost at: the guide says a kept check can go stale this way)
PLACES = {"rank", "score_rank", "lost_at", "says"}


def _without_places(value):
    if isinstance(value, dict):
        return {k: _without_places(v) for k, v in value.items() if k not in PLACES}
    if isinstance(value, list):
        return [_without_places(v) for v in value]
    return value


def _all(report) -> list[tuple[str, str, str, str]]:
    """Every finding whole: its key, severity, state and evidence (a set's without the places)."""
    return sorted((f.key, f.severity, f.state, json.dumps(
        f.evidence if f.kind not in ("duplicate", "losing_correction") else _without_places(f.evidence),
        sort_keys=True)) for f in report.findings)


def _edit(ws, fact_id: str, **values) -> None:
    facts = ws.layout.facts
    with ws.write() as conn:
        conn.execute(facts.update().where(facts.c.id == fact_id).values(**values))


def _first_change(ws, corpus: Planted) -> None:
    svc = MemoryService(ws)
    squash = sorted(corpus.duplicate[0])
    svc.propose_fact(domain="git", topic="squash-merging",  # joins the first cluster
                     content="Pull requests are squash-merged, so main keeps one commit per change.",
                     agent_id="agent-1", now=NOW - DAY)
    svc.propose_fact(domain="ops", topic="upload-key", content="Use key AKIAZ3MSJV4WQ5RXB7NF for uploads.",
                     agent_id="agent-1", now=NOW)
    svc.supersede_fact(sorted(corpus.duplicate[1])[0], "system:cleanup")  # the second cluster falls apart
    svc.supersede_fact(sorted(corpus.secret)[0], "system:cleanup")
    _edit(ws, sorted(corpus.secret)[1], content="The key was rotated and is kept in the vault now.",
          updated_at=NOW + 5)  # an agent's edit in place
    _edit(ws, squash[0], embedding=None, updated_at=NOW + 6)  # its vector lost: it leaves the cluster


def _second_change(ws, corpus: Planted) -> None:
    svc = MemoryService(ws)
    newer = sorted(corpus.losing)[0]
    _edit(ws, newer, superseded_by=QUARANTINED)  # quarantined: no longer active, still scanned
    _edit(ws, sorted(corpus.clean)[0], memory_type="commitment", updated_at=NOW + 7)
    svc.propose_fact(domain="people", topic="contact", content="Write to grace.hopper@example.org for access.",
                     agent_id="agent-1", now=NOW)


def test_rescans_agree_with_full_scans_whole(corpus: Planted, tmp_path: Path) -> None:
    with open_workspace(_copy(corpus, tmp_path / "copy.db")) as ws:
        first = scan(ws, Options(now=NOW))
        assert {f.kind for f in first.findings} >= {"duplicate", "losing_correction", "secret"}
        _first_change(ws, corpus)
        again = scan(ws, Options(now=NOW), first.cache)
        full = scan(ws, Options(now=NOW))
        assert _all(again) == _all(full)
        assert again.notes == full.notes
        assert 0 < again.scanned["fact"] <= 6
        clusters = {frozenset(f.evidence["cluster"]) for f in full.findings if f.kind == "duplicate"}
        assert frozenset(corpus.duplicate[1]) not in clusters  # the change did change the findings
        assert _all(again) != _all(first)

        _second_change(ws, corpus)
        third = scan(ws, Options(now=NOW), again.cache)
        assert _all(third) == _all(scan(ws, Options(now=NOW)))
        assert sorted(corpus.losing)[0] not in {f.item_id for f in third.findings if f.kind == "losing_correction"}


def test_a_rescan_from_the_kept_results_agrees_with_a_full_scan(corpus: Planted, tmp_path: Path) -> None:
    with open_workspace(_copy(corpus, tmp_path / "kept.db")) as ws:
        first = scan(ws, Options(now=NOW))
        review_results.save(ws, first)
        _first_change(ws, corpus)
        loaded, unchanged = kept_results.load(ws)
        assert not unchanged and loaded.cache.vectors is None
        again = scan(ws, Options(now=NOW), loaded.cache)
        assert _all(again) == _all(scan(ws, Options(now=NOW)))


def test_patched_vectors_pair_as_vectors_read_afresh() -> None:
    rng = np.random.default_rng(5)
    m = rng.normal(size=(300, 384)).astype(np.float32)
    m[1::3] = m[0::3] + rng.normal(scale=0.1, size=(100, 384)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    ids = [f"f{i:03d}" for i in range(300)]
    held = vectors.Vectors(list(ids[:250]), m[:250].copy(), 0)
    # f010..f039 change (dropped, then read again with new vectors), f200..f219 leave, f250..f299 arrive
    changed = ids[10:40] + ids[250:]
    fresh = m.copy()
    fresh[10:40] = fresh[10:40][::-1]
    for _ in range(2):  # the same patch twice is the patch once
        held.patch(set(changed) | set(ids[200:220]), changed, fresh[[ids.index(f) for f in changed]])
    assert held.live == 250 - 20 + 50 and sorted(held.position()) == sorted(ids[:200] + ids[220:])
    want = {i: fresh[ids.index(i)] for i in held.position()}
    order = sorted(want)
    afresh = vectors.Vectors(order, np.stack([want[i] for i in order]), 0)
    where = held.position()
    rows = np.asarray([where[f] for f in changed], dtype=np.int64)
    got = vectors.pair_arrays_of(held.rows(), rows, 0.85, held.live_mask())
    named = {tuple(sorted((held.ids[a], held.ids[b]))) for a, b in zip(got.i.tolist(), got.j.tolist(), strict=True)}
    there = afresh.position()
    exact = vectors.pair_arrays_of(afresh.rows(), np.asarray([there[f] for f in changed]), 0.85)
    expect = {tuple(sorted((order[a], order[b]))) for a, b in zip(exact.i.tolist(), exact.j.tolist(), strict=True)}
    assert named == expect and len(expect) > 20
    assert all(fid is not None for fid in (held.ids[a] for a in got.i.tolist()))


def test_fingerprints_of_facts_whose_text_holds_the_separators(corpus: Planted, tmp_path: Path) -> None:
    from memorydesk.browse.review.items import fact_fingerprints, fact_items

    with open_workspace(_copy(corpus, tmp_path / "odd.db")) as ws:
        fid = sorted(corpus.clean)[1]
        _edit(ws, fid, domain="ops\x1fodd\x1edomain", updated_at=NOW + 9)
        with ws.read() as conn:
            prints = fact_fingerprints(ws, conn)
            items = {it.id: it.fingerprint for it in fact_items(ws, conn)}
    assert prints == items and "ops\x1fodd\x1edomain" in prints[fid]
