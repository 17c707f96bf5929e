"""``Embedder.embed_each`` gives ``embed_one``'s vectors bit for bit, in fewer model runs.

The recall audit embeds its coming queries ahead, and the agent's search is then handed
those vectors instead of embedding the query itself; the audit's answers may not change, so
the vectors must be the very ones a single run gives. ``embed_each`` runs texts of one token
count together, without padding. Here, on the real model: topic-like and question-like texts
(hyphenated words, digits, non-Latin scripts, a text cut at 256 tokens, empty ones), in
groups of one token count larger than one batch, every bit of every vector equal to its own
run's, and the model run far fewer times.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from memorydesk.embedding.embedder import SAME_LENGTH_BATCH, Embedder

WORDS = ["deploy", "deployment", "api", "nightly", "backup", "postgres", "rotation", "secret", "on-call", "kafka",
         "terraform", "staging", "invoice", "rounding", "feature", "flags", "schema", "migration", "retries", "2026",
         "v1.4", "café", "Löschfrist", "שלום", "日本語", "why", "did", "the", "when", "is", "what", "our"]


def _texts(rng: random.Random) -> list[str]:
    out = []
    for _ in range(420):
        words = rng.choices(WORDS, k=rng.choice([1, 2, 2, 3, 3, 3, 4, 6, 9, 15]))
        out.append(rng.choice(["-", " "]).join(words) if rng.random() < 0.6 else f"what is the {' '.join(words)}?")
    one_token = ["deploy", "the", "nightly", "api", "backup", "rotation", "secrets", "cache", "quota", "release"]
    out += [" ".join(rng.choices(one_token, k=4)) for _ in range(150)]  # 6 tokens each: more than one batch
    out += ["", "   ", "word " * 400, "deploy"]
    return out


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    e = Embedder()
    ok, reason = e.status()
    assert ok, reason
    return e


def test_each_vector_is_the_single_runs_bit_for_bit(embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts(random.Random(2026))
    alone = np.stack([embedder.embed_one(t) for t in texts])
    runs = {"n": 0}
    real = embedder._embed_batch

    def counted(*args, **kwargs):
        runs["n"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(embedder, "_embed_batch", counted)
    together = embedder.embed_each(texts)
    assert embedder._same_length_exact is True  # the self-check held here, so the batches were used
    assert together.dtype == np.float32 and together.shape == alone.shape
    assert np.array_equal(together.view(np.uint32), alone.view(np.uint32))
    loaded = embedder._ensure_loaded()
    lengths = [len(e.ids) for e in loaded.tokenizer.encode_batch(texts)]
    biggest = max(lengths.count(n) for n in set(lengths))
    assert biggest > SAME_LENGTH_BATCH  # a group of one token count filled more than one batch
    assert runs["n"] < len(texts) / 4


def test_nothing_to_embed(embedder: Embedder) -> None:
    assert embedder.embed_each([]).shape == (0, 384)
