"""Injected instructions in words no rule was written for: a small classifier over the desk's own
sentence embeddings (all-MiniLM-L6-v2, ``embedding.embedder``).

The classifier is a logistic regression fitted, when first used, on the examples in
``injection_exemplars`` (planted instructions against ordinary team conventions, several
languages), their vectors made by the same model as the facts' stored embeddings, so a
fact's own embedding is scored as it is (one product of two vectors: no model run). Text
without a stored vector (policies, notes, working items, a fact without an embedding) and
the sentences of a long text are embedded. The finding names the nearest example, so a
person sees why.

The model is English-centred: other languages are caught through the examples written in
them and the multilingual rules (``core.review.injection``); the user guide gives the
figures per language.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from memorydesk.browse.review.injection_exemplars import INJECTED, ORDINARY
from memorydesk.core.review.intent import signals

THRESHOLD = 0.99  # probability at or above which a text is reported on the model alone
CUED_THRESHOLD = 0.95  # … or at or above this when it also names a risky act (``RISK``)
MIN_SIMILARITY = 0.30  # … and it must be at least this close to one planted example
#: words of a risky act in several languages: secrets, sending out, switching off a safeguard, approving or
#: hiding without a person, new access; the model's lower threshold needs one of them
RISK = re.compile(
    r"(?i)\b(?:secret|secrets|password|passwords|token|tokens|api\s*keys?|private\s+keys?|credentials?|\.env|ssh|"
    r"mfa|2fa|two-factor|signature|encryption|audit|logs?|alerts?|findings?|scanner|webhook|admin|owner|collaborator|"
    r"authorized_keys|dns|cname|public|external|outside|off-?site|upload|exfiltrat\w*|forward|cc|paste|export|"
    r"approve\w*|merge\w*|dismiss\w*|resolve\w*|without|silently|quietly|never\s+mention|don't\s+(?:tell|mention)|"
    r"do\s+not\s+(?:tell|mention|notify|log)|no\s+one|nobody|skip|bypass|disable\w*|turn\s+off|uninstall|"
    r"--no-verify|delete|remove|priority|supersedes?|overrides?|verbal|effective\s+immediately|trust\s+level|"
    r"memory|stored\s+facts|whatsapp|transfer|refund|discount|"
    r"passwort\w*|geheim\w*|schlüssel|zugangsdaten|ohne|lösch\w*|genehmig\w*|vorrang|niemand\w*|"
    r"mot\s+de\s+passe|secrets?|clés?|sans|supprim\w*|approuv\w*|priorit\w*|personne|jamais|"
    r"contraseñ\w*|clave|sin|borra\w*|aprueb\w*|nadie|nunca|prioridad|senha|sem|apag\w*|aprov\w*|ninguém|"
    r"пароль\w*|токен\w*|ключ\w*|без|удал\w*|никому|приоритет\w*)\b"
    r"|密码|令牌|密钥|不要告诉|删除|上传|所有内容|סיסמ|מפתח|בלי|אל\s+תספר|מחק")
LONG = 320  # characters: a longer text is also scored sentence by sentence
MAX_SENTENCES = 12
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+")
_LOCK = threading.Lock()


@dataclass(frozen=True)
class ModelHit:
    score: float
    nearest: str  # the planted example it is closest to
    similarity: float
    sentence: str  # the sentence scored ('' when the whole text was)


@dataclass
class _Fitted:
    weights: np.ndarray  # (384,), over standardised features
    bias: float
    mean: np.ndarray
    scale: np.ndarray
    positives: np.ndarray  # unit vectors of INJECTED


def _cache_file(digest: str) -> str | None:
    try:
        from platformdirs import user_cache_dir
    except ImportError:  # pragma: no cover
        return None
    folder = os.environ.get("MEMORY_DESK_RULE_CACHE") or os.path.join(
        user_cache_dir("memory-desk", appauthor=False), "secret-rules")
    return os.path.join(folder, f"injection-examples-{digest}.npy")


def _example_vectors(embedder) -> np.ndarray:
    texts = list(INJECTED) + list(ORDINARY)
    digest = hashlib.blake2b("\x1e".join(texts).encode(), digest_size=8).hexdigest()
    path = _cache_file(digest)
    if path and os.path.exists(path):
        try:
            vecs = np.load(path)
            if vecs.shape == (len(texts), 384):
                return vecs
        except (OSError, ValueError):
            pass
    vecs = np.asarray(embedder.embed(texts), dtype=np.float32)
    if path:
        try:
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            np.save(path, vecs)
        except OSError:
            pass
    return vecs


def _sigmoid(z: np.ndarray) -> np.ndarray:
    """1 / (1 + e^-z) without overflow for far-off scores."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def fit(x: np.ndarray, y: np.ndarray, *, l2: float = 3e-2, steps: int = 500,
        rate: float = 0.5) -> tuple[np.ndarray, float]:
    """Logistic regression by gradient descent, classes weighted to balance (deterministic)."""
    n, d = x.shape
    w = np.zeros(d, dtype=np.float64)
    b = 0.0
    pos = y.sum()
    weight = np.where(y > 0, n / (2 * max(pos, 1)), n / (2 * max(n - pos, 1)))
    xs = x.astype(np.float64)
    for _ in range(steps):
        p = _sigmoid(xs @ w + b)
        g = (p - y) * weight
        w -= rate * (xs.T @ g / n + l2 * w)
        b -= rate * g.mean()
    return w.astype(np.float32), float(b)


