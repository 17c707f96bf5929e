"""What the trail of one conflict holds (``browse.conflicts.trail``), as frozen types the
Conflicts tab reads; ``to_json()`` of each is the export's shape (``browse.conflicts.export``,
the same JSON the trail had when it was a plain dict)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memorydesk.browse.conflicts.rows import ReviewRow

__all__ = ["ChainNode", "Decision", "DeskStep", "Lapsed", "Purge", "RelatedLine", "Restore", "RowRef", "SideStrength",
           "Trail", "TrailChain", "TrailConflict", "TrailFact", "Who"]


@dataclass(frozen=True)
class RowRef:
    """One row of the conflict (an open pair can be flagged many times)."""

    id: str
    created_at: int
    key: int

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "created_at": self.created_at, "key": self.key}


@dataclass(frozen=True)
class TrailConflict:
    """The conflict row, its other rows (an open pair), and its state in the list's words."""

    id: str
    key: int
    type: str
    resolution: str | None
    recorded_winner: str | None
    fact_a: str
    fact_b: str
    created_at: int
    resolved_at: int | None
    workspace_id: str | None
    rows: tuple[RowRef, ...]
    first_at: int
    last_at: int
    state: str = "open"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "key": self.key, "type": self.type, "resolution": self.resolution,
                "recorded_winner": self.recorded_winner, "fact_a": self.fact_a, "fact_b": self.fact_b,
                "created_at": self.created_at, "resolved_at": self.resolved_at, "workspace_id": self.workspace_id,
                "rows": [r.to_json() for r in self.rows], "first_at": self.first_at, "last_at": self.last_at,
                "state": self.state}


@dataclass(frozen=True)
class Purge:
    """Who purged a fact from the desk, and when."""

    actor: str
    at: int


@dataclass(frozen=True)
class TrailFact:
    """One of the two facts in full, with provenance; ``exists`` False: only ``id``, ``state``
    (sentinel, purged or missing) and ``purged`` mean anything."""

    id: str
    exists: bool
    state: str
    purged: Purge | None = None
    key: int | None = None
    domain: str | None = None
    topic: str | None = None
    content: str | None = None
    memory_type: str | None = None
    memory_type_read_as: str | None = None
    veracity: str | None = None
    veracity_read_as: str | None = None
    weight: float = 0.0
    confidence: float = 0.0
    strength: float = 0.0
    created_at: int | None = None
    updated_at: int | None = None
    mention_count: int | None = None
    recall_count: int | None = None
    source_observation_ids: tuple[str, ...] = ()
    embedding_bytes: int | None = None
    agent_id: str | None = None
    agent_name: str | None = None
    agent_known: bool = False
    role: str | None = None
    role_read_as: str | None = None
    agent_role_now: str | None = None
    superseded_by: str | None = None
    valid_until: int | None = None

    def to_json(self) -> dict[str, Any]:
        if not self.exists:
            out: dict[str, Any] = {"id": self.id, "exists": False, "state": self.state}
            if self.purged is not None:
                out["purged"] = {"actor": self.purged.actor, "at": self.purged.at}
            return out
        return {
            "id": self.id, "exists": True, "key": self.key, "state": self.state, "domain": self.domain,
            "topic": self.topic, "content": self.content, "memory_type": self.memory_type,
            "memory_type_read_as": self.memory_type_read_as, "veracity": self.veracity,
            "veracity_read_as": self.veracity_read_as, "weight": self.weight, "confidence": self.confidence,
            "strength": self.strength, "created_at": self.created_at, "updated_at": self.updated_at,
            "mention_count": self.mention_count, "recall_count": self.recall_count,
            "source_observation_ids": list(self.source_observation_ids), "embedding_bytes": self.embedding_bytes,
            "agent_id": self.agent_id, "agent_name": self.agent_name, "agent_known": self.agent_known,
            "role": self.role, "role_read_as": self.role_read_as, "agent_role_now": self.agent_role_now,
            "superseded_by": self.superseded_by, "valid_until": self.valid_until,
        }


