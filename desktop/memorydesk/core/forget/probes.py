"""What the forget check looks for, derived from a fact's text or a typed text (pure rules).

- **Needles**: pieces of the text whose presence elsewhere means that place still holds it:
  every secret and item of personal data the review's detectors find in it
  (``core.review.secrets``, ``core.review.personal``), every identifier-like word (eight or more
  characters mixing letters and digits, or holding an ``@``), and the whole content when it is
  at least ``MIN_NEEDLE`` characters, and overlapping parts of a longer text (``slices``: a
  history reason or an excerpt that quotes a part of it holds it). A needle that contains
  another is dropped: holding the longer one means holding the shorter, so "holds any needle"
  does not change. A typed text is
  one needle, as typed (at least ``MIN_TEXT`` characters).
- **Matching** is a substring test after folding ASCII letters to lower case — exactly what
  SQLite's ``instr(lower(column), lower(needle))`` does, so a table search in SQL and a test
  of a returned hit in Python agree. Letters outside ASCII compare as they are.
- **Queries**: the fact's topic, and its *distinctive words*: the keyword terms of its topic
  and content (the product's own query builder) with the fewest documents in the full-text
  index (``rarest``), at most ``WORD_TERMS`` of them.
- **A task that names it** (for the dispatch preamble): the query followed by English stopwords
  (``TASK_FILLER``), so the task is long enough to earn fact lines and the product's builder
  keeps exactly the query's terms.
- **Index tokens**: how the full-text index (FTS5's ``unicode61`` tokenizer, default options)
  splits a needle into terms: case folded, diacritics removed, split at every character that
  is not a letter or a digit.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping

from memorydesk.core.product.fts_query import FTS_STOPWORDS, keyword_terms
from memorydesk.core.product.text import utf16_len

#: a part of a long text looked for on its own: this many words in a row (a reason or an excerpt that
#: quotes a part of the text holds one), taken every ``SLICE_STEP`` words, at most ``MAX_SLICES``
SLICE_WORDS, SLICE_STEP, MAX_SLICES, MIN_SLICE = 5, 3, 32, 20
MIN_NEEDLE = 8  # a piece of a fact's text shorter than this is not looked for on its own
MIN_TEXT = 4  # the shortest typed text the check searches for
WORD_TERMS = 4
TASK_FILLER = "what do we have on this"  # every word a stopword of the product's query builder
assert all(w in FTS_STOPWORDS for w in TASK_FILLER.split())

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_STRIP = "\"'`.,;:!?()[]{}<>"
_LETTER, _DIGIT = re.compile(r"[A-Za-z]"), re.compile(r"\d")


def fold(text: str) -> str:
    """ASCII letters to lower case, everything else as it is (SQLite's ``lower()``)."""
    return text.translate(_ASCII_LOWER)


def holds(text: str | None, needles: Iterable[str]) -> bool:
    """Whether ``text`` contains any of ``needles`` (already folded)."""
    if not text:
        return False
    folded = fold(text)
    return any(n in folded for n in needles)


def minimal(needles: Iterable[str]) -> list[str]:
    """Folded, without repeats, and without any needle that contains another."""
    unique = sorted({fold(n) for n in needles if n}, key=len)
    kept: list[str] = []
    for needle in unique:
        if not any(k in needle for k in kept):
            kept.append(needle)
    return kept


def identifier_words(text: str) -> list[str]:
    """Words that look like identifiers: ``MIN_NEEDLE``+ characters mixing letters and digits, or holding ``@``."""
    out = []
    for raw in text.split():
        word = raw.strip(_STRIP)
        if len(word) >= MIN_NEEDLE and ("@" in word or (_LETTER.search(word) and _DIGIT.search(word))):
            out.append(word)
    return out


def fact_needles(content: str, spans: Iterable[str] = (), *, parts: bool = True) -> list[str]:
    """The needles of a fact's content; ``spans``: what the review's detectors found in it;
    ``parts``: its ``slices`` too (a place that quotes a part of it holds it)."""
    text = (content or "").strip()
    found = [s for s in spans if len(s.strip()) >= 6]
    found += identifier_words(text)
    if len(text) >= MIN_NEEDLE:
        found.append(text)
    if parts:
        found += slices(text)
    return minimal(found)


def slices(text: str) -> list[str]:
    """Overlapping parts of ``text``, ``SLICE_WORDS`` words each as written (``MIN_SLICE``+ characters),
    one every ``SLICE_STEP`` words (further apart in a text so long it would give more than
    ``MAX_SLICES``; the last words always): any run of ``SLICE_WORDS + step - 1`` words holds one.
    A text of ``SLICE_WORDS`` words or fewer has none (the whole text is its needle)."""
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text or "")]
    last = len(words) - SLICE_WORDS
    if last <= 0:
        return []
    step = max(SLICE_STEP, -(-last // MAX_SLICES))
    starts = sorted({*range(0, last + 1, step), last})
    out = [text[words[i][0]:words[i + SLICE_WORDS - 1][1]] for i in starts]
    return [s for s in out if len(s) >= MIN_SLICE]


def detected_spans(text: str) -> list[str]:
    """The secrets and personal data the review's detectors find in ``text``, as they are written there."""
    from memorydesk.core.review.personal import find_personal
    from memorydesk.core.review.secrets import find_secrets

    hits = [*find_secrets(text), *find_personal(text)]
    return [text[h.start:h.end] for h in hits]


def byte_needles(needles: Iterable[str], typed: Iterable[str] = ()) -> list[bytes]:
    """The bytes a byte search looks for: each needle as UTF-8; a typed text also as typed, in
    upper case and with each word capitalised (a byte search cannot fold case)."""
    out: list[bytes] = []
    for n in needles:
        out.append(n.encode("utf-8"))
    for t in typed:
        for variant in (t, t.upper(), t.title(), fold(t)):
            out.append(variant.encode("utf-8"))
    return list(dict.fromkeys(b for b in out if b))


def rarest(terms: Iterable[str], docs: Mapping[str, int], n: int = WORD_TERMS) -> list[str]:
    """The ``n`` terms with the fewest documents (terms the index does not hold count as rarest), in that order."""
    unique = list(dict.fromkeys(terms))
    return sorted(unique, key=lambda t: (docs.get(t, 0), unique.index(t)))[:n]


def query_terms(topic: str, content: str) -> list[str]:
    """The terms the product's keyword search would keep from the fact's topic and content."""
    return keyword_terms(f"{topic} {content}")


def task_naming(query: str) -> str:
    """A task that names ``query``: long enough for the preamble's fact lines, no term added."""
    task = f"{query.strip()} {TASK_FILLER}"
    assert utf16_len(task) >= 20
    return task


def index_tokens(text: str) -> list[str]:
    """``text`` as the full-text index's ``unicode61`` tokenizer splits it (default options)."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    tokens, current = [], []
    for ch in plain:
        if ch.isalnum() or unicodedata.category(ch) == "Co":
            current.append(ch.lower())
        elif current:
            tokens.append("".join(current))
            current = []
    if current:
        tokens.append("".join(current))
    return tokens


__all__ = ["MIN_NEEDLE", "MIN_TEXT", "TASK_FILLER", "WORD_TERMS", "byte_needles", "detected_spans", "fact_needles",
           "fold", "holds", "identifier_words", "index_tokens", "minimal", "query_terms", "rarest", "slices",
           "task_naming"]
