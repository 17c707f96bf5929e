"""The plumbing every tab shares (``ui.tab.DeskTab``, ``ui.runner``): a navigation to a tab
that has not loaded lands when it loads, a stale result is dropped, and a failure of either
runner (the database worker, a tab's own thread) reaches the one error path."""

from __future__ import annotations

import threading
import time

import guihelp
import pytest

from memorydesk.core.errors import MemoryDeskError


class Probe:
    """A tab of the desk's own kind (a ``DeskTab`` subclass) on a real session, that records
    what lands and what arrives."""

    def __init__(self, qtbot, ws) -> None:
        from memorydesk.ui.operations import Operations
        from memorydesk.ui.session import DeskSession
        from memorydesk.ui.tab import DeskTab

        class ProbeTab(DeskTab):
            name, title = "probe", "Probe"

            def __init__(self) -> None:
                super().__init__()
                self.landed: list[dict] = []

            def show_target(self, target: dict) -> None:
                self.landed.append(target)

        self.ops = Operations()
        self.session = DeskSession(ws, self.ops, "tester", None)
        self.tab = ProbeTab()
        qtbot.addWidget(self.tab)
        self.tab.open(self.session)
        self.failures: list[tuple[str, str]] = []
        self.ops.failed.connect(lambda label, message: self.failures.append((label, message)))
        self.jobs: list[tuple[str, object]] = []
        self.ops.job_started.connect(lambda job: self.jobs.append(("started", job)))
        self.ops.job_finished.connect(lambda job: self.jobs.append(("finished", job)))

    def close(self) -> None:
        self.tab.close()
        self.ops.shutdown()


@pytest.fixture
def probe(qtbot, qapp, sample_path):
    from memorydesk.store import open_workspace

    ws = open_workspace(sample_path, read_only=True)
    made = Probe(qtbot, ws)
    yield made
    made.close()
    ws.close()


def test_a_target_asked_for_while_loading_lands_when_the_tab_is_ready(probe) -> None:
    tab = probe.tab
    tab.navigate({"fact": "shown-at-once"})  # a tab that never loads anything: at once
    assert tab.landed == [{"fact": "shown-at-once"}]
    tab.mark_loading()
    tab.navigate({"fact": "first"})
    tab.navigate({"fact": "second"})  # the latest asked for wins
    assert tab.landed == [{"fact": "shown-at-once"}] and tab.holding == {"fact": "second"}
    assert tab.mark_ready() is True
    assert tab.landed[-1] == {"fact": "second"} and tab.holding is None
    assert tab.mark_ready() is False and len(tab.landed) == 2  # it lands once
    tab.hold({"select": "after the reload"})  # held while ready: waits for the next mark_ready
    assert tab.landed[-1] == {"fact": "second"}
    tab.mark_ready()
    assert tab.landed[-1] == {"select": "after the reload"}


def test_a_result_whose_read_was_overtaken_is_dropped(probe, qtbot) -> None:
    tab, seen = probe.tab, []

    def slow(_ws):
        time.sleep(0.3)
        return "old"

    old = tab.latest.take("list")
    tab.run(slow, seen.append, token=old)
    new = tab.latest.take("list")  # a newer read of the list starts before the old one is back
    assert not old.fresh and new.fresh
    tab.run(lambda _ws: "new", seen.append, token=new)
    tab.run(lambda _ws: "other", seen.append, token=tab.latest.current("detail"))  # another thing: its own count
    qtbot.waitUntil(lambda: probe.ops.pending == 0, timeout=10_000)
    assert seen == ["new", "other"]
    tab.compute(lambda: "computed late", seen.append, token=tab.latest.current("list"))
    tab.latest.take("list")
    qtbot.waitUntil(lambda: not tab.computing, timeout=10_000)
    assert seen == ["new", "other"]  # the tab's own thread drops it as well


def test_results_for_a_closed_tab_are_dropped(probe, qtbot) -> None:
    tab, seen = probe.tab, []
    tab.run(lambda _ws: (time.sleep(0.2), "late")[1], seen.append)
    tab.close()
    tab.run(lambda _ws: "after close", seen.append)
    qtbot.waitUntil(lambda: probe.ops.pending == 0, timeout=10_000)
    assert seen == [] and not tab.computing


@pytest.mark.logs_error("operation failed: reading the list", "operation failed: laying out")
def test_every_runner_reports_its_failures_on_the_one_error_path(probe, qtbot) -> None:
    tab, told = probe.tab, []

    def broken(*_a):
        raise ZeroDivisionError("a bug of ours")

    tab.run(broken, told.append, label="reading the list", on_failure=lambda e: told.append(type(e).__name__))
    qtbot.waitUntil(lambda: len(probe.failures) == 1, timeout=10_000)
    job = tab.compute(broken, told.append, label="laying out", title="Laying out the probe")
    qtbot.waitUntil(lambda: len(probe.failures) == 2, timeout=10_000)
    assert told == ["ZeroDivisionError"]  # on_failure ran; on_done never did
    (label_db, db), (label_thread, thread) = probe.failures
    assert (label_db, label_thread) == ("reading the list", "laying out")
    for message in (db, thread):  # one sentence, the same for both runners
        assert message.startswith("Unexpected error (ZeroDivisionError: a bug of ours).")
    assert probe.jobs == [("started", job), ("finished", job)]  # its progress left the status bar

    def refused(*_a):
        raise MemoryDeskError("That fact was changed by an agent since you opened it.")

    tab.compute(refused, told.append, label="checking")
    qtbot.waitUntil(lambda: len(probe.failures) == 3, timeout=10_000)
    assert probe.failures[-1] == ("checking", "That fact was changed by an agent since you opened it.")

    from memorydesk.ui.operations import Cancelled

    def stopped(job):
        job.cancel()
        job.check()

    tab.compute(stopped, told.append, label="stopping", title="Stopped by the person")
    qtbot.waitUntil(lambda: not tab.computing, timeout=10_000)
    assert len(probe.failures) == 3 and probe.jobs[-1][0] == "finished"  # a stop is not an error
    assert issubclass(Cancelled, MemoryDeskError)


def test_a_tab_thread_is_its_own_and_ends_with_the_tab(probe, qtbot) -> None:
    tab, threads = probe.tab, {}
    tab.run(lambda _ws: threading.current_thread().name, lambda n: threads.setdefault("db", n))
    tab.compute(lambda: threading.current_thread().name, lambda n: threads.setdefault("own", n))
    qtbot.waitUntil(lambda: len(threads) == 2, timeout=10_000)
    assert threads["db"].startswith("memorydesk-op") and threads["own"].startswith("memorydesk-probe")
    tab.close()
    assert tab.compute(lambda: 1, threads.setdefault) is None and not tab.computing


def test_show_in_graph_before_the_graph_tab_was_opened_focuses_the_fact(open_window, sample_path, qtbot) -> None:
    """The real window: a navigation to a tab that has read nothing yet is held while the
    graph is read and laid out, and lands then."""
    win = open_window(sample_path)
    fact = win.tab("facts").model.fact(0)
    assert fact is not None
    graph = win.tab("graph")
    assert graph.session is None  # never shown: nothing read
    win.navigate("graph", {"fact": fact.id})
    assert graph.holding == {"fact": fact.id} and graph.found is None
    qtbot.waitUntil(lambda: graph.found is not None and graph.found.focus == fact.id, timeout=30_000)
    assert graph.holding is None and graph.mode == "focus"
    guihelp.wait_idle(qtbot, win)
