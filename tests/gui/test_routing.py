"""The house the tabs live in: changes routed by kind, our own commits not seen twice, another
process's commits routed by kind too (from the tables' watermarks: a receipt another program
stores reaches the Lineage tab and the history, a fact an agent writes reaches the views of
facts, and neither reloads anything else), and the UI thread never waiting on the database."""

from __future__ import annotations

import subprocess
import sys
import threading

import desk_sample
import pytest
from guihelp import focus, row_of_topic, wait_dialog, wait_idle
from PySide6.QtCore import Qt

from memorydesk.core.changes import Kind
from memorydesk.store import guard
from memorydesk.ui.shell.tabs import TABS


def _edit_topic_3(qtbot, win) -> None:
    facts = win.tab("facts")
    row = row_of_topic(facts, "topic 3")
    rect = facts.view.visualRect(facts.model.index(row, 1))
    qtbot.mouseClick(facts.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())  # as a person: press,
    qtbot.mouseDClick(facts.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())  # then the double
    dialog = wait_dialog(qtbot, facts)
    assert dialog.fact_id == desk_sample.fid(3)
    dialog.content.setPlainText("content of fact 3, corrected")
    dialog.reason.setText("a typo")
    dialog.buttons.button(dialog.buttons.StandardButton.Save).click()
    qtbot.waitUntil(lambda: facts.detail.content.toPlainText() == "content of fact 3, corrected"
                    and win.ops.pending == 0 and win.ops.flows == 0, timeout=20000)


def test_the_window_builds_its_tabs_from_one_list(open_window, sample_path) -> None:
    win = open_window(sample_path)
    assert [win.tabs.widget(i).name for i in range(win.tabs.count())] == [t.name for t in TABS]
    assert [win.tabs.tabText(i) for i in range(win.tabs.count())] == [t.title for t in TABS]
    assert len({t.name for t in TABS}) == len(TABS)


class Seen(list):
    """The names of the tabs that refreshed, in order; ``changes``: what each was handed."""

    changes: list


def _watch_refreshes(win) -> Seen:
    """The names of the tabs that refresh, in order, as the tabs themselves see it: each tab's
    own ``refresh`` notes its name (and the change) before it runs (nothing of the router is
    consulted)."""
    seen = Seen()
    seen.changes = []
    for tab in TABS:
        widget = win.tab(tab.name)
        real = widget.refresh

        def noted(change, _name=tab.name, _real=real) -> None:
            seen.append(_name)
            seen.changes.append((_name, change))
            _real(change)

        widget.refresh = noted
    return seen


def _open_every_tab(qtbot, win, last: str) -> None:
    for tab in TABS:  # open every tab once, so each could be refreshed
        win.show_tab(tab.name)
        wait_idle(qtbot, win)
    grants = win.show_tab("grants")  # a person looks at codebase there: the panel shows its counts of facts
    row = next(r for r in range(grants.model.rowCount()) if grants.model.domain(r) == "codebase")
    grants.view.setCurrentIndex(grants.model.index(row, 1))
    qtbot.waitUntil(lambda: "codebase" in grants.details and win.ops.pending == 0, timeout=10000)
    win.show_tab(last)
    wait_idle(qtbot, win)


def _visit_every_tab(qtbot, win) -> None:
    """Show each tab in turn: a hidden tab takes the changes it missed when it is shown."""
    for tab in TABS:
        win.show_tab(tab.name)
        wait_idle(qtbot, win)


