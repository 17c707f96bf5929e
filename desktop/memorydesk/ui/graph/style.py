"""Colours and shapes of the Knowledge Graph (one place, shared by the canvas and the legend)."""

from __future__ import annotations

from PySide6.QtGui import QColor

from memorydesk.browse.graph_data import EDGE_KINDS

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


def edge_colour(code: int, alpha: int = 255) -> QColor:
    c = QColor(EDGE_COLOURS[EDGE_KINDS[code]])
    c.setAlpha(alpha)
    return c


def domain_colour(domain: int, alpha: int = 255) -> QColor:
    c = QColor(DOMAIN_PALETTE[domain % len(DOMAIN_PALETTE)] if domain >= 0 else "#888888")
    c.setAlpha(alpha)
    return c
