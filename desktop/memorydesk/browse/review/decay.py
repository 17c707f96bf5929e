"""Facts the desk already knows agents miss, listed in the queue too.

- **unreachable**: an active fact no keyword query of the product can return (its topic
  and content hold no a–z/0–9 word the query builder keeps, ``search.keyword``); medium
  when it has no embedding either, so no query reaches it at all.
- **fading**: an active fact whose Weibull weight (``core.product.decay``) is below
  ``FADED`` and whose type decays fast, while its wording reads as something stable (a
  convention, a rule, a preference): the type looks wrong for the content, and the
  agent loses it to age. The suggested type is a cue, not a verdict.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memorydesk.browse.review.items import Item
from memorydesk.core.product.decay import half_life_hours, weibull_at
from memorydesk.core.product.fts_query import FTS_STOPWORDS
from memorydesk.core.product.vocab import parse_memory_type
from memorydesk.core.review.finding import Finding
from memorydesk.core.review.secrets import mask_secrets
from memorydesk.search.keyword import is_keyword_reachable

FADED = 0.1
FAST_TYPES = {"commitment", "event", "request", "context", "error", "decision", "instruction", "observation",
              "unknown"}
_STABLE = re.compile(r"\b(?:always|never|every (?:time|release|deploy|pr|change)|convention|by default|standard|"
                     r"we use|use [\w-]+ for|must|prefer(?:s|red)?|is our|are our|policy|rule of thumb)\b", re.I)


_ASCII_TOKEN = re.compile(r"[a-z0-9]+")


def keyword_reachable(topic: str, content: str) -> bool:
    """``search.keyword.is_keyword_reachable``, with a fast path for ASCII text (lower-casing it is
    the same everywhere): a token of two or more characters that is not a stopword."""
    text = f"{topic} {content}"
    if text.isascii():
        return any(len(t) >= 2 and t not in FTS_STOPWORDS for t in _ASCII_TOKEN.findall(text.lower()))
    return is_keyword_reachable(topic, content)


def unreachable_finding(item: Item, has_embedding: bool) -> Finding | None:
    if not item.active or keyword_reachable(item.text("topic"), item.text("content")):
        return None
    says = ("no keyword query can return it (its topic and content hold no a–z/0–9 word the product's query keeps)"
            + ("; it has no embedding either, so no query reaches it at all" if not has_embedding else
               "; only the vector voice can still find it"))
    return Finding("unreachable", "low" if has_embedding else "medium", "fact", item.id, "content",
                   {"rule": "keyword_unreachable", "says": says, "has_embedding": has_embedding,
                    "excerpt": mask_secrets(item.text("content"))[:200]}, "open", item.domain,
                   f"unreachable by keyword: {mask_secrets(item.topic)[:60]}", item.fingerprint)


@lru_cache(maxsize=256)
def _type(memory_type: str) -> str:
    return parse_memory_type(memory_type).value


def fading_finding(item: Item, now: float) -> Finding | None:
    if not item.active:
        return None
    kind = _type(item.memory_type)
    if kind not in FAST_TYPES:
        return None
    weight = weibull_at(kind, item.created_at, now)
    if weight >= FADED:
        return None
    m = _STABLE.search(item.text("content"))
    if m is None:
        return None
    suggested = "preference" if m.group().lower().startswith("prefer") else "fact"
    half = half_life_hours(kind)
    says = (f"typed {kind!r}, which halves in {half / 24:.1f} days; it is {(now - item.created_at) / 86400:.0f} days "
            f"old and weighs {weight:.3f} in recall, yet it reads as something stable ({m.group()!r}); as "
            f"{suggested!r} it would weigh {weibull_at(suggested, item.created_at, now):.3f}")
    return Finding("fading", "low", "fact", item.id, "memory_type",
                   {"rule": "stable_text_fast_type", "memory_type": kind, "suggested_type": suggested,
                    "weight": round(weight, 4), "cue": m.group(), "says": says}, "open", item.domain,
                   f"fading {kind}: {mask_secrets(item.topic)[:60]}", item.fingerprint)
