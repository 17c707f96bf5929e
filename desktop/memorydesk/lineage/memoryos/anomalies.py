"""What a MemoryOS import reports as an anomaly: its kinds and the row it reports.

Each anomaly names the user (``None`` for an assistant's file), the file relative to
the data directory, the JSON path inside it and one sentence of detail. Paths follow
the shape ``sessions.<session>.details[page_id=<page>].meta_info``,
``user_profiles.<user>.data``, ``knowledge_base[3].knowledge`` or ``[2].agent_response``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: The kinds, in the order a report lists them.
KINDS = (
    "interrupted_migration",     # STM holds fewer than its capacity while MTM holds pages (needs --stm-capacity)
    "duplicate_page_id",         # one per page id stored more than once in a user's mid_term.json
    "dangling_page_link",        # one per pre_page/next_page naming a page that exists nowhere
    "llm_error_text",            # one per place an LLM error string is stored as data
    "fallback_session",          # one per session with the fallback summary and no keywords
    "duplicate_knowledge",       # one per knowledge text stored more than once in a file's list
    "access_frequency_mismatch",  # a key not in sessions, or a session missing from it
    "ambiguous_local_time",      # a wall-clock time the zone skips or repeats (with the choice made)
    "embedding_invalid",         # not 384 finite floats of unit length: kept out, never recomputed
    "session_evicted",           # a session imported before that MemoryOS has since dropped
)


@dataclass(frozen=True)
class Anomaly:
    kind: str
    user: str | None
    file: str
    path: str
    detail: str
    extra: dict[str, Any] = field(default_factory=dict)  # kind-specific fields (interrupted_migration's interval)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "user": self.user, "file": self.file, "path": self.path, "detail": self.detail,
                **self.extra}

    @property
    def location(self) -> str:
        return f"{self.file} {self.path}"


def ordered(anomalies: list[Anomaly]) -> list[Anomaly]:
    """By kind (in ``KINDS`` order), then as found."""
    rank = {kind: i for i, kind in enumerate(KINDS)}
    return sorted(anomalies, key=lambda a: rank.get(a.kind, len(KINDS)))