@lru_cache(maxsize=1)
def _fitted_for(embedder_id: int) -> _Fitted:  # one per process (the embedder is the process's)
    from memorydesk.embedding.embedder import get_embedder

    vecs = _example_vectors(get_embedder())
    y = np.concatenate([np.ones(len(INJECTED)), np.zeros(len(ORDINARY))])
    mean, scale = vecs.mean(axis=0), vecs.std(axis=0) + 1e-6
    w, b = fit((vecs - mean) / scale, y)
    return _Fitted(w, b, mean, scale, vecs[:len(INJECTED)])


def model() -> _Fitted:
    with _LOCK:
        return _fitted_for(0)


def available() -> bool:
    from memorydesk.embedding.embedder import embedder_status

    return embedder_status()[0]


def score_vectors(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(probability, nearest planted example's index, its cosine) for each unit vector."""
    m = model()
    if len(vectors) == 0:
        return np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(0)
    v = np.asarray(vectors, dtype=np.float32)
    prob = _sigmoid(((v - m.mean) / m.scale) @ m.weights + m.bias)
    sims = v @ m.positives.T
    nearest = sims.argmax(axis=1)
    return prob, nearest, sims[np.arange(len(v)), nearest]


def hit_of(prob: float, nearest: int, similarity: float, sentence: str = "", text: str = "") -> ModelHit | None:
    """A hit when the model is sure, or fairly sure and the text names a risky act, and the
    structure reading finds at least one sign of a request in it (``intent.signals``, weak ones
    included): "PR #883 approved" or "the CSV exporter leaks a goroutine" read close to a planted
    example in the model's English-centred space, but ask nobody for anything."""
    if similarity < MIN_SIMILARITY or prob < CUED_THRESHOLD:
        return None
    if prob < THRESHOLD and RISK.search(sentence or text) is None:
        return None
    if not signals(sentence or text):  # the model's word alone is not enough: the text must also ask for something
        return None
    return ModelHit(round(float(prob), 3), INJECTED[int(nearest)], round(float(similarity), 3), sentence)


def sentences(text: str) -> list[str]:
    parts = [p.strip() for p in _SENTENCE.split(text) if len(p.strip()) >= 12]
    return parts[:MAX_SENTENCES]


def score_texts(texts: list[str], whole: list[bool] | None = None) -> list[ModelHit | None]:
    """Embed each text (and the sentences of a long one) and score it: the best hit per text.
    ``whole[i]`` False: the text's own vector was scored already, only its sentences are read."""
    from memorydesk.embedding.embedder import get_embedder

    pieces: list[tuple[int, str, str]] = []  # text index, what is embedded, the sentence ('' = whole)
    for i, text in enumerate(texts):
        if whole is None or whole[i]:
            pieces.append((i, text, ""))
        if len(text) > LONG:
            pieces += [(i, s, s) for s in sentences(text)]
    if not pieces:
        return []
    vecs = np.asarray(get_embedder().embed([p[1] for p in pieces]), dtype=np.float32)
    prob, nearest, sim = score_vectors(vecs)
    best: list[ModelHit | None] = [None] * len(texts)
    for k, (i, _t, sentence) in enumerate(pieces):
        hit = hit_of(prob[k], nearest[k], sim[k], sentence, texts[i])
        if hit is not None and (best[i] is None or hit.score > best[i].score):
            best[i] = hit
    return best
