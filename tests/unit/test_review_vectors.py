"""Close pairs through the inverted-file index against every pair, and clusters."""

from __future__ import annotations

import numpy as np
import pytest

from memorydesk.browse.review import vectors


def as_dict(found: vectors.PairArrays) -> dict[tuple[int, int], float]:
    return dict(zip(zip(found.i.tolist(), found.j.tolist(), strict=True), found.cos.tolist(), strict=True))


def _planted(n: int, pairs: int, seed: int = 3) -> tuple[np.ndarray, set[tuple[int, int]]]:
    rng = np.random.default_rng(seed)
    m = rng.normal(size=(n, 384)).astype(np.float32)
    planted = set()
    for k in range(pairs):
        i, j = 2 * k, 2 * k + 1
        m[j] = m[i] + rng.normal(scale=0.15, size=384).astype(np.float32)  # cosine about 0.98
        planted.add((i, j))
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    return m, planted


@pytest.mark.slow
def test_the_index_finds_what_every_pair_finds() -> None:
    m, planted = _planted(vectors.EXACT_UP_TO + 1500, 300)
    exact = as_dict(vectors.pair_arrays_of(m, np.arange(len(m)), 0.9))  # every row against every vector
    found = as_dict(vectors.close_pair_arrays(m, 0.9))  # above EXACT_UP_TO: the index
    assert set(exact) == planted
    assert len(set(found) & planted) >= 0.98 * len(planted) and set(found) <= set(exact)
    assert all(abs(found[k] - exact[k]) < 1e-5 for k in found)


def test_small_sets_compare_every_pair_and_clusters_join_chains() -> None:
    m, planted = _planted(500, 20)
    assert set(as_dict(vectors.close_pair_arrays(m, 0.9))) == planted
    assert vectors.clusters({(0, 1): 0.95, (1, 2): 0.93, (5, 6): 0.99}, 8) == [[0, 1, 2], [5, 6]]
    rows = np.asarray([1, 3])
    assert set(as_dict(vectors.pair_arrays_of(m, rows, 0.9))) == {(0, 1), (2, 3)}
