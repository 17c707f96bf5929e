"""A reviewer action as a small typed, versioned value (docs/architecture.md, "The undo model").

Each action is a frozen dataclass: its class says what it is (``entity``, ``name``: the
history row's ``entity`` and ``action`` columns) and which ``version`` of its detail it
writes; its fields are exactly what it stores to undo (the history row's ``detail``,
JSON); ``forward`` does it, ``inverse`` undoes it (``undoable = False``: it cannot be
undone), ``touched`` names the other kinds of entity it changes, with ids.

``from_detail`` reads a stored detail back into the type — rows of every earlier version
included: a detail without ``"v"`` is version 1 (the format before versions were
written), and ``upgrade`` turns an older version into the current fields. An action is
registered by being named in ``memory.actions.registry.ACTIONS``, nowhere else.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Self

from sqlalchemy import Connection

from memorydesk.core.errors import MemoryDeskError
from memorydesk.store import Workspace

#: what a history detail holds once a purge has erased the text of the facts it named
PURGED = {"purged": True}


@dataclasses.dataclass(frozen=True)
class ReviewerAction:
    entity: ClassVar[str]
    name: ClassVar[str]
    version: ClassVar[int] = 1
    undoable: ClassVar[bool] = True

    @classmethod
    def key(cls) -> str:
        return f"{cls.entity}.{cls.name}"

    # -- what it does ------------------------------------------------------------------------
    def forward(self, ws: Workspace, conn: Connection) -> None:
        raise NotImplementedError

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        raise MemoryDeskError(f"a {self.name} of a {self.entity} cannot be undone")

    def touched(self) -> dict[str, list[str]]:
        """Other kinds of entity it changes, with their ids (a conflict decision changes facts)."""
        return {}

    # -- what it stores ----------------------------------------------------------------------
    def to_detail(self) -> dict[str, Any]:
        return {"v": self.version, **{f.name: getattr(self, f.name) for f in dataclasses.fields(self)}}

    @classmethod
    def from_detail(cls, detail: dict[str, Any]) -> Self:
        if detail == PURGED:
            raise MemoryDeskError(f"this {cls.name} of a {cls.entity} named facts that were purged since; its "
                                  "details were erased with their text, so it cannot be undone or redone")
        stored = dict(detail)
        version = int(stored.pop("v", 1))
        if version > cls.version:
            raise MemoryDeskError(f"this {cls.name} of a {cls.entity} was recorded by a newer Memory Desk (detail "
                                  f"version {version}; this build reads up to {cls.version}); update Memory Desk")
        if version < cls.version:
            stored = cls.upgrade(stored, version)
        names = {f.name for f in dataclasses.fields(cls)}
        try:
            return cls(**{k: v for k, v in stored.items() if k in names})
        except TypeError as exc:
            raise MemoryDeskError(f"the history row of this {cls.name} of a {cls.entity} is incomplete "
                                  f"({exc})") from exc

    @classmethod
    def upgrade(cls, detail: dict[str, Any], version: int) -> dict[str, Any]:
        """An older version's detail as this version's fields (each action that changed its format says how)."""
        return detail
