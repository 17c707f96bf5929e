"""What a write changed, as a typed value, and who it reaches (docs/architecture.md, "The change flow").

A ``ChangeSet`` names the kinds of entity a change touched (``Kind``, an enum: a kind
that does not exist is an error where it is named, not a refresh that silently never
happens), the ids of each kind that changed (``None``: any of that kind may have), and,
as a flag of its own, whether the history list changed. Every write of the desk writes a
history row, so "history" is not a kind every view would subscribe to: only a view that
lists the history asks for it (``shows_history``).

A view states once what it shows (``ShowsChanges``): the kinds, whether it lists the
history, and — where it shows only some of a kind — which ids (``showing``). A change
``reaches`` a view when it touches one of its kinds at an id the view shows, or the
history the view lists. Another program's change (``external``) names the kinds its
tables' watermarks moved (``store.watermarks``), any id of them; when even that cannot be
told (``from_outside``), every kind.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar, Protocol


class Kind(StrEnum):
    """The kinds of entity a change can touch."""

    FACT = "fact"
    POLICY = "policy"
    GRANT = "grant"
    DOMAIN = "domain"
    CONFLICT = "conflict"
    EDGE = "edge"
    BELIEF = "belief"
    RECEIPT = "receipt"
    TIER = "tier"
    NOTE = "note"
    WORKING_ITEM = "working_item"  # an item of the hot tier (working_memory_items)
    REVIEW = "review"  # a review finding's state (dismissed, reviewed, quarantined)
    FORGET = "forget"  # a forget receipt kept in the history (a record: no memory changed)

    @classmethod
    def named(cls, name: str | Kind) -> Kind:
        """``name`` as a kind; a name that is no kind is refused, saying where kinds are listed."""
        try:
            return cls(name)
        except ValueError:
            raise ValueError(f"{name!r} is not a kind of change (core.changes.Kind lists them)") from None


def kinds(names: Iterable[str | Kind]) -> frozenset[Kind]:
    return frozenset(Kind.named(n) for n in names)


#: which ids of a kind a view shows: a container of ids, or None for every one of them
Shown = Container[str] | None


class ShowsChanges(Protocol):
    """What a view shows, stated once (``DeskTab`` implements it)."""

    kinds: ClassVar[frozenset[Kind]]
    shows_history: ClassVar[bool]

    def showing(self, kind: Kind) -> Shown: ...


@dataclass(frozen=True)
class ChangeSet:
    """``changed``: ids per kind (``None``: any of that kind); ``history``: the history list
    changed (``history_ids``: its new rows); ``external``: another program wrote it (a view
    reloads keeping its selection rather than patching rows it knows)."""

    changed: Mapping[Kind, frozenset[str] | None] = field(default_factory=dict)
    history: bool = False
    history_ids: frozenset[int] = frozenset()
    external: bool = False

    @classmethod
    def of(cls, ids: Mapping[str | Kind, Iterable[str] | None], history_ids: Iterable[int] = (),
           history: bool | None = None) -> ChangeSet:
        """From ids per kind name (an empty or None list: any of that kind); the history
        changed when it got rows (or when ``history`` says so)."""
        changed: dict[Kind, frozenset[str] | None] = {}
        for name, found in ids.items():
            kind = Kind.named(name)
            known = frozenset(str(i) for i in found) if found is not None else None
            changed[kind] = _union(changed[kind], known) if kind in changed else (known or None)
        hids = frozenset(int(h) for h in history_ids)
        return cls(changed, bool(hids) if history is None else history, hids)

    @classmethod
    def of_kinds(cls, names: Iterable[str | Kind], history: bool = True) -> ChangeSet:
        """Any of these kinds may have changed (long work that writes many rows)."""
        return cls({k: None for k in kinds(names)}, history)

    @classmethod
    def outside(cls, names: Iterable[str | Kind], history: bool = False) -> ChangeSet:
        """Another program changed these kinds (any of their ids), and the history if ``history``."""
        return cls({k: None for k in kinds(names)}, history, frozenset(), True)

    @classmethod
    def from_outside(cls) -> ChangeSet:
        """Another program changed the file, and what is not known: every kind."""
        return cls.outside(Kind, True)

    @property
    def kinds(self) -> frozenset[Kind]:
        return frozenset(self.changed)

    def touches(self, names: Iterable[str | Kind]) -> bool:
        return bool(self.kinds & kinds(names))

    def ids_of(self, kind: str | Kind) -> frozenset[str] | None:
        """The ids of ``kind`` that changed (empty: none did); None when unknown (any may have)."""
        kind = Kind.named(kind)
        if kind not in self.changed:
            return frozenset()
        return self.changed[kind]

    def reaches(self, view: ShowsChanges) -> bool:
        """Does this change alter what ``view`` shows?"""
        if self.history and view.shows_history:
            return True
        for kind in self.kinds & view.kinds:
            ids, shown = self.changed[kind], view.showing(kind)
            if ids is None or shown is None or any(i in shown for i in ids):
                return True
        return False

    def merged(self, other: ChangeSet | None) -> ChangeSet:
        """Both changes as one (a hidden view is handed what it missed, once)."""
        if other is None:
            return self
        changed = dict(self.changed)
        for kind, ids in other.changed.items():
            changed[kind] = _union(changed[kind], ids) if kind in changed else ids
        return ChangeSet(changed, self.history or other.history, self.history_ids | other.history_ids,
                         self.external or other.external)


def _union(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    return None if a is None or b is None else a | b
