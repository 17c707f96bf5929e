"""Episodic-link scoring used when a new fact is written (``episodic_graph.dart``).

Relatedness of two fact *contents* (topics play no part) is the largest of:

- lexical: Jaccard of their significant tokens — lower-cased, every character outside
  ``[a-z0-9]`` turned into a separator, tokens of at least 3 characters that are not
  in ``LINK_STOPWORDS`` (a list of its own, not the keyword-search one);
- entity: ``|A ∩ B| / max(|A|, |B|)`` over capitalised phrases such as ``Auth Service``
  (runs of ASCII ``[A-Z][a-z]+`` words separated by whitespace, compared lower-cased);
- temporal: 1.0 when the caller says both share a temporal scope, else 0.0. The
  product's writer never says so, so in practice this term is always 0.

A surviving new fact gets ``related_to`` edges (weight = score) to the best-scoring
active facts with score ≥ 0.35: the pool is scanned in the order given (the product
reads active facts newest ``updated_at`` first), collection stops after 50 qualifying
facts, those are sorted by score (Dart's unstable sort) and the first 5 are linked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Iterable

from memorydesk.core.product.dart_sort import dart_compare_doubles, dart_sort
from memorydesk.core.product.text import JS_WHITESPACE, dart_lower, jaccard

__all__ = [
    "LINK_CANDIDATE_POOL",
    "LINK_STOPWORDS",
    "LINK_THRESHOLD",
    "MAX_LINKS_PER_FACT",
    "ProposedLink",
    "Relatedness",
    "entity_overlap",
    "extract_entities",
    "propose_links",
    "relatedness",
    "relatedness_score",
    "significant_tokens",
]

LINK_THRESHOLD: Final = 0.35
MAX_LINKS_PER_FACT: Final = 5
LINK_CANDIDATE_POOL: Final = 50

#: Words ignored by the lexical part of relatedness.
LINK_STOPWORDS: Final[frozenset[str]] = frozenset(
    """
    a an the is are was were be been and or but if in on at to of for with by as from
    this that these those it its they them their has have had do does did
    will would can could
    """.split()
)

_NOT_ASCII_ALNUM = re.compile(r"[^a-z0-9]")
# ECMAScript semantics: \b is ASCII-only, \s is JS whitespace, matching is case-sensitive.
_ENTITY = re.compile(rf"\b[A-Z][a-z]+(?:[{JS_WHITESPACE}]+[A-Z][a-z]+)*\b", re.ASCII)


@lru_cache(maxsize=16384)  # a write scores one text against a pool that repeats across writes
def significant_tokens(text: str) -> frozenset[str]:
    """Lower-cased ASCII alphanumeric tokens of 3+ characters, minus ``LINK_STOPWORDS``."""
    cleaned = _NOT_ASCII_ALNUM.sub(" ", dart_lower(text))
    return frozenset(t for t in cleaned.split() if len(t) >= 3 and t not in LINK_STOPWORDS)


@lru_cache(maxsize=16384)
def extract_entities(text: str) -> frozenset[str]:
    """Capitalised phrases (``Deploy Target``, ``Auth Service``), lower-cased."""
    return frozenset(dart_lower(m.group(0)) for m in _ENTITY.finditer(text))


def entity_overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """``|A ∩ B| / max(|A|, |B|)``; 0.0 when either side is empty."""
    if not a or not b:
        return 0.0
    return len(a & b) / max(len(a), len(b))


@dataclass(frozen=True, slots=True)
class Relatedness:
    """The three components and their maximum."""

    lexical: float
    entity: float
    temporal: float

    @property
    def score(self) -> float:
        """The relatedness score: the largest component."""
        return max(self.lexical, self.entity, self.temporal)


def relatedness(content_a: str, content_b: str, temporal_match: bool = False) -> Relatedness:
    """Score two fact contents, keeping the components for explanation."""
    return Relatedness(
        lexical=jaccard(significant_tokens(content_a), significant_tokens(content_b)),
        entity=entity_overlap(extract_entities(content_a), extract_entities(content_b)),
        temporal=1.0 if temporal_match else 0.0,
    )


def relatedness_score(content_a: str, content_b: str, temporal_match: bool = False) -> float:
    """``max(lexical, entity, temporal)`` for two fact contents."""
    return relatedness(content_a, content_b, temporal_match).score


@dataclass(frozen=True, slots=True)
class ProposedLink:
    """A ``related_to`` edge to write from the new fact: target id and weight."""

    target_id: str
    weight: float


def propose_links(
    new_fact_id: str,
    new_content: str,
    active_facts: Iterable[tuple[str, str]],
) -> list[ProposedLink]:
    """The edges the product writes for a new fact that survived its conflicts.

    ``active_facts`` are ``(id, content)`` of the workspace's active facts in the
    product's read order (newest ``updated_at`` first); the new fact itself is skipped.
    """
    scored: list[ProposedLink] = []
    for fact_id, content in active_facts:
        if fact_id == new_fact_id:
            continue
        score = relatedness_score(new_content, content)
        if score >= LINK_THRESHOLD:
            scored.append(ProposedLink(fact_id, score))
        if len(scored) >= LINK_CANDIDATE_POOL:
            break
    dart_sort(scored, lambda x, y: dart_compare_doubles(y.weight, x.weight))
    return scored[:MAX_LINKS_PER_FACT]
