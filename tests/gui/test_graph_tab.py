"""The Knowledge Graph tab on the product-format sample: outline, focus, missing facts,
edge deletion with undo, no way to create, the level-of-detail switch, layouts off the
UI thread."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from guihelp import wait_dialog
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMenu, QToolBar

from memorydesk.browse.graph.data import MISSING
from memorydesk.browse.graph.focus import focus
from memorydesk.store import open_workspace

pytestmark = pytest.mark.shared


def graph_tab(qtbot, win):
    tab = win.show_tab("graph")
    qtbot.waitUntil(lambda: tab.layout_result is not None and not tab.computing and win.ops.pending == 0,
                    timeout=30000)
    return tab


def wait_focus(qtbot, win, tab, fact_id: str) -> None:
    qtbot.waitUntil(lambda: tab.mode == "focus" and tab.found is not None and tab.found.focus == fact_id
                    and not tab.computing and win.ops.pending == 0, timeout=20000)


def busiest_fact(path) -> str:
    with open_workspace(path, read_only=True) as ws, ws.read() as con:
        return con.exec_driver_sql("SELECT e.source_fact_id FROM episodic_edges_table e JOIN memory_facts_table f "
                           "ON f.id = e.source_fact_id WHERE f.superseded_by IS NULL GROUP BY 1 "
                           "ORDER BY count(*) DESC, 1 LIMIT 1").fetchone()[0]


def test_outline_and_missing_facts(qtbot, qtmodeltester, open_window, sample_db) -> None:
    win = open_window(sample_db)
    tab = graph_tab(qtbot, win)
    qtmodeltester.check(tab.outline)
    model = tab.outline
    top = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert any(t.startswith("codebase (88 facts") for t in top)
    assert "Missing facts (7)" in top and "Policies (17)" in top and "Beliefs (15)" in top
    g = tab.g
    dangling = (g.kind[g.src] == MISSING) | (g.kind[g.dst] == MISSING)
    assert int(((g.ekind <= 3) & dangling).sum()) == 16  # the sample's 16 dangling episodic edges, kept
    missing = int(g.of_kind(MISSING)[0])
    tab.select_node(missing, source="test")
    assert tab.panel.table.rowCount() >= 1
    assert "Missing fact" in tab.panel.header.text()
    assert tab.act_remove_dangling.isEnabled() == any(g.ekind[e] <= 3 for e in tab.panel.edges)


def test_show_in_graph_focuses_the_graph_voice_walk(qtbot, open_window, sample_db) -> None:
    seed = busiest_fact(sample_db)
    win = open_window(sample_db)
    graph_tab(qtbot, win)
    facts = win.show_tab("facts")
    facts.select_fact(seed)
    qtbot.waitUntil(lambda: [f.id for f in facts.selected_facts()] == [seed], timeout=10000)
    assert facts.acts.graph in facts.findChild(QToolBar, "facts-toolbar").actions()
    facts.acts.graph.trigger()
    tab = win.tab("graph")
    assert win.current_tab_name() == "graph"
    wait_focus(qtbot, win, tab, seed)
    with open_workspace(sample_db, read_only=True) as ws:
        expected = focus(ws, seed)
    shown = [tab.g.ids[n] for n in tab.canvas.picture.nodes]
    assert shown == [n.id for n in expected.nodes]
    assert tab.found.to_json() == expected.to_json()
    hops = {n.hop for n in expected.nodes}
    assert hops == {0, 1, 2}
    assert "hop 1" in tab.canvas.note.text() and "hop 2" in tab.canvas.note.text()
    # the details of a clicked node come from memory, at once
    tab.select_node(int(tab.canvas.picture.nodes[1]), source="canvas")
    assert tab.panel.node == int(tab.canvas.picture.nodes[1]) and tab.panel.table.rowCount() > 0


def test_delete_an_edge_and_undo_it(qtbot, open_window, sample_db) -> None:
    seed = busiest_fact(sample_db)

    def rows():  # read with the desk's own SQLite (two SQLite libraries in one process share no locks)
        with open_workspace(sample_db, read_only=True) as ws, ws.read() as conn:
            return [tuple(r) for r in conn.exec_driver_sql("SELECT rowid, * FROM episodic_edges_table ORDER BY rowid")]

    win = open_window(sample_db)
    tab = graph_tab(qtbot, win)
    before = rows()
    tab.find(seed)
    wait_focus(qtbot, win, tab, seed)
    first = next(r for r in range(tab.panel.table.rowCount()) if tab.g.ekind[tab.panel.edges[r]] <= 3)
    edge_id = tab.g.edge_ids[int(tab.panel.edges[first])]
    tab.panel.table.selectRow(first)
    assert tab.act_delete_edge.isEnabled()
    tab.act_delete_edge.trigger()
    dialog = wait_dialog(qtbot, tab)
    dialog.reason.setText("not related")
    dialog.delete.click()
    qtbot.waitUntil(lambda: win.ops.pending == 0 and win.ops.flows == 0, timeout=15000)
    assert not win.last_error
    assert len(rows()) == len(before) - 1
    assert edge_id not in {r[1] for r in rows()}
    with open_workspace(sample_db, read_only=True) as ws, ws.read() as conn:
        actor, reason, action = conn.exec_driver_sql("SELECT actor, reason, action FROM memdesk_history WHERE "
                                                     "entity = 'edge' ORDER BY id DESC").fetchone()
    assert (reason, action) == ("not related", "delete") and actor
    qtbot.waitUntil(lambda: edge_id not in tab.g.edge_ids and not tab.computing, timeout=20000)
    win.act_undo.trigger()
    qtbot.waitUntil(lambda: win.ops.pending == 0 and win.ops.flows == 0 and len(rows()) == len(before),
                    timeout=15000)
    assert rows() == before  # the same row, rowid and all


def test_there_is_no_way_to_create(qtbot, open_window, sample_db) -> None:
    win = open_window(sample_db)
    tab = graph_tab(qtbot, win)
    actions = list(tab.actions()) + list(tab.left.actions()) + list(tab.panel.table.actions())
    for bar in tab.findChildren(QToolBar):
        actions += bar.actions()
    for menu in tab.findChildren(QMenu):
        actions += menu.actions()
    words = " ".join(a.text().lower() for a in actions)
    for word in ("add", "create", "new", "link"):
        assert word not in words.split() and not any(t.startswith(word) for t in words.split())
    assert not [a for a in actions if a.shortcut().toString() in ("Ctrl+N", "Ins", "Insert")]


def test_level_of_detail_folds_above_the_limit(qtbot) -> None:
    from memorydesk.ui.graph.canvas import GraphCanvas
    from memorydesk.ui.graph.layers import LOD_LIMIT, fold_edges
    from memorydesk.ui.graph.pictures import Picture, lines_between
    from memorydesk.ui.graph.style import OVERVIEW_STYLES

    canvas = GraphCanvas()
    qtbot.addWidget(canvas)
    canvas.resize(800, 600)
    canvas.show()
    rng = np.random.default_rng(1)
    n, m = 4000, 30000
    pos = rng.uniform(0, 1000, (n, 2)).astype(np.float32)
    owner = np.arange(n) // 40
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    kind = rng.integers(0, 3, m).astype(np.int8)
    fold = fold_edges(pos, owner, src, dst, kind, np.ones(m, bool))
    canvas.show_picture(Picture(np.arange(n), pos, np.zeros(n, np.int16), OVERVIEW_STYLES,
                                lines_between(pos[src], pos[dst], kind, rng.uniform(0.3, 1, m)), [fold]))
    canvas.view_widget.grab()
    assert canvas.edges.folded and canvas.edges.drawn == len(fold[0])
    assert canvas.nodes.drawn == n
    canvas.box.setRange(xRange=(0, 40), yRange=(0, 40), padding=0)
    canvas.view_widget.grab()
    assert not canvas.edges.folded and 0 < canvas.edges.drawn <= LOD_LIMIT
    assert 0 < canvas.nodes.drawn < n  # only the nodes in view


def test_a_layout_runs_off_the_ui_thread(qtbot) -> None:
    from memorydesk.ui.runner import Runner

    runner = Runner("memorydesk-test", lambda label, error, quiet: pytest.fail(f"{label}: {error}"))
    ui = threading.get_ident()
    seen: dict[str, object] = {}
    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()

    def slow():
        seen["thread"] = threading.get_ident()
        end = time.perf_counter() + 0.6
        x = 0
        while time.perf_counter() < end:  # pure Python: holds the GIL between switches
            x += 1
        return x

    runner.run(slow, lambda r: seen.setdefault("result", r))
    qtbot.waitUntil(lambda: "result" in seen, timeout=10000)
    timer.stop()
    runner.shutdown()
    assert seen["thread"] != ui
    assert len(ticks) >= 10  # the UI thread kept handling its timer while the layout ran