@dataclass(frozen=True)
class Who:
    """Who made a fact point at the next: a ``person`` (the desk's history), ``system`` or
    ``human`` (a sentinel), the ``agent`` whose write contradicted, or ``unknown``."""

    kind: str
    name: str | None
    action: str | None = None
    reason: str | None = None
    agent_id: str | None = None
    write: str | None = None

    def to_json(self) -> dict[str, Any]:
        if self.kind == "person":
            return {"kind": self.kind, "name": self.name, "action": self.action, "reason": self.reason}
        if self.kind == "agent":
            return {"kind": self.kind, "name": self.name, "agent_id": self.agent_id, "action": self.action,
                    "write": self.write}
        return {"kind": self.kind, "name": self.name}


@dataclass(frozen=True)
class ChainNode:
    """A fact on a supersession chain. Forward (``newer``): ``next_id`` is what superseded it,
    ``at`` and ``who`` say when and by whom (``cycle``: back to a fact already on the chain);
    a node with ``exists`` False is an id that names no fact. Back (``older``): ``into`` is
    what it was superseded by, ``depth`` how many steps back."""

    id: str
    state: str
    exists: bool = True
    topic: str | None = None
    created_at: int | None = None
    updated_at: int | None = None
    next_id: str | None = None
    at: int | None = None
    who: Who | None = None
    cycle: bool = False
    into: str | None = None
    depth: int | None = None
    after: bool = False  # the file does not say when: ``at`` is the earliest it can have been (a cleanup)

    def to_json(self) -> dict[str, Any]:
        if not self.exists:
            return {"id": self.id, "state": self.state}
        out: dict[str, Any] = {"id": self.id, "topic": self.topic, "state": self.state,
                               "created_at": self.created_at, "updated_at": self.updated_at}
        who = self.who.to_json() if self.who is not None else None
        if self.depth is not None:
            out.update(into=self.into, depth=self.depth, at=self.at, who=who)
            if self.after:
                out["at_known"] = False
        elif self.next_id is not None:
            out["next"] = {"id": self.next_id, "at": self.at, "who": who}
            if self.cycle:
                out["next"]["cycle"] = True
            if self.after:
                out["next"]["at_known"] = False
        return out


@dataclass(frozen=True)
class Lapsed:
    """A supersession that no longer holds: ``id`` pointed at ``into`` from ``at`` (set by
    ``who``; ``after``: at an unknown time, not before ``at``) until a person's change in the desk
    took it back at ``ended_at`` (``ended_by``: the person, the desk's action, the reason and
    its ``entry``); ``back_at``/``back_by``: put back since, by an undo of that change."""

    id: str
    into: str
    at: int | None
    who: Who
    ended_at: int
    ended_by: Who
    entry: int
    after: bool = False
    back_at: int | None = None  # put back since (an undo of the change that took it back)
    back_by: Who | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "into": self.into, "at": self.at, "who": self.who.to_json(),
                               "ended_at": self.ended_at, "ended_by": self.ended_by.to_json(), "entry": self.entry}
        if self.after:
            out["at_known"] = False
        if self.back_by is not None:
            out.update(back_at=self.back_at, back_by=self.back_by.to_json())
        return out


@dataclass(frozen=True)
class TrailChain:
    """One fact's chain: itself then what replaced it (``newer``), what it replaced (``older``),
    and the supersessions of it or into it that a person took back since (``lapsed``)."""

    newer: tuple[ChainNode, ...] = ()
    older: tuple[ChainNode, ...] = ()
    lapsed: tuple[Lapsed, ...] = ()  # supersessions of it, or into it, that a person took back (oldest first)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"newer": [n.to_json() for n in self.newer], "older": [o.to_json() for o in self.older]}
        if self.lapsed:
            out["lapsed"] = [x.to_json() for x in self.lapsed]
        return out

    @property
    def told(self) -> bool:
        """Whether anything happened to it: a supersession now, earlier versions, or one taken back."""
        return bool(self.older or len(self.newer) > 1 or self.lapsed)


