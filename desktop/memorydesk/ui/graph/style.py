"""Colours and shapes of the Knowledge Graph (one place, shared by the canvas and the legend)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtGui import QColor

from memorydesk.browse.graph.data import EDGE_KINDS

#: edge kind -> colour (also the legend and the kind filter)
EDGE_COLOURS = {
    "related_to": "#2e86c1", "references": "#8e44ad", "contextual": "#229954", "other": "#7f8c8d",
    "supersession": "#d35400", "policy": "#b7950b", "belief": "#148f77", "conflict": "#cb4335",
}
EDGE_LABELS = {
    "related_to": "related_to", "references": "references", "contextual": "contextual", "other": "other episodic",
    "supersession": "superseded by", "policy": "policy → source", "belief": "belief → provenance",
    "conflict": "conflict",
}
#: how each kind of edge comes about (the side panel's "how it was made")
EDGE_ORIGINS = {
    "related_to": "the product's link rule, when the newer fact was written (relatedness ≥ 0.35, weight = score)",
    "references": "a typed episodic link (the product's own writer never writes this type: an import or a tool did)",
    "contextual": "a typed episodic link (the product's own writer never writes this type: an import or a tool did)",
    "other": "an episodic link of a type the product does not define",
    "supersession": "superseded_by: a contradiction at write time, or an edit (the newer version replaces it)",
    "policy": "the policy's source_fact_ids: it was promoted from this fact",
    "belief": "the belief's provenance_fact_ids: a harmonize pass found this fact behind it",
    "conflict": "a conflict row (contradiction: loser ↔ winner; cross_agent: an open disagreement)",
}
NODE_COLOURS = {"domain": "#1b2631", "topic": "#566573", "policy": "#d68910", "belief": "#17a589",
                "missing": "#c0392b", "focus": "#111111"}
#: facts are coloured by domain, cycling through these
DOMAIN_PALETTE = ["#2e86c1", "#28b463", "#af601a", "#7d3c98", "#c0392b", "#148f77", "#b9770e", "#5d6d7e",
                  "#1f618d", "#196f3d", "#922b21", "#6c3483", "#117864", "#9a7d0a"]
HOP_COLOURS = {0: "#111111", 1: "#1f77b4", 2: "#7fb3d5"}


@dataclass(frozen=True)
class NodeStyle:
    """How a node is drawn (plain values: pictures are worked out off the UI thread)."""

    symbol: str  # a pyqtgraph symbol: o (disc), d (diamond), t (triangle), x (cross)
    size: float  # pixels (for a style that grows: the most it grows to)
    fill: str  # "#rrggbb"
    alpha: int = 255
    line: str = ""  # outline colour; "" for none
    line_width: float = 0.0
    grow: float = 0.0  # > 0: the size follows the zoom, this many layout units across
    least: float = 0.0  # the smallest a growing style gets, in pixels
    z: int = 0  # drawn over the styles with a lower z
    vanish: bool = False  # below ``least`` pixels, not drawn at all (instead of drawn at ``least``)

    def px(self, px_per_unit: float) -> float:
        """The size at a zoom (0: not drawn)."""
        if self.grow <= 0:
            return self.size
        size = round(self.grow * px_per_unit * 2) / 2
        if size < self.least:
            return 0.0 if self.vanish else self.least
        return float(min(size, self.size))


def darker(colour: str, factor: float = 0.62) -> str:
    """``colour`` ("#rrggbb") darker by ``factor``."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#{:02x}{:02x}{:02x}".format(*(int(v * factor) for v in (r, g, b)))


# the overview: a fact in its domain's colour (faded when superseded or deleted); a topic a
# darker dot of that colour, bigger the more facts it has (one or two: only when zoomed in)
TOPIC_CLASSES = (3, 10, 30)  # facts a topic needs for the 2nd, 3rd, 4th size
_TOPIC_SIZES = ((4.0, 9.0, True), (4.0, 9.0, False), (6.0, 11.0, False), (8.0, 13.0, False))
FACT_STYLES = [NodeStyle("o", 7.0, colour, alpha, grow=0.8, least=2.0)
               for colour in DOMAIN_PALETTE for alpha in (235, 60)]
TOPIC_STYLES = [NodeStyle("o", most, darker(colour), 255, "#ffffff", 1.0, grow=1.3, least=least, z=1, vanish=gone)
                for colour in DOMAIN_PALETTE for least, most, gone in _TOPIC_SIZES]
TOPIC_BASE = len(FACT_STYLES)
DOMAIN_STYLE, POLICY_STYLE, POLICY_OFF_STYLE, BELIEF_STYLE, MISSING_STYLE = range(
    TOPIC_BASE + len(TOPIC_STYLES), TOPIC_BASE + len(TOPIC_STYLES) + 5)
OVERVIEW_STYLES = FACT_STYLES + TOPIC_STYLES + [
    NodeStyle("o", 9.0, NODE_COLOURS["domain"], 255, "#ffffff", 1.5, z=2),
    NodeStyle("d", 12.0, NODE_COLOURS["policy"], 255, "#ffffff", 1.0, z=3),
    NodeStyle("d", 12.0, NODE_COLOURS["policy"], 90, "#ffffff", 1.0, z=3),
    NodeStyle("t", 12.0, NODE_COLOURS["belief"], 255, "#ffffff", 1.0, z=3),
    NodeStyle("x", 11.0, NODE_COLOURS["missing"], 255, z=4),
]
# a focus: by hop; hollow when walked through but never recalled (superseded); a cross when missing
FOCUS_STYLES = [
    NodeStyle("o", 20.0, HOP_COLOURS[0], 255, "#f39c12", 2.0, z=3),
    NodeStyle("o", 13.0, HOP_COLOURS[1], 255, "#ffffff", 1.0, z=2),
    NodeStyle("o", 10.0, HOP_COLOURS[2], 255, "#ffffff", 1.0, z=1),
    NodeStyle("o", 13.0, "#ffffff", 255, HOP_COLOURS[1], 2.0, z=2),
    NodeStyle("o", 10.0, "#ffffff", 255, HOP_COLOURS[2], 2.0, z=1),
    NodeStyle("x", 12.0, NODE_COLOURS["missing"], 255, z=2),
]
FOCUS_HOLLOW, FOCUS_MISSING = 3, 5


def fact_style(colour: np.ndarray, faded: np.ndarray) -> np.ndarray:
    """Overview style codes of facts: palette colour ``colour``, faded or not."""
    return (np.asarray(colour) % len(DOMAIN_PALETTE) * 2 + np.asarray(faded, np.int64)).astype(np.int16)


def topic_style(colour: np.ndarray, facts: np.ndarray) -> np.ndarray:
    """Overview style codes of topics: palette colour ``colour``, sized by how many facts they have."""
    size = np.searchsorted(np.asarray(TOPIC_CLASSES), np.asarray(facts), side="right")
    return (TOPIC_BASE + np.asarray(colour) % len(DOMAIN_PALETTE) * len(_TOPIC_SIZES) + size).astype(np.int16)


def edge_colour(code: int, alpha: int = 255) -> QColor:
    c = QColor(EDGE_COLOURS[EDGE_KINDS[code]])
    c.setAlpha(alpha)
    return c


def domain_colour(domain: int, alpha: int = 255) -> QColor:
    c = QColor(DOMAIN_PALETTE[domain % len(DOMAIN_PALETTE)] if domain >= 0 else "#888888")
    c.setAlpha(alpha)
    return c
