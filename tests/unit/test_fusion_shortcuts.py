"""The shortcuts in ``core.product.fusion`` and the vector copy give what the plain algorithms give, to the bit.

- scores with no two equal and no NaN are sorted by Python's sort instead of the Dart VM's
  (``dart_sort``): one order sorts them, so both must agree; with ties, NaN or -0.0 beside 0.0
  the Dart sort still decides;
- MMR skips bringing an item's similarity up to date in a round where even its similarity so
  far leaves it below the round's best: the picks (index, similarity, penalty, value, the pick
  it was most similar to) equal the plain greedy pass written out here, which compares every
  remaining item with the newest pick in every round;
- the vector copy finds the k-th smallest squared distance among the values a part of them
  bounds: the same value ``np.partition`` finds among all.

Random inputs with many ties: few distinct scores, few words (so equal similarities), NaN.
"""

from __future__ import annotations

import math
import random

from memorydesk.core.product.dart_sort import dart_compare_doubles, dart_sort
from memorydesk.core.product.fusion import MmrPick, _by_score_desc, mmr_rerank
from memorydesk.core.product.text import jaccard, whitespace_tokens


def _dart_order(scores: list[float]) -> list[int]:
    order = list(range(len(scores)))
    dart_sort(order, lambda x, y: dart_compare_doubles(scores[y], scores[x]))
    return order


def _plain_mmr(scores: list[float], texts: list[str], lam: float, top_k: int,
               relevance: list[float] | None = None) -> list[MmrPick]:
    """The greedy pass without shortcuts: every remaining item against the newest pick, every round."""
    rel = scores if relevance is None else relevance
    if len(scores) <= 1:
        return [MmrPick(i, 0.0, 0.0, lam * rel[i]) for i in range(len(scores))][:top_k]
    tokens = [whitespace_tokens(t) for t in texts]
    remaining = _dart_order(scores)
    first = remaining.pop(0)
    picks = [MmrPick(first, 0.0, 0.0, lam * rel[first])]
    most: list[tuple[float, int | None]] = [(0.0, None)] * len(scores)
    while remaining and len(picks) < top_k:
        newest = picks[-1].index
        best_at, best = 0, MmrPick(-1, 0.0, 0.0, float("-inf"))
        for at, i in enumerate(remaining):
            s = jaccard(tokens[i], tokens[newest])
            if s > most[i][0]:
                most[i] = (s, newest)
            sim, against = most[i]
            value = lam * rel[i] - (1.0 - lam) * sim
            if value > best.value:
                best_at, best = at, MmrPick(i, sim, (1.0 - lam) * sim, value, against)
        if best.index < 0:
            i = remaining[0]
            best = MmrPick(i, 0.0, 0.0, lam * rel[i])
        remaining.pop(best_at)
        picks.append(best)
    return picks


def _scores(rng: random.Random, n: int) -> list[float]:
    kind = rng.random()
    if kind < 0.3:
        return [rng.random() for _ in range(n)]  # all distinct: the shortcut
    pool = [rng.random() for _ in range(rng.randint(1, 6))] + [0.0, -0.0]
    if kind < 0.4:
        pool.append(math.nan)
    return [rng.choice(pool) if rng.random() < 0.6 else rng.random() for _ in range(n)]


def test_the_sort_shortcut_agrees_with_the_dart_sort() -> None:
    rng = random.Random(7)
    shortcut = 0
    for _ in range(3000):
        scores = _scores(rng, rng.randint(0, 120))
        got = _by_score_desc(scores)
        assert got == _dart_order(scores)
        shortcut += len(set(scores)) == len(scores) and not any(s != s for s in scores) and len(scores) > 33
    assert shortcut > 500  # beyond 33 items the Dart sort is not stable: the agreement is not trivial


def test_mmr_with_its_shortcut_equals_the_plain_greedy_pass() -> None:
    rng = random.Random(11)
    words = ["deploy", "api", "nightly", "build", "Deploy", "cache", "redis", "a", "b", "c"]
    large = 0
    for _ in range(1500):
        n = rng.randint(0, 90)
        scores = _scores(rng, n)
        texts = [" ".join(rng.choices(words, k=rng.randint(0, 6))) for _ in range(n)]
        lam = rng.choice([0.7, 0.7, 0.5, 1.0, 0.0])
        top_k = rng.choice([1, 3, 10, 10, 30])
        relevance = [rng.random() for _ in range(n)] if rng.random() < 0.2 else None
        got = mmr_rerank(scores, texts, lam, top_k, relevance)
        want = _plain_mmr(scores, texts, lam, top_k, relevance)
        assert [_key(p) for p in got] == [_key(p) for p in want]
        large += n > 30 and top_k >= 10
    assert large > 300  # many rounds over many items, where the shortcut skips most of them


def _key(p: MmrPick) -> tuple[object, ...]:
    """Everything a pick says, a NaN value written as text (NaN != NaN)."""
    return (p.index, p.similarity, p.penalty, "nan" if p.value != p.value else repr(p.value), p.against)


def test_the_vector_copys_kth_smallest_is_the_partitions() -> None:
    """The vector copy bounds the k-th smallest squared distance by a part's before partitioning."""
    import numpy as np

    from memorydesk.search.copies.vectors import _kth_smallest

    rng = np.random.default_rng(3)
    for t in range(200):
        n = int(rng.integers(1, 150_000))
        k = int(rng.integers(1, min(n, 60) + 1))
        values = rng.standard_normal(n).astype(np.float32)
        if t % 3 == 0:
            values[: n // 2] = np.inf  # holes (no vector in the slot) up front: the part bounds nothing
        if t % 5 == 0:
            values = np.round(values, 1)  # many equal values
        assert _kth_smallest(values, k) == float(np.partition(values, k - 1)[k - 1])
