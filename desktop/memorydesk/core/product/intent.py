"""Query intent classification and the voice biases each intent applies (DESIGN §3).

Each category counts how many of its patterns match the lower-cased query (a
pattern counts once however often it matches) and scores ``min(1, 0.3 + 0.15·n)``.
The highest score wins; on a tie the category listed earlier keeps it (temporal,
factual, entity, preference, procedural). No match at all → ``general``.

The patterns are the product's regular expressions (``query_intent.dart``) with
ECMAScript semantics: ``\\b`` and ``\\d`` are ASCII-only, ``\\s`` is JS whitespace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Mapping, NamedTuple

from memorydesk.core.product.text import JS_WHITESPACE, dart_lower

__all__ = [
    "INTENT_BIASES",
    "INTENT_PATTERNS",
    "IntentBias",
    "IntentCategory",
    "QueryIntent",
    "classify_intent",
    "intent_score",
]


class IntentCategory(StrEnum):
    """Query intents, in tie-break order (``general`` is the no-match fallback)."""

    TEMPORAL = "temporal"
    FACTUAL = "factual"
    ENTITY = "entity"
    PREFERENCE = "preference"
    PROCEDURAL = "procedural"
    GENERAL = "general"


class IntentBias(NamedTuple):
    """Multipliers on the vector voice, the fact (FTS) voice and the temporal voice."""

    vec: float
    fts: float
    importance: float


INTENT_BIASES: Final[Mapping[IntentCategory, IntentBias]] = {
    IntentCategory.TEMPORAL: IntentBias(0.6, 1.5, 0.8),
    IntentCategory.FACTUAL: IntentBias(1.0, 1.2, 0.9),
    IntentCategory.ENTITY: IntentBias(1.1, 1.0, 1.3),
    IntentCategory.PREFERENCE: IntentBias(0.9, 0.8, 1.5),
    IntentCategory.PROCEDURAL: IntentBias(1.3, 0.9, 0.7),
    IntentCategory.GENERAL: IntentBias(1.0, 1.0, 1.0),
}

_S = f"[{JS_WHITESPACE}]"  # ECMAScript \s

#: The product's patterns per category, written with ``\s`` spelled as ``{S}``.
_RAW_PATTERNS: Final[Mapping[IntentCategory, tuple[str, ...]]] = {
    IntentCategory.TEMPORAL: (
        r"\b(when|last|yesterday|today|tomorrow|ago|before|after|since|until|during"
        r"|recently|lately)\b",
        r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
        r"\b(january|february|march|april|may|june|july|august|september|october"
        r"|november|december)\b",
        r"\b\d{{4}}-\d{{2}}-\d{{2}}\b",
        r"\b(this|next|last){S}+(week|month|year)\b",
        r"\b\d+{S}+(day|week|month|year|hour|minute)s?{S}+(ago|from now|later|earlier)\b",
    ),
    IntentCategory.FACTUAL: (
        r"\bwhat{S}+is\b",
        r"\bwho{S}+is\b",
        r"\bwhere{S}+is\b",
        r"\b(definition|define|explain|meaning)\b",
        r"\bhow{S}+(many|much|long|far)\b",
    ),
    IntentCategory.ENTITY: (
        r"\b(tell{S}+me{S}+about|what{S}+do{S}+you{S}+know{S}+about)\b",
        r"\b(about|regarding|concerning){S}+[a-z]+\b",
    ),
    IntentCategory.PREFERENCE: (
        r"\b(prefer|like|dislike|want|hate|love|enjoy|favorite|best|worst)\b",
        r"\b(should{S}+i|would{S}+you|do{S}+you{S}+recommend)\b",
        r"\b(choose|pick|select|option|choice|decide)\b",
    ),
    IntentCategory.PROCEDURAL: (
        r"\bhow{S}+(to|do|does|can|should|would)\b",
        r"\b(step|process|procedure|workflow|guide|tutorial)\b",
        r"\b(setup|install|configure|build|deploy|run|execute|start|stop)\b",
    ),
}

#: Compiled patterns per category (ASCII ``\b``/``\d``, case-insensitive like the product).
INTENT_PATTERNS: Final[Mapping[IntentCategory, tuple[re.Pattern[str], ...]]] = {
    category: tuple(
        re.compile(raw.format(S=_S), re.ASCII | re.IGNORECASE) for raw in raws
    )
    for category, raws in _RAW_PATTERNS.items()
}


def intent_score(matches: int) -> float:
    """``0.3 + 0.15·matches`` clamped to [0, 1], computed in the product's float order."""
    return min(1.0, max(0.0, 0.3 + matches * 0.15))


@dataclass(frozen=True, slots=True)
class QueryIntent:
    """The classification of one query, with the evidence behind it."""

    category: IntentCategory
    confidence: float
    match_counts: Mapping[IntentCategory, int]

    @property
    def bias(self) -> IntentBias:
        """The vec / fts / importance multipliers of the winning category."""
        return INTENT_BIASES[self.category]


def classify_intent(query: str) -> QueryIntent:
    """Classify ``query``; see the module docstring for the rule."""
    lowered = dart_lower(query)
    counts: dict[IntentCategory, int] = {}
    best = IntentCategory.GENERAL
    best_score = 0.0
    for category, patterns in INTENT_PATTERNS.items():
        matches = sum(1 for pattern in patterns if pattern.search(lowered))
        counts[category] = matches
        if matches > 0:
            score = intent_score(matches)
            if score > best_score:
                best, best_score = category, score
    return QueryIntent(best, best_score, counts)
