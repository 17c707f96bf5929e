"""A finding of the review queue: what kind, how bad, which item, which field, the evidence.

``to_json`` is the command-line contract (``memory-desk review --json``): exactly
``{kind, severity, item_kind, item_id, field, evidence, state}``; ``kind`` is a
``ReviewKind``'s name. Evidence never holds a secret whole (``mask``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from memorydesk.core.review.kinds import ReviewKind

#: every kind of finding, in the order lists show them (``core.review.kinds.ReviewKind``)
KINDS: tuple[ReviewKind, ...] = tuple(ReviewKind)
SEVERITIES = ("low", "medium", "high", "critical")
ITEM_KINDS = ("fact", "policy", "note", "working_item")
STATES = ("open", "dismissed", "quarantined", "reviewed")
#: how far an item reaches: an active policy goes into every dispatch
REACH = {"policy": 3, "fact": 2, "note": 1, "working_item": 0}


def severity_rank(severity: str) -> int:
    return SEVERITIES.index(severity)


@dataclass
class Finding:
    kind: str
    severity: str
    item_kind: str
    item_id: str
    field: str
    evidence: dict[str, Any]
    state: str = "open"
    domain: str = ""
    title: str = ""  # one line for a list
    fingerprint: str = ""  # of the item(s) as scanned: a dismissal holds until it changes
    related: list[str] = field(default_factory=list)  # other item ids the finding names

    @property
    def key(self) -> str:
        """Stable identity across scans: kind, item, field and what was found — for a secret,
        personal data or an injection, which one: its masked excerpt (the value masked, the words
        around it), so a decision on one of many phone numbers in a note covers that one only."""
        what = self.evidence.get("rule") or self.evidence.get("type") or ""
        if self.kind in ("secret", "personal_data", "injection"):
            what = f"{what}|{self.evidence.get('excerpt', '')}"
        elif self.kind == "duplicate":
            what = ",".join(sorted(self.evidence.get("cluster", [])))
        elif self.kind == "losing_correction":
            what = str(self.evidence.get("older", {}).get("id", ""))
        raw = f"{self.kind}|{self.item_kind}|{self.item_id}|{self.field}|{what}"
        return hashlib.blake2b(raw.encode("utf-8", "replace"), digest_size=10).hexdigest()

    def sort_key(self) -> tuple:
        return (-severity_rank(self.severity), -REACH.get(self.item_kind, 0), KINDS.index(self.kind), self.item_id)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "severity": self.severity, "item_kind": self.item_kind, "item_id": self.item_id,
                "field": self.field, "evidence": self.evidence, "state": self.state}

    def dumps(self) -> str:
        extra = {"domain": self.domain, "title": self.title, "fingerprint": self.fingerprint, "related": self.related}
        return json.dumps({**self.to_json(), **extra}, ensure_ascii=False, separators=(",", ":"))

    @staticmethod
    def loads(text: str) -> Finding:
        d = json.loads(text)
        return Finding(d["kind"], d["severity"], d["item_kind"], d["item_id"], d["field"], d["evidence"],
                       d.get("state", "open"), d.get("domain", ""), d.get("title", ""), d.get("fingerprint", ""),
                       list(d.get("related", [])))


def worst_first(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=Finding.sort_key)
