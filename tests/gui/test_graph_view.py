"""How the Knowledge Graph tab stays smooth and readable: the graph's tree, layout and
overview are worked out off the UI thread; a repaint, a zoom or a filter switched back
rebuilds nothing; names never overlap; the legend wraps instead of being cut off; the
side panel stacks the fact's detail; the outline's tooltip gives the whole name."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtWidgets import QToolBar

from memorydesk.browse.graph.data import DOMAIN, FACT, POLICY_SOURCE
from memorydesk.store import guard

pytestmark = pytest.mark.shared


def graph_tab(qtbot, win):
    tab = win.show_tab("graph")
    qtbot.waitUntil(lambda: tab.ov is not None and not tab.computing and win.ops.pending == 0, timeout=30000)
    return tab


class Spy:
    """Counts the calls of a real function and the threads they ran on (it still runs)."""

    def __init__(self, fn):
        self.fn, self.threads = fn, []

    def __call__(self, *args, **kw):
        self.threads.append(threading.get_ident())
        return self.fn(*args, **kw)


@pytest.fixture
def spies(monkeypatch):
    from memorydesk.browse.graph import index as graph_index
    from memorydesk.ui.graph import layouting, pictures, tab

    layouting._CACHE.clear()  # nothing known from an earlier test (search's values are each workspace's)
    found = {
        "index": Spy(graph_index.index_graph),
        "layout": Spy(tab.cluster_layout),
        "overview": Spy(pictures.overview),
        "fold": Spy(pictures.fold_edges),
    }
    monkeypatch.setattr(graph_index, "index_graph", found["index"])
    monkeypatch.setattr(tab, "cluster_layout", found["layout"])
    monkeypatch.setattr(pictures, "overview", found["overview"])
    monkeypatch.setattr(pictures, "fold_edges", found["fold"])
    return found


def test_the_graph_is_worked_out_off_the_ui_thread(qtbot, open_window, sample_db, spies,
                                                   ui_thread_guarded) -> None:
    ui = threading.get_ident()
    guard.allow(ui)
    win = open_window(sample_db)
    guard.forbid(ui)
    tab = graph_tab(qtbot, win)
    tab.canvas.view_widget.grab()
    for name in ("index", "layout", "overview", "fold"):
        assert spies[name].threads, f"{name} never ran"
        assert ui not in spies[name].threads, f"{name} ran on the UI thread"
    assert ui_thread_guarded == []
    # what the UI thread got is what the worker made: the outline and the panel hold its index
    assert tab.outline.ix is tab.ix and tab.panel.ix is tab.ix
    assert np.shares_memory(tab.canvas.nodes.pos, tab.ov.pos)


def test_a_repaint_a_zoom_or_a_filter_switched_back_rebuilds_nothing(qtbot, open_window, sample_db,
                                                                     spies) -> None:
    win = open_window(sample_db)
    tab = graph_tab(qtbot, win)
    view = tab.canvas.view_widget
    view.grab()
    built, folded = len(spies["overview"].threads), len(spies["fold"].threads)
    assert built == 1
    for factor in (0.5, 0.25, 4.0, 2.0):
        tab.canvas.box.scaleBy((factor, factor))
        view.viewport().repaint()
        view.viewport().repaint()
    assert len(spies["overview"].threads) == built and len(spies["fold"].threads) == folded
    kind = tab.filters.kinds["related_to"]
    kind.click()  # a new filter: its own folded pictures (by topic, by domain), once
    view.grab()
    assert not kind.isChecked() and len(spies["fold"].threads) == folded + 2
    assert not tab.canvas.edges.mask[tab.g.ekind == 0].any()  # related_to edges are hidden
    kind.click()  # back: kept from before
    tab.show_overview()
    view.grab()
    assert len(spies["fold"].threads) == folded + 2 and len(spies["overview"].threads) == built
    assert tab.canvas.edges.mask[tab.g.ekind == 0].any()


def test_names_never_overlap_each_other_or_the_note(qtbot, open_window, sample_db) -> None:
    win = open_window(sample_db)
    win.resize(1280, 800)
    tab = graph_tab(qtbot, win)
    canvas = tab.canvas
    note = QRectF(canvas.note.geometry())
    for factor in (1.0, 0.4, 0.4):
        canvas.box.scaleBy((factor, factor))
        canvas.view_widget.grab()
        boxes = [box for _text, box in canvas.labels.placed]
        assert boxes, "no name was drawn"
        for i, a in enumerate(boxes):
            assert not a.intersects(note)
            assert not any(a.intersects(b) for b in boxes[i + 1:])
    domains = {tab.g.labels[d] for d in tab.g.of_kind(DOMAIN)}
    assert domains & {text for text, _box in canvas.labels.placed}  # domains are named first


def test_the_legend_wraps_instead_of_being_cut_off(qtbot, open_window, sample_db) -> None:
    win = open_window(sample_db)
    for size in ((900, 600), (1280, 800)):
        win.resize(*size)
        tab = graph_tab(qtbot, win)
        qtbot.wait(50)
        bar = tab.filters
        shown = list(bar.kinds.values()) + bar.legend
        for widget in shown:
            where = QRect(widget.mapTo(bar, widget.rect().topLeft()), widget.size())
            assert bar.rect().contains(where), f"{widget.objectName()} is cut off at {size}"
        rows = {widget.mapTo(bar, widget.rect().topLeft()).y() for widget in shown}
        assert len(rows) >= 2  # one line does not hold them all at these widths


def test_the_side_panel_stacks_the_fact_detail(qtbot, open_window, sample_db) -> None:
    win = open_window(sample_db)
    win.resize(1280, 800)
    tab = graph_tab(qtbot, win)
    fact = int(tab.g.of_kind(FACT)[0])
    tab.select_node(fact, source="test")
    qtbot.waitUntil(lambda: tab.panel.detail.isVisible() and tab.panel.detail.fact_id == tab.g.ids[fact],
                    timeout=10000)
    pages = tab.panel.detail.pages
    names = [pages.tabText(i) for i in range(pages.count()) if pages.isTabVisible(i)]
    assert "Fields" in names and "Decay" in names  # the decay plot is a page, not squeezed under the fields
    assert tab.panel.detail.decay.parent() is not None and pages.indexOf(tab.panel.detail.decay) >= 0
    assert pages.height() >= 150 and tab.panel.table.height() >= 120
    assert tab.panel.detail.text_col.height() >= 80


def test_select_a_node_sits_at_the_top_of_the_side_panel(qtbot, open_window, sample_db) -> None:
    win = open_window(sample_db)
    win.resize(1280, 800)
    tab = graph_tab(qtbot, win)
    tab.select_node(None, source="test")
    header = tab.panel.header
    qtbot.waitUntil(lambda: header.isVisible() and header.text().startswith("Select a node"), timeout=5000)
    assert not tab.panel.detail.isVisible()
    top = header.mapTo(tab.panel, header.rect().topLeft()).y()
    assert top <= 8  # no empty band above the text
    assert header.height() <= header.heightForWidth(header.width()) + 8  # the label holds its text, not the room


def test_the_outline_tooltip_gives_the_whole_name_and_counts(qtbot, open_window, sample_db) -> None:
    win = open_window(sample_db)
    tab = graph_tab(qtbot, win)
    model = tab.outline
    first = model.index(0, 0)
    node = first.data(Qt.ItemDataRole.UserRole + 1)
    g = tab.g
    assert int(g.kind[node]) == DOMAIN
    tip = first.data(Qt.ItemDataRole.ToolTipRole)
    assert g.labels[node] in tip and f"{int(tab.ix.facts[node]):,} facts" in tip
    assert f"{int(tab.ix.topics[node]):,} topics" in tip
    assert tab.tree.width() >= 200 or not tab.tree.isVisible()


def test_a_folded_picture_keeps_a_rare_kind_whole_and_the_backbone_of_a_common_one() -> None:
    from memorydesk.ui.graph.layers import BACKBONE, RARE_LINES, fold_edges

    rng = np.random.default_rng(7)
    n_owners = 200
    pos = rng.uniform(0, 100, (n_owners, 2))
    src = rng.integers(0, n_owners, 20000)
    dst = rng.integers(0, n_owners, 20000)
    kind = np.zeros(20000, np.int8)
    kind[:50] = POLICY_SOURCE  # a rare kind: 50 edges
    *_ends, group = fold_edges(pos, np.arange(n_owners), src, dst, kind, np.ones(20000, bool))
    kinds = group // 3
    pairs = {(min(a, b), max(a, b)) for a, b in zip(src[:50], dst[:50]) if a != b}
    assert (kinds == POLICY_SOURCE).sum() == len(pairs) <= RARE_LINES  # every rare line
    common = int((kinds == 0).sum())
    assert 0 < common <= n_owners * BACKBONE  # each owner's strongest few, not every pair


def test_show_its_conflicts_from_the_graph(qtbot, open_window, sample_db) -> None:
    win = open_window(sample_db)
    tab = graph_tab(qtbot, win)
    g = tab.g
    fact = int(g.of_kind(FACT)[0])
    act = tab.fact_acts.conflicts
    assert act in tab.findChild(QToolBar, "graph-toolbar").actions()
    tab.select_node(fact, source="test")
    qtbot.waitUntil(lambda: [r.id for r in tab.fact_rows] == [g.ids[fact]], timeout=10000)
    assert act.isEnabled()
    act.trigger()
    conflicts = win.tab("conflicts")
    assert win.tabs.currentWidget() is conflicts
    qtbot.waitUntil(lambda: conflicts.filters.fact.text() == g.ids[fact], timeout=10000)
