"""Comparing two workspace files, matching rows by id (read-only; neither file is changed).

``compare(old, new)`` reads both files' memory tables once each and reports facts added,
removed, superseded (active before, not now), restored (the reverse) and changed (which
fields; a fact superseded or restored whose topic or content changed too — a redaction —
is listed under both), policies added / removed / changed, the **effective** grants that changed
(role × domain resolved as the Grants tab resolves them, so a removed row can change a
permission), edges added / removed (by source, target and type), conflicts added and
resolved (in both files, no resolution before, one now), and the agents whose notes
changed. Every list is sorted. ``Comparison.to_json`` is the command line's contract.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memorydesk.browse.grants import read_matrix
from memorydesk.core.errors import BadInput
from memorydesk.core.product.grants import PERMISSIONS, ROLES, SOURCES
from memorydesk.store import open_workspace
from memorydesk.store.workspace import Workspace

FACT_FIELDS = (
    "workspace_id", "domain", "topic", "content", "source_observation_ids", "confidence", "superseded_by",
    "authored_by_agent_id", "authored_by_role", "memory_type", "veracity", "valid_until", "recall_count",
    "last_recalled_at", "temporal_tags", "mention_count", "embedding", "binary_embedding", "created_at",
    "updated_at",
)
POLICY_FIELDS = ("workspace_id", "domain", "rule", "source_fact_ids", "required_role", "active", "created_at",
                 "updated_at")


@dataclass
class Comparison:
    old: Path
    new: Path
    notes: list[str] = field(default_factory=list)  # sentences for the person (different workspace ids)
    facts: dict[str, list] = field(default_factory=dict)
    policies: dict[str, list] = field(default_factory=dict)
    grants: list[dict[str, str]] = field(default_factory=list)
    edges: dict[str, list] = field(default_factory=dict)
    conflicts: dict[str, list] = field(default_factory=dict)
    notes_changed: list[str] = field(default_factory=list)
    grant_sources: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)  # (role, domain) → sources

    def to_json(self) -> dict[str, Any]:
        return {"facts": self.facts, "policies": self.policies, "grants": self.grants, "edges": self.edges,
                "conflicts": self.conflicts, "notes": {"changed": self.notes_changed}}

    def counts(self) -> dict[str, int]:
        out = {f"facts {k}": len(v) for k, v in self.facts.items()}
        out |= {f"policies {k}": len(v) for k, v in self.policies.items()}
        out["grants changed"] = len(self.grants)
        out |= {f"edges {k}": len(v) for k, v in self.edges.items()}
        out |= {f"conflicts {k}": len(v) for k, v in self.conflicts.items()}
        out["notes changed"] = len(self.notes_changed)
        return out

    @property
    def empty(self) -> bool:
        return not any(self.counts().values())


def _rows(ws: Workspace, table: str, fields: tuple[str, ...]) -> dict[str, tuple]:
    with ws.read() as conn:
        cursor = conn.connection.driver_connection.execute(f"SELECT id, {', '.join(fields)} FROM {table}")
        out: dict[str, tuple] = {}
        while chunk := cursor.fetchmany(20000):
            for row in chunk:
                out[row[0]] = row[1:]
        return out


def _changed_fields(fields: tuple[str, ...], a: tuple, b: tuple) -> list[str]:
    return [name for name, x, y in zip(fields, a, b, strict=True) if x != y]


def _compare_facts(old: dict[str, tuple], new: dict[str, tuple]) -> dict[str, list]:
    sup = FACT_FIELDS.index("superseded_by")
    added = sorted(new.keys() - old.keys())
    removed = sorted(old.keys() - new.keys())
    superseded, restored, changed = [], [], []
    for fid, before in old.items():
        after = new.get(fid)
        if after is None or after == before:
            continue
        fields = [f for f in _changed_fields(FACT_FIELDS, before, after) if f != "superseded_by"]
        if before[sup] is None and after[sup] is not None:
            superseded.append(fid)
        elif before[sup] is not None and after[sup] is None:
            restored.append(fid)
        else:
            fields = _changed_fields(FACT_FIELDS, before, after)
        if fields and (before[sup] is None) == (after[sup] is None) or set(fields) & {"topic", "content"}:
            # a redaction supersedes the fact and rewrites its text in place: listed as changed text too
            changed.append({"id": fid, "fields": fields})
    return {"added": added, "removed": removed, "superseded": sorted(superseded), "restored": sorted(restored),
            "changed": sorted(changed, key=lambda c: c["id"])}


def _compare_policies(old: dict[str, tuple], new: dict[str, tuple]) -> dict[str, list]:
    changed = [{"id": pid, "fields": _changed_fields(POLICY_FIELDS, before, new[pid])}
               for pid, before in old.items() if pid in new and new[pid] != before]
    return {"added": sorted(new.keys() - old.keys()), "removed": sorted(old.keys() - new.keys()),
            "changed": sorted(changed, key=lambda c: c["id"])}


def _compare_grants(old: Workspace, new: Workspace, out: Comparison) -> None:
    a, b = read_matrix(old, complete=False), read_matrix(new, complete=False)
    domains = sorted({d.name for d in a.domains} | {d.name for d in b.domains})
    rows = []
    for domain in domains:
        pa, sa = a.index.codes(domain)
        pb, sb = b.index.codes(domain)
        for j, role in enumerate(ROLES):
            before, after = PERMISSIONS[pa[j]].value, PERMISSIONS[pb[j]].value
            if before != after:
                rows.append({"role": role.value, "domain": domain, "before": before, "after": after})
                out.grant_sources[(role.value, domain)] = (SOURCES[sa[j]].value, SOURCES[sb[j]].value)
    out.grants = sorted(rows, key=lambda r: (r["domain"], r["role"]))


def _edges(ws: Workspace) -> set[tuple[str, str, str]]:
    with ws.read() as conn:
        return {tuple(r) for r in conn.exec_driver_sql(
            f"SELECT source_fact_id, target_fact_id, edge_type FROM {ws.layout.edges.name}")}


def _conflicts(ws: Workspace) -> dict[str, bool]:
    with ws.read() as conn:
        return {r[0]: r[1] is not None for r in conn.exec_driver_sql(
            f"SELECT id, resolution FROM {ws.layout.conflicts.name}")}


def _notes(ws: Workspace) -> dict[str, tuple]:
    with ws.read() as conn:
        notes: dict[str, list] = {}
        for agent, content in conn.exec_driver_sql(
                f"SELECT agent_id, content FROM {ws.layout.notes.name} ORDER BY agent_id, id"):
            notes.setdefault(agent, []).append(content)
        return {k: tuple(v) for k, v in notes.items()}


def same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()


def open_compared(path: Path) -> Workspace:
    """A file to compare, read-only, leaving nothing beside it that was not there: immutable (as a
    backup is read) unless it has a ``-wal`` or ``-shm`` already — a program has it open in WAL
    mode, and an immutable read would not see its log nor be safe from its writes."""
    live = any(Path(f"{path}{side}").exists() for side in ("-wal", "-shm"))
    return open_workspace(path, read_only=True, immutable=not live)


def compare_open(old: Workspace, new: Workspace) -> Comparison:
    out = Comparison(old.path, new.path)
    if old.workspace_id and new.workspace_id and old.workspace_id != new.workspace_id:
        out.notes.append(f"the two files belong to different workspaces ({old.workspace_id} and "
                         f"{new.workspace_id}); rows are still compared by id")
    out.facts = _compare_facts(_rows(old, old.layout.facts.name, FACT_FIELDS),
                               _rows(new, new.layout.facts.name, FACT_FIELDS))
    out.policies = _compare_policies(_rows(old, old.layout.policies.name, POLICY_FIELDS),
                                     _rows(new, new.layout.policies.name, POLICY_FIELDS))
    _compare_grants(old, new, out)
    ea, eb = _edges(old), _edges(new)
    out.edges = {"added": sorted([list(e) for e in eb - ea]), "removed": sorted([list(e) for e in ea - eb])}
    ca, cb = _conflicts(old), _conflicts(new)
    out.conflicts = {"added": sorted(cb.keys() - ca.keys()),
                     "resolved": sorted(c for c, done in cb.items() if done and c in ca and not ca[c])}
    na, nb = _notes(old), _notes(new)
    out.notes_changed = sorted(a for a in na.keys() | nb.keys() if na.get(a) != nb.get(a))
    return out


def compare(old_path: str | Path, new_path: str | Path) -> Comparison:
    """Open both files read-only (``open_compared``) and compare them; the same file twice is
    refused (``BadInput``)."""
    old_path, new_path = Path(old_path).expanduser(), Path(new_path).expanduser()
    if old_path.exists() and new_path.exists() and same_file(old_path, new_path):
        raise BadInput(f"{old_path} and {new_path} are the same file; give two different workspace files")
    with open_compared(old_path) as old, open_compared(new_path) as new:
        return compare_open(old, new)


@dataclass(frozen=True)
class Version:
    """One stored version of a fact or policy: every column in the table's order, as stored
    (an embedding as its size, ``"1536 bytes"``); of an agent's notes, its id and their text."""

    kind: str
    id: str
    fields: tuple[tuple[str, Any], ...]

    @property
    def names(self) -> list[str]:
        return [name for name, _value in self.fields]

    def value(self, name: str) -> Any:
        """The column's value (None when the row has no such column)."""
        return next((value for key, value in self.fields if key == name), None)