def test_a_fact_edit_refreshes_facts_the_graph_that_shows_it_and_no_other_tab(open_window, sample_path,
                                                                              qtbot) -> None:
    win = open_window(sample_path)
    _open_every_tab(qtbot, win, "facts")
    seen = _watch_refreshes(win)
    edit = win.session.write("editing", lambda r: r.edit_fact(desk_sample.fid(23), domain="frontend", topic="lint",
                                                              content="ESLint and Prettier run in CI", confidence=0.5))
    win.tab("facts").start(edit)  # fact 23: in the graph; no conflict names it; grants shows codebase's counts
    qtbot.waitUntil(lambda: seen == ["facts"] and win.ops.pending == 0 and win.ops.flows == 0, timeout=20000)
    qtbot.wait(2500)  # more than two turns of the watcher: our own commit must not come back
    wait_idle(qtbot, win)
    assert seen == ["facts"]
    _visit_every_tab(qtbot, win)
    # once, when shown; the history lists the change and the review queue scans the edited fact again;
    # policies, grants, conflicts, lineage never
    assert seen == ["facts", "graph", "history", "review"]
    assert all(not c.external for _n, c in seen.changes)


def test_the_grants_tab_sees_a_fact_edit_in_the_domain_whose_counts_it_shows(open_window, sample_path,
                                                                             qtbot) -> None:
    win = open_window(sample_path)
    _open_every_tab(qtbot, win, "facts")
    seen = _watch_refreshes(win)
    _edit_topic_3(qtbot, win)  # through the dialog: fact 3 is in codebase, one version more there
    wait_idle(qtbot, win)
    _visit_every_tab(qtbot, win)
    assert seen == ["facts", "graph", "grants", "history", "review"]


