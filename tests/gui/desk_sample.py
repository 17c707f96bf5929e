"""A small workspace with the situations the desk must show (test data, no Qt).

Built with ``open_workspace`` on a new path and SQLAlchemy Core inserts into the
layout's tables (facts oldest first, as the product writes them): active, expired, deleted and
superseded facts (a three-step chain), a sentinel, Hebrew text, repo-scoped domains, a conflict, edges, policies, agents
and one agent note.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

from memorydesk.store import open_workspace
from memorydesk.store.workspace import Workspace

NOW = int(time.time())
HOUR = 3600


def fid(n: int) -> str:
    return str(uuid.UUID(int=n, version=4))


def fact(n: int, **values: Any) -> dict[str, Any]:
    row = {
        "id": fid(n), "domain": "codebase", "topic": f"topic {n}", "content": f"content of fact {n}",
        "confidence": 0.5, "memory_type": "fact", "veracity": "stated", "created_at": NOW - n * HOUR,
        "updated_at": NOW - n * HOUR, "recall_count": n % 3, "mention_count": 1, "superseded_by": None,
        "valid_until": None, "embedding": None,
    }
    row.update(values)
    return row


def sample_facts() -> list[dict[str, Any]]:
    rows = [fact(n) for n in range(1, 21)]
    rows += [
        fact(21, domain="repo:acme-web/frontend", topic="button colour", content="Primary buttons are teal"),
        fact(22, domain="repo:acme-web/infra", topic="terraform", content="Plan output must be attached"),
        fact(23, domain="frontend", topic="lint", content="ESLint runs in CI"),
        fact(24, topic="הגדרות", content="שמירת הזיכרון נעשית בסוף כל משימה.", domain="product"),
        fact(25, topic="deleted one", content="this was wrong", superseded_by="human:deleted"),
        fact(26, topic="expired one", content="valid until yesterday", valid_until=NOW - 24 * HOUR),
        fact(27, topic="cleanup", content="archived by cleanup", superseded_by="system:cleanup",
             memory_type="EVENT", veracity="weird"),
        # a chain: 28 -> 29 -> 30 (30 active)
        fact(28, topic="deploy day", content="we deploy on monday", superseded_by=fid(29), confidence=0.4),
        fact(29, topic="deploy day", content="we deploy on tuesday", superseded_by=fid(30), confidence=0.6),
        fact(30, topic="deploy day", content="we deploy on wednesday", confidence=0.9,
             embedding=b"\0" * 1536),
    ]
    return rows


def build(path: Path, facts: list[dict[str, Any]] | None = None) -> Path:
    ws = open_workspace(path, create=True)
    try:
        populate(ws, sample_facts() if facts is None else facts)
    finally:
        ws.close()
    return path


def populate(ws: Workspace, facts: list[dict[str, Any]]) -> None:
    L = ws.layout
    wid = ws.workspace_id
    with ws.write() as conn:
        if facts:
            in_time_order = sorted(facts, key=lambda f: f["created_at"])
            conn.execute(L.facts.insert(), [{"workspace_id": wid, **f} for f in in_time_order])
        conn.execute(L.agents.insert(), [
            {"id": fid(900), "name": "coder-1", "title": "Coder", "agent_md_path": "", "workspace_id": wid,
             "skills": "go", "role": "coder"},
            {"id": fid(901), "name": "reviewer-1", "title": "Reviewer", "agent_md_path": "", "workspace_id": wid,
             "skills": "review", "role": "reviewer"},
        ])
        conn.execute(L.notes.insert(), [{"id": fid(950), "workspace_id": wid, "agent_id": fid(900),
                                         "content": "- prefers small PRs"}])
        conn.execute(L.policies.insert(), [
            {"id": fid(800), "workspace_id": wid, "domain": "codebase", "rule": "Always run the tests.",
             "required_role": "coder", "active": 1, "created_at": NOW - 100, "updated_at": NOW - 100},
            {"id": fid(801), "workspace_id": wid, "domain": "security", "rule": "Never log secrets.\nEver.",
             "required_role": None, "active": 1, "created_at": NOW - 50, "updated_at": NOW - 50},
            {"id": fid(802), "workspace_id": wid, "domain": "old", "rule": "Use Jenkins.", "required_role": None,
             "active": 0, "created_at": NOW - 500, "updated_at": NOW - 500},
        ])
        if facts and any(f["id"] == fid(30) for f in facts):
            conn.execute(L.conflicts.insert(), [
                {"id": fid(700), "workspace_id": wid, "fact_a_id": fid(29), "fact_b_id": fid(30),
                 "conflict_type": "contradiction", "resolution": "superseded", "winning_fact_id": fid(30),
                 "resolved_at": NOW - 10, "created_at": NOW - 10},
            ])
            conn.execute(L.edges.insert(), [
                {"id": fid(600), "workspace_id": wid, "source_fact_id": fid(30), "target_fact_id": fid(1),
                 "edge_type": "related_to", "weight": 0.5},
                {"id": fid(601), "workspace_id": wid, "source_fact_id": fid(2), "target_fact_id": fid(30),
                 "edge_type": "related_to", "weight": 0.4},
            ])
