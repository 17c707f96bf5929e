"""The version of the product rules the desk reproduces (DESIGN.md §3: decay, the four voices and
their weights, the intents, fusion, MMR), named in this one place.

Every stored recall-audit run records it, so a comparison can say when two runs were ranked
by different rules. Change it whenever any of those rules changes (``core.product.decay``,
``core.product.fusion``, ``core.product.intent``, ``core.product.fts_query``, ``search.agent``).
"""

from __future__ import annotations

#: the product's revision the rules were read from, and the desk's reading of them
RULES_VERSION = "control-center-67fbbdf/hybrid-1"

__all__ = ["RULES_VERSION"]
