"""The typed change set: kinds are an enum (a typo fails where it is written), the history is
a flag of its own, and a change reaches a view only at the kinds and ids the view shows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import pytest

from memorydesk.core.changes import ChangeSet, Kind, Shown
from memorydesk.memory.history.record import ChangeResult


@dataclass
class View:
    """A view as the router sees one: the kinds it shows, and the ids it shows of some."""

    kinds: ClassVar[frozenset[Kind]] = frozenset({Kind.FACT, Kind.CONFLICT})
    shows_history: ClassVar[bool] = False
    shown: dict[Kind, set[str]] = field(default_factory=dict)

    def showing(self, kind: Kind) -> Shown:
        return self.shown.get(kind)


@dataclass
class ReceiptView(View):
    kinds: ClassVar[frozenset[Kind]] = frozenset({Kind.RECEIPT, Kind.TIER})


@dataclass
class HistoryView(View):
    kinds: ClassVar[frozenset[Kind]] = frozenset()
    shows_history: ClassVar[bool] = True


def test_a_change_result_is_a_typed_change_set_with_the_history_as_a_flag() -> None:
    result = ChangeResult("conflict", ["c1"], history_ids=[7], message="kept A", touched={"fact": ["f1", "f2"]})
    changes = result.changes
    assert changes.kinds == {Kind.CONFLICT, Kind.FACT}  # "history" is not a kind
    assert changes.history and changes.history_ids == {7}
    assert changes.ids_of(Kind.FACT) == {"f1", "f2"} and changes.ids_of("conflict") == {"c1"}
    assert changes.ids_of(Kind.POLICY) == frozenset()


def test_a_kind_that_does_not_exist_is_refused_where_it_is_named() -> None:
    with pytest.raises(ValueError, match="'fatc' is not a kind of change"):
        ChangeResult("fatc", ["f1"], [1]).changes
    with pytest.raises(ValueError, match="'polcy'"):
        ChangeSet.of_kinds({"fact", "polcy"})
    with pytest.raises(ValueError, match="'history' is not a kind"):
        ChangeSet.of({"history": ["1"]})


def test_ids_the_view_does_not_show_do_not_reach_it() -> None:
    view = View({Kind.FACT: {"f1", "f2"}})
    assert ChangeSet.of({"fact": ["f2", "f9"]}, [1]).reaches(view)
    assert not ChangeSet.of({"fact": ["f9"]}, [1]).reaches(view)
    assert not ChangeSet.of({"policy": ["p1"]}, [1]).reaches(view)  # a kind it does not show
    assert ChangeSet.of({"conflict": ["c1"]}, [1]).reaches(view)  # it shows every conflict (None)
    assert ChangeSet.of_kinds({"fact"}).reaches(view)  # unknown ids: any may be shown
    assert ChangeSet.from_outside().reaches(View({Kind.FACT: set()}))


def test_another_programs_change_reaches_the_views_of_the_kinds_it_moved() -> None:
    receipts = ChangeSet.outside({Kind.RECEIPT})
    assert receipts.external and receipts.ids_of(Kind.RECEIPT) is None and receipts.ids_of(Kind.FACT) == frozenset()
    assert receipts.reaches(ReceiptView())
    assert not receipts.reaches(View())  # a view of facts and conflicts: not it
    assert not receipts.reaches(HistoryView()) and ChangeSet.outside((), history=True).reaches(HistoryView())
    assert not receipts.touches({Kind.FACT, Kind.POLICY}) and ChangeSet.outside({"fact"}).touches({Kind.FACT})
    with pytest.raises(ValueError, match="not a kind of change"):
        ChangeSet.outside({"facts"})


def test_the_history_flag_reaches_only_a_view_that_lists_the_history() -> None:
    write = ChangeSet.of({"receipt": []}, [3])
    assert write.history
    assert write.reaches(HistoryView())
    assert not write.reaches(View())
    assert not ChangeSet.of({"fact": ["f1"]}).reaches(HistoryView())  # no history row: no history change


def test_merged_changes_keep_every_id_and_unknown_wins() -> None:
    a = ChangeSet.of({"fact": ["f1"]}, [1])
    b = ChangeSet.of({"fact": ["f2"], "edge": ["e1"]}, [2])
    both = a.merged(b)
    assert both.ids_of("fact") == {"f1", "f2"} and both.ids_of("edge") == {"e1"} and both.history_ids == {1, 2}
    assert a.merged(ChangeSet.of_kinds({"fact"})).ids_of("fact") is None
    assert a.merged(ChangeSet.from_outside()).external
    assert a.merged(None) is a


def test_an_empty_list_of_ids_means_any_of_that_kind() -> None:
    result = ChangeResult("fact", [], [4], touched={"domain": []})
    assert result.changes.ids_of("fact") is None and result.changes.ids_of("domain") is None
    same_kind = ChangeResult("fact", ["f1"], [5], touched={"fact": ["f2"]})
    assert same_kind.changes.ids_of("fact") == {"f1", "f2"}
