"""What a view outside the item shows of a memory text: the one rule for history, compare,
trails, command output and exports.

``shown(text)`` masks every secret whole (``secrets.find_secrets``) and every piece of personal
data (``personal.find_personal``) the way the Review tab's excerpts do — the same spans, the
same masks (``mask.masked``) — so a summary or a before/after cell never says more than the
review's finding does. The item itself (the Facts tab's detail of a fact, the agent's own
note) is the only place its text is shown in clear.
"""

from __future__ import annotations

from memorydesk.core.review.mask import masked
from memorydesk.core.review.personal import find_personal
from memorydesk.core.review.secrets import find_secrets


def shown_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, mask) of every secret and, outside them, every piece of personal data."""
    if not text:
        return []
    spans = [(h.start, h.end, h.masked) for h in find_secrets(text)]
    spans += [(h.start, h.end, h.masked) for h in find_personal(text)
              if not any(h.start < e and s < h.end for s, e, _m in spans)]
    return spans


def shown(text: str) -> str:
    """``text`` with its secrets and personal data masked (see the module's docstring)."""
    if not text:
        return text
    return masked(text, shown_spans(text))


__all__ = ["shown", "shown_spans"]
