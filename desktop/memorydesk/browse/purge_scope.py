"""What a purge of some facts would remove besides their own rows (read-only): the earlier
versions, the links (episodic edges) to and from them, the conflict rows and the beliefs that
name them — counted the way ``memory.actions.purge.erase_rows`` deletes them, so the purge
dialog can say exactly what goes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import func, select

from memorydesk.memory.actions.purge import earlier_versions
from memorydesk.store.workspace import Workspace


@dataclass(frozen=True)
class PurgeScope:
    versions: int  # earlier versions erased with them
    links: int  # episodic edges to or from any of them
    conflicts: int
    beliefs: int

    def words(self) -> str:
        """“2 earlier versions, 6 links to other facts, 1 conflict row”, or "" when none."""
        parts = [(self.versions, "earlier version", "earlier versions"),
                 (self.links, "link to another fact", "links to other facts"),
                 (self.conflicts, "conflict row", "conflict rows"),
                 (self.beliefs, "belief that names it", "beliefs that name it")]
        return ", ".join(f"{n:,} {one if n == 1 else many}" for n, one, many in parts if n)


def purge_scope(ws: Workspace, ids: Iterable[str]) -> PurgeScope:
    layout = ws.layout
    with ws.read() as conn:
        every = earlier_versions(conn, layout, list(ids))
        edges, conflicts = layout.edges.c, layout.conflicts.c
        links = conn.execute(select(func.count()).select_from(layout.edges).where(
            edges.source_fact_id.in_(every) | edges.target_fact_id.in_(every))).scalar_one()
        rows = conn.execute(select(func.count()).select_from(layout.conflicts).where(
            conflicts.fact_a_id.in_(every) | conflicts.fact_b_id.in_(every))).scalar_one()
        beliefs = sum(1 for (prov,) in conn.execute(select(layout.beliefs.c.provenance_fact_ids))
                      if any(fid in (prov or "") for fid in every))
    return PurgeScope(len(every) - len(set(ids)), int(links), int(rows), beliefs)


__all__ = ["PurgeScope", "purge_scope"]