@dataclass(frozen=True)
class SideStrength:
    """One side of the rule: confidence × veracity weight = strength."""

    confidence: float
    weight: float
    strength: float
    veracity_read_as: str

    def to_json(self) -> dict[str, Any]:
        return {"confidence": self.confidence, "weight": self.weight, "strength": self.strength,
                "veracity_read_as": self.veracity_read_as}


@dataclass(frozen=True)
class Decision:
    """The product's rule recomputed on the facts as they are now (``rule_winner`` None: a
    fact is missing), and whether the recorded winner is what it gives (``matches``)."""

    recorded_winner: str | None
    rule_winner: str | None = None
    matches: bool | None = None
    tie: bool = False
    newer: str | None = None
    lines: tuple[str, ...] = ()
    a: SideStrength | None = None
    b: SideStrength | None = None
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"recorded_winner": self.recorded_winner, "rule_winner": self.rule_winner,
                               "matches": self.matches}
        if self.a is not None and self.b is not None:
            out.update(tie=self.tie, newer=self.newer, lines=list(self.lines), a=self.a.to_json(), b=self.b.to_json())
        if self.note is not None:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class Restore:
    """Whether Restore Loser can bring fact A back, and what it says it will do."""

    possible: bool
    says: str
    replaces: Any = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"possible": self.possible, "says": self.says}
        if self.possible:
            out["replaces"] = self.replaces
        return out


@dataclass(frozen=True)
class DeskStep:
    """What a person did to the conflict in the desk."""

    id: int
    at: int
    action: str
    actor: str
    reason: str | None
    undone: bool

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "at": self.at, "action": self.action, "actor": self.actor, "reason": self.reason,
                "undone": self.undone}


@dataclass(frozen=True)
class RelatedLine:
    """Another conflict of the same topic or of either fact, and why it is related."""

    id: str
    ids: tuple[str, ...]
    type: str
    state: str
    fact_a: str
    fact_b: str
    topic: str | None
    domain: str | None
    last_at: int
    count: int
    why: tuple[str, ...]
    dangling: bool

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "ids": list(self.ids), "type": self.type, "state": self.state, "fact_a": self.fact_a,
                "fact_b": self.fact_b, "topic": self.topic, "domain": self.domain, "last_at": self.last_at,
                "count": self.count, "why": list(self.why), "dangling": self.dangling}


@dataclass(frozen=True)
class Trail:
    """The whole trail of one conflict (see ``browse.conflicts.trail``); ``reviews`` are the
    people's decisions on it, oldest first."""

    conflict: TrailConflict
    a: TrailFact
    b: TrailFact
    decision: Decision
    chain_a: TrailChain
    chain_b: TrailChain
    reviews: tuple[ReviewRow, ...]
    restore: Restore
    history: tuple[DeskStep, ...]
    related: tuple[RelatedLine, ...]

    def fact(self, side: str) -> TrailFact:
        """Fact ``"a"`` or ``"b"``."""
        return self.a if side == "a" else self.b

    def chain(self, side: str) -> TrailChain:
        return self.chain_a if side == "a" else self.chain_b

    def to_json(self) -> dict[str, Any]:
        return {"conflict": self.conflict.to_json(), "facts": {"a": self.a.to_json(), "b": self.b.to_json()},
                "decision": self.decision.to_json(),
                "chains": {"a": self.chain_a.to_json(), "b": self.chain_b.to_json()},
                "reviews": [r.to_json() for r in self.reviews], "restore": self.restore.to_json(),
                "history": [h.to_json() for h in self.history], "related": [r.to_json() for r in self.related]}
