"""Rank fusion: RRF, semantic mode, hybrid score with explanations, MMR, Dart ordering."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memorydesk.core.product.dart_sort import dart_compare_doubles, dart_sort
from memorydesk.core.product.fusion import (
    FusionRecord,
    Voice,
    hybrid_fuse,
    mmr_rerank,
    rrf_fuse,
    rrf_term,
    semantic_fuse,
    voice_weights,
)
from memorydesk.core.product.intent import IntentCategory, classify_intent

NOW = 1_700_000_000.0
HOUR = 3600.0


def test_rank_is_zero_based() -> None:
    assert rrf_term(0) == 1 / 61
    assert rrf_term(2, 0.25) == 0.25 * (1 / 63)


def test_rrf_sums_by_hand() -> None:
    fused = rrf_fuse([["a", "b", "c"], ["b", "d"]])
    got = {f.id: f.score for f in fused}
    assert got["a"] == pytest.approx(1 / 61)
    assert got["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert got["c"] == pytest.approx(1 / 63)
    assert got["d"] == pytest.approx(1 / 62)
    assert [f.id for f in fused] == ["b", "a", "d", "c"]


def test_rrf_ties_keep_first_seen_order_for_short_lists() -> None:
    fused = rrf_fuse([["x"], ["y"]])
    assert [f.id for f in fused] == ["x", "y"]
    assert fused[0].score == fused[1].score


def test_semantic_mode_caps_inputs_and_output() -> None:
    fts = [f"f{i}" for i in range(25)]  # only the top 20 count
    vec = [f"v{i}" for i in range(35)]  # only the top 30 count
    fused = semantic_fuse(fts, vec)
    assert len(fused) == 10
    assert [f.id for f in fused][:4] == ["f0", "v0", "f1", "v1"]
    assert semantic_fuse(["s", "t"], ["t", "s"])[0].score == pytest.approx(1 / 61 + 1 / 62)
    assert "f20" not in {f.id for f in rrf_fuse([fts[:20], vec[:30]])}


def test_semantic_mode_overlap_wins() -> None:
    fused = semantic_fuse(["a", "b", "c", "d"], ["d", "e"])
    # d: 1/64 + 1/61 beats a: 1/61
    assert [f.id for f in fused] == ["d", "a", "b", "e", "c"]


def test_voice_weights_apply_intent_biases() -> None:
    temporal = classify_intent("what happened yesterday")
    assert temporal.category is IntentCategory.TEMPORAL
    w = voice_weights(temporal)
    assert w[Voice.VECTOR] == pytest.approx(0.35 * 0.6)
    assert w[Voice.FACT] == pytest.approx(0.25 * 1.5)
    assert w[Voice.TEMPORAL] == pytest.approx(0.15 * 0.8)
    assert w[Voice.GRAPH] == 0.25  # graph is never biased
    assert voice_weights(None) == {
        Voice.VECTOR: 0.35, Voice.GRAPH: 0.25, Voice.FACT: 0.25, Voice.TEMPORAL: 0.15,
    }  # fmt: skip


def _records() -> dict[str, FusionRecord]:
    return {
        "a": FusionRecord(NOW - 720 * HOUR, "fact", 0.9, "deploy target prod"),
        "b": FusionRecord(NOW, "fact", 1.0, "backup schedule nightly"),
        "c": FusionRecord(NOW - 72 * HOUR, "REQUEST", 0.5, "rotate keys monthly"),
        "d": FusionRecord(NOW - 100 * HOUR, "preference", 1.5, "editor vim"),
    }


def test_hybrid_score_by_hand() -> None:
    voices = {
        Voice.FACT: ["a", "b"],
        Voice.VECTOR: ["b", "c"],
        Voice.TEMPORAL: ["c", "a"],
        Voice.GRAPH: ["d"],
    }
    result = hybrid_fuse(voices, _records(), classify_intent("database schema"), NOW)
    assert result.intent is not None and result.intent.category is IntentCategory.GENERAL

    rrf = {
        "a": 0.25 / 61 + 0.15 / 62,
        "b": 0.25 / 62 + 0.35 / 61,
        "c": 0.35 / 62 + 0.15 / 61,
        "d": 0.25 / 61,
    }
    weib = {
        "a": math.exp(-1.0),
        "b": 1.0,
        "c": math.exp(-1.0),  # request, 72 h = eta
        "d": math.exp(-((100 / 4380) ** 0.4)),
    }
    conf = {"a": 0.9, "b": 1.0, "c": 0.5, "d": 1.0}  # d's 1.5 is clamped
    expected = {
        i: rrf[i] * (0.02 + 0.98 * weib[i]) * (0.8 + 0.2 * conf[i]) for i in rrf
    }
    by_id = {h.id: h for h in result.candidates}
    for i, score in expected.items():
        hit = by_id[i]
        assert hit.rrf == pytest.approx(rrf[i], rel=1e-12)
        assert hit.weibull == pytest.approx(weib[i], rel=1e-12)
        assert hit.decay_factor == pytest.approx(0.02 + 0.98 * weib[i], rel=1e-12)
        assert hit.confidence_factor == pytest.approx(0.8 + 0.2 * conf[i], rel=1e-12)
        assert hit.score == pytest.approx(score, rel=1e-12)

    # disjoint texts: no MMR penalty, so the order is the score order
    order = sorted(expected, key=expected.__getitem__, reverse=True)
    assert [h.id for h in result.hits] == order
    assert [h.position for h in result.hits] == [0, 1, 2, 3]
    assert [h.score_rank for h in result.candidates] == [0, 1, 2, 3]
    assert all(h.mmr_penalty == 0.0 for h in result.hits)


def test_hybrid_explains_each_voice() -> None:
    voices = {Voice.FACT: ["a", "b"], Voice.TEMPORAL: ["c", "a"]}
    result = hybrid_fuse(voices, _records(), classify_intent("when was it"), NOW)
    a = next(h for h in result.hits if h.id == "a")
    assert [(c.voice, c.rank) for c in a.contributions] == [
        (Voice.FACT, 0),
        (Voice.TEMPORAL, 1),
    ]
    fact, temporal = a.contributions
    assert fact.weight == pytest.approx(0.25 * 1.5)
    assert fact.contribution == pytest.approx(0.25 * 1.5 / 61)
    assert temporal.weight == pytest.approx(0.15 * 0.8)
    assert temporal.contribution == pytest.approx(0.15 * 0.8 / 62)
    assert a.rrf == pytest.approx(fact.contribution + temporal.contribution)
    assert result.weights[Voice.FACT] == pytest.approx(0.375)


def test_hybrid_without_vector_voice_and_unknown_ids() -> None:
    voices = {Voice.FACT: ["ghost", "b"], Voice.GRAPH: ["a"]}
    result = hybrid_fuse(voices, _records(), None, NOW)
    assert result.unknown_ids == ("ghost",)
    b = next(h for h in result.hits if h.id == "b")
    assert b.contributions[0].rank == 1  # the skipped id still held rank 0
    assert {h.id for h in result.hits} == {"a", "b"}


def test_hybrid_top_k_and_boost() -> None:
    records = {
        f"f{i}": FusionRecord(NOW, "fact", 1.0, f"word{i}", boost=1.35 if i == 11 else 1.0)
        for i in range(15)
    }
    result = hybrid_fuse({Voice.FACT: [f"f{i}" for i in range(15)]}, records, None, NOW)
    assert len(result.hits) == 10
    assert len(result.candidates) == 15
    boosted = next(h for h in result.candidates if h.id == "f11")
    assert boosted.score == pytest.approx(0.25 / 72 * 1.0 * 1.0 * 1.35)
    assert boosted.score_rank == 0  # 1.35 × (1/72) beats 1/61
    assert result.hits[0].id == "f11"
    left_out = [h for h in result.candidates if h.position is None]
    assert {h.id for h in left_out} == {"f9", "f10", "f12", "f13", "f14"}


def test_equal_scores_keep_voice_order() -> None:
    records = {
        "x": FusionRecord(NOW, "fact", 1.0, "alpha"),
        "y": FusionRecord(NOW, "fact", 1.0, "beta"),
    }
    # fact and graph both weigh 0.25: x (fact, rank 0) and y (graph, rank 0) tie;
    # the fact voice is accumulated first, so x comes first.
    result = hybrid_fuse({Voice.GRAPH: ["y"], Voice.FACT: ["x"]}, records, None, NOW)
    assert result.hits[0].score == result.hits[1].score
    assert [h.id for h in result.hits] == ["x", "y"]


def test_mmr_drops_near_duplicate() -> None:
    scores = [0.030, 0.029, 0.010]
    texts = [
        "deploy: target is prod",
        "deploy: target is prod now",  # near-duplicate of the first
        "backups run nightly",
    ]
    picks = mmr_rerank(scores, texts, top_k=2)
    assert [p.index for p in picks] == [0, 2]

    picks = mmr_rerank(scores, texts)
    assert [p.index for p in picks] == [0, 2, 1]
    dup = picks[2]
    assert dup.similarity == pytest.approx(4 / 5)
    assert dup.penalty == pytest.approx(0.3 * 4 / 5)
    assert dup.value == pytest.approx(0.7 * 0.029 - 0.3 * 0.8)
    assert picks[1].value == pytest.approx(0.7 * 0.010)
    assert picks[0].similarity == 0.0 and picks[0].value == pytest.approx(0.7 * 0.030)


def test_mmr_diversity_dwarfs_relevance() -> None:
    # The quirk DESIGN asks us to keep: a 10x better but overlapping item loses
    # to a barely relevant unrelated one.
    picks = mmr_rerank([0.03, 0.02, 0.002], ["a b c d", "a b c e", "z"])
    assert [p.index for p in picks] == [0, 2, 1]


def test_mmr_edge_cases() -> None:
    assert mmr_rerank([0.5], ["x"]) == mmr_rerank([0.5], ["x"], top_k=3)
    assert [p.index for p in mmr_rerank([0.5], ["x"])] == [0]
    assert mmr_rerank([0.1, 0.2], ["a", "b"], top_k=0) == []
    assert mmr_rerank([], []) == []
    assert [p.index for p in mmr_rerank([0.1, 0.2, 0.3], ["a", "b", "c"])] == [2, 1, 0]


# --- Dart ordering ---------------------------------------------------------------------


def _desc(keys: list[int]) -> list[int]:
    order = list(range(len(keys)))
    dart_sort(order, lambda x, y: (keys[y] > keys[x]) - (keys[y] < keys[x]))
    return order


def test_dart_sort_is_stable_up_to_33_items() -> None:
    keys = [i % 3 for i in range(33)]
    assert _desc(keys) == sorted(range(33), key=lambda i: -keys[i])


def test_dart_sort_reorders_ties_beyond_33_items() -> None:
    # Expected order computed with a direct transliteration of the Dart SDK's
    # sort.dart (dual-pivot quicksort), independent of this implementation.
    keys = [1, 2, 1, 1, 2, 2, 0, 0, 2, 1, 2, 2, 0, 0, 1, 1, 0, 0, 2, 2,
            2, 0, 2, 1, 1, 2, 2, 2, 2, 0, 2, 0, 2, 0, 0, 0, 0, 0, 2, 0]  # fmt: skip
    expected = [25, 1, 4, 5, 19, 8, 10, 11, 18, 20, 22, 38, 32, 30, 28, 27, 26, 0,
                14, 15, 3, 9, 2, 23, 24, 39, 21, 13, 17, 29, 16, 31, 12, 33, 34, 35,
                36, 37, 7, 6]  # fmt: skip
    assert _desc(keys) == expected
    assert expected != sorted(range(40), key=lambda i: -keys[i])  # not stable


@given(st.lists(st.integers(min_value=-3, max_value=3), max_size=300))
def test_dart_sort_sorts(values: list[int]) -> None:
    items = list(values)
    dart_sort(items, lambda x, y: (x > y) - (x < y))
    assert items == sorted(values)


def test_dart_compare_doubles() -> None:
    assert dart_compare_doubles(1.0, 2.0) == -1
    assert dart_compare_doubles(2.0, 1.0) == 1
    assert dart_compare_doubles(0.5, 0.5) == 0
    assert dart_compare_doubles(-0.0, 0.0) == -1
    assert dart_compare_doubles(float("nan"), 1e308) == 1
    assert dart_compare_doubles(float("nan"), float("nan")) == 0
