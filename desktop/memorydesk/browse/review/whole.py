"""The whole text of a finding's item, as the Review tab shows it to be read before acting: a
note or a working-memory item (the text its quarantine kept, while quarantined), a fact's topic
and content, a policy's rule — every secret and piece of personal data masked
(``core.review.shown``), as everywhere outside the item itself. Read-only."""

from __future__ import annotations

from sqlalchemy import select

from memorydesk.core.review.shown import shown
from memorydesk.store.workspace import Workspace


def whole_text(ws: Workspace, item_kind: str, item_id: str) -> str | None:
    """The item's text, masked; None when the item is gone."""
    from memorydesk.memory.actions.items import quarantined_texts

    layout = ws.layout
    with ws.read() as conn:
        if item_kind == "fact":
            row = conn.execute(select(layout.facts.c.topic, layout.facts.c.content).where(
                layout.facts.c.id == item_id)).first()
            text = None if row is None else f"{row[0] or ''}\n{row[1] or ''}"
        elif item_kind == "policy":
            text = conn.execute(select(layout.policies.c.rule).where(layout.policies.c.id == item_id)).scalar()
        else:
            table = layout.notes if item_kind == "note" else layout.items
            text = conn.execute(select(table.c.content).where(table.c.id == item_id)).scalar()
            if not text:  # quarantined: the text is kept in the quarantine's history row
                for kind, kept_id, detail in quarantined_texts(ws, conn):
                    if (kind, kept_id) == (item_kind, item_id):
                        text = detail.get("content") if kind == "note" else (detail.get("row") or {}).get("content")
    return None if text is None else shown(str(text))


__all__ = ["whole_text"]