def version_of(ws: Workspace, kind: str, item_id: str) -> Version | None:
    """One fact or policy row of the file, or an agent's notes (``item_id`` the agent's id: its
    notes' text, in the order ``_notes`` compares them); None when the file has no such id."""
    if kind == "note":
        texts = _notes(ws).get(item_id)
        if texts is None:
            return None
        return Version(kind, item_id, (("agent_id", item_id), ("content", "\n\n".join(t or "" for t in texts))))
    table = {"fact": ws.layout.facts, "policy": ws.layout.policies}[kind]
    from sqlalchemy import select

    with ws.read() as conn:
        row = conn.execute(select(table).where(table.c.id == item_id)).first()
    if row is None:
        return None
    fields = tuple((name, f"{len(value)} bytes" if name in ("embedding", "binary_embedding") and value is not None
                    else value) for name, value in row._mapping.items())
    return Version(kind, item_id, fields)


__all__ = ["Comparison", "FACT_FIELDS", "POLICY_FIELDS", "Version", "backups", "compare", "compare_open",
           "open_compared", "same_file", "version_of"]


def backups(path: str | Path) -> list[tuple[Path, int]]:
    """The backups the desk made beside ``path``, newest first, each with the time it was taken."""
    import datetime as dt

    from memorydesk.store.files import backups_beside

    out = []
    for backup in backups_beside(Path(path)):
        stamp = backup.stem.rsplit("-", 1)[-1]
        try:
            at = int(dt.datetime.strptime(stamp, "%Y%m%dT%H%M%S%fZ").replace(tzinfo=dt.UTC).timestamp())
        except ValueError:
            at = int(backup.stat().st_mtime)
        out.append((backup, at))
    return sorted(out, key=lambda b: b[1], reverse=True)
