"""Summarisers for the mid-term tier: pluggable, the default deterministic and local.

A summariser turns page texts into a short summary and a keyword set. It runs before
a promotion's transaction, while the source is still durable, so a slow one (an LLM
call) can fail without losing anything.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from memorydesk.core.product.relatedness import LINK_STOPWORDS

_WORD = re.compile(r"[^\W_][\w'-]*", re.UNICODE)
SUMMARY_CHARS = 160


class Summarizer(Protocol):
    def summarize(self, texts: Sequence[str]) -> str: ...

    def keywords(self, texts: Sequence[str]) -> list[str]: ...


class LocalSummarizer:
    """No network, no model: the first sentence of each text, and the most frequent words."""

    def __init__(self, max_keywords: int = 6) -> None:
        self.max_keywords = max_keywords

    def summarize(self, texts: Sequence[str]) -> str:
        firsts = [re.split(r"(?<=[.!?])\s", t.strip(), maxsplit=1)[0] for t in texts if t.strip()]
        summary = " / ".join(firsts)
        return summary if len(summary) <= SUMMARY_CHARS else summary[: SUMMARY_CHARS - 1] + "…"

    def keywords(self, texts: Sequence[str]) -> list[str]:
        counts = Counter(w.lower() for t in texts for w in _WORD.findall(t)
                         if len(w) >= 3 and w.lower() not in LINK_STOPWORDS)
        return [w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[: self.max_keywords]]
