"""One line of the history (``Event``) and what every source of it reads with (``Context``).

An event's ``reason`` is a reason — why it happened: what the person typed, the conflict
type that superseded a fact, the sentinel that set it aside — and nothing else; what a row
says of itself (a fact's type and veracity, an edge's weight, a policy's advisory role) is
its ``details``. ``entry`` is the desk's own history entry number, the one “undo of entry
43” names (None for what agents and the product wrote).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from memorydesk.core.product.text import one_line
from memorydesk.core.review.shown import shown
from memorydesk.store.workspace import Workspace

__all__ = ["Context", "Event", "Group", "Source", "page", "rows", "snippet"]


class Event(NamedTuple):
    """One line of the history (``to_json`` is the command line's contract). Immutable, read by
    attribute; a named tuple rather than a frozen dataclass: a long history makes hundreds of
    thousands, and a tuple is made four times faster."""

    at: int
    actor: str
    actor_kind: str  # agent | reviewer | system
    kind: str
    action: str
    ids: tuple[str, ...]
    summary: str
    reason: str
    history_id: int | None = None  # the desk's own changes: its entry number
    undone_by: int | None = None
    detail: str = ""  # the desk's stored detail (JSON), for the before/after pane
    after: bool = False  # the file does not say when: ``at`` is the earliest it can have happened
    details: str = ""  # what the row says of itself (not a reason)

    @property
    def what(self) -> str:
        """Kind and action as the History tab shows them: “fact delete · undone” once undone."""
        return f"{self.kind} {self.action}" + (" · undone" if self.undone_by else "")

    @property
    def entry(self) -> int | None:
        return self.history_id

    def to_json(self) -> dict[str, Any]:
        return {"at": self.at, "actor": self.actor, "actor_kind": self.actor_kind, "kind": self.kind,
                "action": self.action, "ids": list(self.ids), "summary": self.summary, "reason": self.reason,
                "undone": self.undone_by is not None, "at_known": not self.after, "entry": self.history_id,
                "undone_by": self.undone_by, "details": self.details}


@dataclass
class Context:
    """What every source needs: the file's tables, agents by id, what the desk's history did
    (``browse.history.desk_rows.DeskRecords``)."""

    ws: Workspace
    agents: dict[str, tuple[str, str | None]]  # id → (name, role)
    desk: Any  # DeskRecords
    since: int | None
    until: int | None
    cache: dict[str, Any] = field(default_factory=dict)
    every_fact: dict[str, tuple[Any, Any, Any]] | None = None  # id → (created_at, agent, role): a whole walk

    def facts_named(self, ids: Iterable[Any]) -> dict[str, tuple[Any, Any, Any]]:
        """(created_at, authored_by_agent_id, authored_by_role) of the facts among ``ids`` (absent: no such
        fact): looked up for a page; a walk of the whole history reads every fact's once (``every_fact``)."""
        if self.every_fact is not None:
            return self.every_fact
        wanted = list({i for i in ids if i is not None})
        if not wanted:
            return {}
        marks = ",".join("?" * len(wanted))
        return {r[0]: r[1:] for r in rows(self, f"SELECT id, created_at, authored_by_agent_id, authored_by_role "
                                                f"FROM {self.ws.layout.facts.name} WHERE id IN ({marks})", wanted)}

    def read_every_fact(self) -> None:
        f = self.ws.layout.facts.name
        self.every_fact = {r[0]: r[1:] for r in rows(
            self, f"SELECT id, created_at, authored_by_agent_id, authored_by_role FROM {f}", [])}

    def who(self, agent_id: str | None, role: str | None) -> tuple[str, str]:
        if agent_id:
            return self.agents.get(agent_id, (agent_id, None))[0], "agent"
        if role:
            return role, "agent"
        return "unknown", "system"

    def in_range(self, at: int) -> bool:
        return (self.since is None or at >= self.since) and (self.until is None or at <= self.until)

    def kept(self, events: list[Event]) -> list[Event]:
        """The events within the time range (all of them when there is none)."""
        if self.since is None and self.until is None:
            return events
        return [e for e in events if self.in_range(e.at)]


#: one row's events: (its position in the source, its time, the events)
Group = tuple[int, int, list[Event]]
Source = Callable[[Context, "int | None", int], list[Group]]


#: a text as shown, once per text: a superseded fact is told twice (its creation and its loss), topics
#: repeat, and finding secrets and personal data is most of a long history's time
_shown = functools.lru_cache(maxsize=1 << 16)(shown)


def snippet(topic: str, content: str, domain: str) -> str:
    """A fact in one line, its secrets and personal data masked as the review masks them
    (``core.review.shown``: the one rule for the tab, the command line and the exports)."""
    return f"[{one_line(domain, 40)}/{one_line(_shown(topic), 40)}] {one_line(_shown(content), 90)}"


def rows(ctx: Context, sql: str, args: list[Any]) -> list[tuple]:
    with ctx.ws.read() as conn:  # the driver's own cursor: plain tuples, many thousands at a time
        return conn.connection.driver_connection.execute(sql, tuple(args)).fetchall()


def page(ctx: Context, columns: str, source: str, pos: int | None, n: int, key: str = "rowid") -> list[tuple]:
    """``key, columns`` of the ``n`` rows of ``source`` written last before position ``pos`` (all
    when None), newest first."""
    cond, args = (f"{key} < ?", [pos]) if pos is not None else ("1", [])
    return rows(ctx, f"SELECT {key}, {columns} FROM {source} WHERE {cond} ORDER BY {key} DESC LIMIT ?", [*args, n])
