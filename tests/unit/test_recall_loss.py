"""Where the agent's recall loses a fact: each of the five stages forced on a small
hand-built workspace, with the deciding numbers computed here from the rules
(docs/product-format.md, "The product's rules"), not read back from the code under test."""

from __future__ import annotations

import hashlib
import math
import uuid
from pathlib import Path

import pytest

from memorydesk.core.product.fusion import VARIANTS
from memorydesk.search import audit
from memorydesk.search.agent import search
from memorydesk.search.loss import diagnose
from memorydesk.store import open_workspace

NOW = 1_790_000_000
H = 3600


def fid(n: int) -> str:
    return str(uuid.UUID(int=n, version=4))


def _fact(n: int, topic: str, content: str, age_h: float, **extra) -> dict:
    return {"id": fid(n), "domain": "ops", "topic": topic, "content": content, "confidence": 1.0,
            "memory_type": "fact", "veracity": "stated", "created_at": int(NOW - age_h * H),
            "updated_at": int(NOW - age_h * H), **extra}


def _rows() -> list[dict]:
    rows = []
    # 40 fresh filler facts (the temporal voice takes the 30 newest): words no query below uses
    for n in range(1, 41):
        rows.append(_fact(n, f"filler{n}", f"zeta{n} omega{n} kappa{n}", age_h=n))  # no word shared
    # found: a keyword match that is fresh
    rows.append(_fact(101, "quarterly budget", "The quarterly budget review happens on the first monday", 50))
    # not a candidate: no keyword term in common with its own topic query, old, no edges
    rows.append(_fact(102, "ünïcödé", "ëëë ïïï", 5000))
    # decay: a keyword match that is very old (a "fact" of 2 years weighs almost nothing)
    rows.append(_fact(103, "legacy billing", "Legacy billing exports run from the old cron host", 17_500))
    # mmr: two near-identical facts; the newer wins the first place, the other shares its words
    rows.append(_fact(104, "deploy window", "deploy window is tuesday afternoon after standup", 60))
    rows.append(_fact(105, "deploy window", "deploy window is tuesday afternoon after standup today", 61))
    return rows


@pytest.fixture
def world(tmp_path: Path):
    path = tmp_path / "loss.db"
    with open_workspace(path, create=True) as ws:
        with ws.write() as conn:
            rows = sorted(_rows(), key=lambda r: r["created_at"])
            conn.execute(ws.layout.facts.insert(), [{"workspace_id": ws.workspace_id, **r} for r in rows])
    return path


def _weibull_fact(age_h: float) -> float:
    return math.exp(-((age_h / 720.0) ** 0.8))  # "fact": k 0.8, eta 720 h


def test_found_with_its_rank_and_numbers(world: Path) -> None:
    with open_workspace(world, read_only=True) as ws:
        result = search(ws, "quarterly budget", now=NOW)
        loss = diagnose(result, [fid(101)])[fid(101)]
    assert loss.stage == "found" and loss.rank == result.ids.index(fid(101)) + 1
    # general intent: fact voice weight 0.25; it is the only keyword hit (rank 1) and not among the 30 newest
    assert loss.voices == {"fact": 1}
    assert loss.rrf == pytest.approx(0.25 / 61, rel=1e-12)
    assert loss.decay == pytest.approx(_weibull_fact(50), rel=1e-9)
    assert loss.score == pytest.approx(0.25 / 61 * (0.02 + 0.98 * _weibull_fact(50)) * 1.0, rel=1e-9)


def test_not_a_candidate(world: Path) -> None:
    with open_workspace(world, read_only=True) as ws:
        result = search(ws, "ünïcödé", now=NOW)
        loss = diagnose(result, [fid(102)])[fid(102)]
    assert result.match is None  # no keyword term at all: the product's builder keeps nothing
    assert fid(102) not in {c.id for c in result.candidates}
    assert loss.stage == "not_candidate" and loss.rank is None and loss.rrf is None


def test_lost_to_decay(world: Path) -> None:
    with open_workspace(world, read_only=True) as ws:
        result = search(ws, "legacy billing", now=NOW)
        loss = diagnose(result, [fid(103)])[fid(103)]
    assert loss.stage == "decay"
    decayed = 0.02 + 0.98 * _weibull_fact(17_500)
    assert loss.decay_factor == pytest.approx(decayed, rel=1e-9) and decayed < 0.03
    # undecayed it would lead: its fact-voice term beats every temporal-only candidate's
    assert loss.undecayed == pytest.approx(0.25 / 61, rel=1e-12) and loss.undecayed_rank == 1
    assert loss.score_rank > 10