def test_a_fact_a_conflict_names_refreshes_the_conflicts_tab_too(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    _open_every_tab(qtbot, win, "facts")
    seen = _watch_refreshes(win)
    facts = win.tab("facts")
    facts.start(win.session.write("deleting", lambda r: r.delete_facts([desk_sample.fid(30)], "test")))
    qtbot.waitUntil(lambda: seen == ["facts"] and win.ops.pending == 0 and win.ops.flows == 0, timeout=20000)
    _visit_every_tab(qtbot, win)
    assert seen == ["facts", "graph", "grants", "conflicts", "history", "review"]  # conflict 700 names fact 30


def test_a_receipt_import_refreshes_only_the_lineage_tab_and_the_history(open_window, sample_path, qtbot,
                                                                          tmp_path) -> None:
    from fixtures.receipts import complete_lineage, to_jsonl

    win = open_window(sample_path)
    _open_every_tab(qtbot, win, "lineage")
    seen = _watch_refreshes(win)
    receipts = tmp_path / "r.jsonl"
    receipts.write_text(to_jsonl(complete_lineage("routed-run")))
    lineage = win.tab("lineage")
    lineage.start(lineage.import_receipts(str(receipts)))
    qtbot.waitUntil(lambda: "Imported 6 receipts" in win.statusBar().currentMessage(), timeout=20000)
    wait_idle(qtbot, win)
    _visit_every_tab(qtbot, win)
    assert seen == ["lineage", "history"]  # the history lists the receipts stored; nothing else


def test_a_typed_task_puts_facts_in_the_dispatch_preview_and_the_policies_tab_then_sees_fact_edits(
        open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    _open_every_tab(qtbot, win, "policies")
    win.tab("policies").dispatch.task.setText("when do we deploy the web app this week?")
    wait_idle(qtbot, win)
    win.show_tab("facts")
    wait_idle(qtbot, win)
    seen = _watch_refreshes(win)
    _edit_topic_3(qtbot, win)
    wait_idle(qtbot, win)
    _visit_every_tab(qtbot, win)
    assert seen == ["facts", "policies", "graph", "grants", "history", "review"]


def test_the_edited_row_is_patched_in_place(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    facts = win.tab("facts")
    resets: list[int] = []
    facts.model.modelReset.connect(lambda: resets.append(1))
    facts.select_row(row_of_topic(facts, "topic 9"))
    focus(qtbot, facts.view)
    scroll = facts.view.verticalScrollBar().value()
    _edit_topic_3(qtbot, win)
    assert resets == []  # no re-read of the whole list
    assert facts.model.rowCount() == 25
    assert facts.model.fact(0).content == "content of fact 3, corrected"  # the new version, newest first
    assert desk_sample.fid(3) not in {facts.model.fact(r).id for r in range(facts.model.rowCount())}
    assert facts.view.verticalScrollBar().value() == scroll


AGENT_WRITES_A_FACT = """
import sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], timeout=5)
ws = con.execute("SELECT workspace_id FROM memory_facts_table LIMIT 1").fetchone()[0]
now = int(time.time()) + 60
with con:
    con.execute("INSERT INTO memory_facts_table (id, workspace_id, domain, topic, content, created_at, "
                "updated_at) VALUES ('from-outside', ?, 'codebase', 'outside', 'by another process', ?, ?)",
                (ws, now, now))
con.close()
"""


def test_a_fact_another_process_writes_reaches_the_views_of_facts_and_not_the_lineage(open_window, sample_path,
                                                                                     qtbot) -> None:
    win = open_window(sample_path)
    _open_every_tab(qtbot, win, "facts")
    seen = _watch_refreshes(win)
    subprocess.run([sys.executable, "-c", AGENT_WRITES_A_FACT, str(sample_path)], check=True, timeout=30)
    qtbot.waitUntil(lambda: "facts" in seen, timeout=10000)
    wait_idle(qtbot, win)
    assert win.tab("facts").model.rowCount() == 26
    assert seen == ["facts"]  # the shown tab now; the others when shown
    _visit_every_tab(qtbot, win)
    assert seen == ["facts", "policies", "graph", "grants", "conflicts", "history", "review"]  # never the lineage
    assert all(c.external and c.kinds == {Kind.FACT, Kind.DOMAIN} for _n, c in seen.changes)


def test_a_receipt_lineage_serve_stores_reaches_only_the_lineage_tab_and_the_history(open_window, sample_path,
                                                                                     qtbot) -> None:
    """``lineage serve`` (another process) stores receipts while the window watches the file:
    the Lineage tab reads the new run and the history lists it; Facts does not read its list
    again, the Graph does not reload, Review does not rescan."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    from fixtures.otlp_sdk import sdk_spans, serving
    from fixtures.receipts import complete_lineage

    win = open_window(sample_path)
    _open_every_tab(qtbot, win, "facts")
    seen = _watch_refreshes(win)
    resets: list[int] = []
    win.tab("facts").model.modelReset.connect(lambda: resets.append(1))
    graph_reads = win.tab("graph").timings.get("read_started")
    with serving(sample_path) as (url, _process):
        exporter = OTLPSpanExporter(endpoint=url + "/v1/traces")
        assert exporter.export(sdk_spans(complete_lineage("served-run"))) == SpanExportResult.SUCCESS
        exporter.shutdown()
        win.show_tab("lineage")  # looking at it: the run comes in as the watcher sees the commit
        lineage = win.tab("lineage")
        qtbot.waitUntil(lambda: lineage.table is not None and "served-run" in lineage.table.index, timeout=20000)
    qtbot.wait(2500)  # more turns of the watcher: nothing else is reported
    _visit_every_tab(qtbot, win)
    assert sorted(set(seen)) == ["history", "lineage"]
    assert all(c.external and c.kinds <= {Kind.RECEIPT, Kind.TIER} for _n, c in seen.changes)
    assert resets == [] and win.tab("graph").timings.get("read_started") == graph_reads


def test_the_ui_thread_never_touches_the_database_during_an_edit(open_window, sample_path, qtbot,
                                                                 ui_thread_guarded) -> None:
    guard.allow(threading.get_ident())
    win = open_window(sample_path)
    guard.forbid(threading.get_ident())
    _edit_topic_3(qtbot, win)  # double-click, the dialog, save, the patched row, the detail pane
    qtbot.wait(1500)  # the watcher's turns
    assert ui_thread_guarded == []


def test_the_guard_does_catch_a_read_on_the_ui_thread(open_window, sample_path, ui_thread_guarded) -> None:
    from memorydesk.browse import facts as browse

    guard.allow(threading.get_ident())
    win = open_window(sample_path)
    guard.forbid(threading.get_ident())
    with pytest.raises(guard.UIThreadDatabaseAccess):
        browse.counts(win.ws)
    assert len(ui_thread_guarded) == 1
