"""The desk's tabs, in the order they are shown. Adding a tab is one entry here plus the
tab's own package (a ``DeskTab`` subclass, see ``ui.tab``)."""

from __future__ import annotations

from memorydesk.ui.conflicts.tab import ConflictsTab
from memorydesk.ui.facts.tab import FactsTab
from memorydesk.ui.grants.tab import GrantsTab
from memorydesk.ui.graph.tab import GraphTab
from memorydesk.ui.history import HistoryTab
from memorydesk.ui.lineage.tab import LineageTab
from memorydesk.ui.policies.tab import PoliciesTab
from memorydesk.ui.review.tab import ReviewTab
from memorydesk.ui.tab import DeskTab

TABS: list[type[DeskTab]] = [FactsTab, PoliciesTab, GraphTab, GrantsTab, ConflictsTab, LineageTab, HistoryTab,
                             ReviewTab]


def tab_names() -> tuple[str, ...]:
    return tuple(t.name for t in TABS)