def test_removed_by_mmr(world: Path) -> None:
    with open_workspace(world, read_only=True) as ws:
        result = search(ws, "deploy window tuesday", now=NOW)
        losses = diagnose(result, [fid(104), fid(105)])
    kept, dropped = sorted(losses.values(), key=lambda loss: loss.stage != "found")
    assert kept.stage == "found" and dropped.stage == "mmr"
    assert dropped.score_rank <= 10
    words_kept = set(f"deploy window {_rows()[-2 if kept.target == fid(104) else -1]['content']}".lower().split())
    words_dropped = set(f"deploy window {_rows()[-2 if dropped.target == fid(104) else -1]['content']}".lower().split())
    similarity = len(words_kept & words_dropped) / len(words_kept | words_dropped)
    assert dropped.mmr_against == kept.target
    assert dropped.mmr_similarity == pytest.approx(similarity)
    assert dropped.mmr_penalty == pytest.approx(0.3 * similarity)


def test_ranked_too_low_by_the_voices(world: Path) -> None:
    with open_workspace(world, read_only=True) as ws:
        result = search(ws, "quarterly budget", now=NOW)
        loss = diagnose(result, [fid(25)])[fid(25)]  # only the temporal voice lists it, 25th newest
    assert loss.stage == "fusion" and loss.voices == {"temporal": 25}
    assert loss.rrf == pytest.approx(0.15 / (60 + 25), rel=1e-12)
    assert loss.undecayed_rank > 10


def test_the_audit_ranks_equal_the_agent_view_and_change_nothing(world: Path) -> None:
    before = hashlib.sha256(world.read_bytes()).hexdigest()
    with open_workspace(world, read_only=True) as ws:
        report = audit.audit_workspace(ws, now=NOW, what_if=list(VARIANTS))
        for entry in report["facts"]:
            hits = search(ws, entry["query"], now=NOW).ids
            expected = hits.index(entry["id"]) + 1 if entry["id"] in hits else None
            assert entry["rank"] == expected
        f = ws.layout.facts
        with ws.read() as conn:
            recalls = conn.execute(f.select().with_only_columns(f.c.recall_count)).scalars().all()
    assert set(recalls) == {0}
    assert hashlib.sha256(world.read_bytes()).hexdigest() == before
    summary = report["summary"]
    assert summary["facts"] == 45 and sum(summary["stages"].values()) == 45
    assert summary["unreachable"]["ids"] == [fid(102)]  # no embedding and no keyword term
    assert set(summary["what_if"]) == set(VARIANTS)


def test_what_ifs_never_leak_into_the_agents_ranking(world: Path) -> None:
    with open_workspace(world, read_only=True) as ws:
        before = search(ws, "deploy window tuesday", now=NOW)
        for variant in VARIANTS.values():
            search(ws, "deploy window tuesday", now=NOW, variant=variant)
        after = search(ws, "deploy window tuesday", now=NOW)
    assert [(h.id, h.score.hex(), h.mmr_penalty) for h in before.hits] == \
        [(h.id, h.score.hex(), h.mmr_penalty) for h in after.hits]
    assert [(c.id, c.score.hex()) for c in before.candidates] == [(c.id, c.score.hex()) for c in after.candidates]


def test_no_decay_brings_the_old_fact_back(world: Path) -> None:
    with open_workspace(world, read_only=True) as ws:
        result = search(ws, "legacy billing", now=NOW, variant=VARIANTS["no-decay"])
    assert result.ids[0] == fid(103)


def test_queries_file_gives_one_result_per_target(world: Path) -> None:
    queries = audit.read_queries([{"query": "quarterly budget", "expect": [fid(101), fid(25)]},
                                  {"query": "legacy billing", "expect": [fid(103)]}])
    with open_workspace(world, read_only=True) as ws:
        report = audit.audit_queries(ws, queries, now=NOW)
    assert [(r["query"], r["target"], r["lost_at"]) for r in report["results"]] == [
        ("quarterly budget", fid(101), "found"), ("quarterly budget", fid(25), "fusion"),
        ("legacy billing", fid(103), "decay")]
    assert report["summary"]["recall_at_10"] == pytest.approx(1 / 3, abs=1e-4)


def test_bad_queries_are_refused_in_one_sentence() -> None:
    from memorydesk.core.errors import BadInput

    for bad in ({"query": "x"}, [{"expect": []}], [{"query": " ", "expect": []}], [{"query": "x", "expect": [1]}]):
        with pytest.raises(BadInput):
            audit.read_queries(bad)
