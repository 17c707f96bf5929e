"""The desk's tabs, in the order they are shown. Adding a tab is one entry here plus the
tab's own package (a ``DeskTab`` subclass, see ``ui.tab``).

Each entry names its tab's module instead of importing it: the window builds the tab it
shows first and loads the others after its first paint (``ui.shell.startup``), so a tab's
modules (the graph's layout, the lineage raster, …) never delay the first rows. ``TABS``
(every tab class) imports them all when asked for.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memorydesk.ui.tab import DeskTab


@dataclass(frozen=True)
class TabSpec:
    """A tab by name, title and where its class is (imported by ``load``)."""

    name: str
    title: str
    module: str
    cls: str

    def load(self) -> type[DeskTab]:
        tab = getattr(importlib.import_module(self.module), self.cls)
        assert (tab.name, tab.title) == (self.name, self.title), f"{self.module}.{self.cls} is not {self.name}"
        return tab


SPECS: tuple[TabSpec, ...] = (
    TabSpec("facts", "Facts", "memorydesk.ui.facts.tab", "FactsTab"),
    TabSpec("policies", "Policies", "memorydesk.ui.policies.tab", "PoliciesTab"),
    TabSpec("graph", "Knowledge Graph", "memorydesk.ui.graph.tab", "GraphTab"),
    TabSpec("grants", "Grants", "memorydesk.ui.grants.tab", "GrantsTab"),
    TabSpec("conflicts", "Conflicts", "memorydesk.ui.conflicts.tab", "ConflictsTab"),
    TabSpec("lineage", "Lineage", "memorydesk.ui.lineage.tab", "LineageTab"),
    TabSpec("history", "History", "memorydesk.ui.history.tab", "HistoryTab"),
    TabSpec("review", "Review", "memorydesk.ui.review.tab", "ReviewTab"),
)


def tab_names() -> tuple[str, ...]:
    return tuple(s.name for s in SPECS)


def spec(name: str) -> TabSpec | None:
    return next((s for s in SPECS if s.name == name), None)


def __getattr__(name: str) -> Any:  # ``TABS``: every tab class, imported on first use
    if name == "TABS":
        return [s.load() for s in SPECS]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
