"""The rows a MemoryOS import writes, and how MemoryOS's users and assistants map onto them.

* A MemoryOS **user** is a user scope: the ``session_id`` of its hot items, the
  ``user_scope`` of its segments and receipts, the ``topic`` of its LPM facts.
* A MemoryOS **assistant** is an assistant scope and an agent (``agents_table`` row
  with the assistant id as id and name): the ``agent_id`` of hot items, the author of
  LPM facts, the ``assistant_scope`` of segments and receipts, and the ``topic`` of its
  own knowledge. MemoryOS keeps a user's memory per user, not per assistant, so a user
  takes the data directory's one assistant as its lane; with none or several, the lane
  is ``memoryos``. A user keeps the lane of its first import.
* STM entries are hot items, MTM sessions and pages are our segments and pages (with
  MemoryOS's own fields beside them), the profile and knowledge are LPM facts in domain
  ``working-memory`` (profile: ``preference``, a user's knowledge: ``fact``, an
  assistant's knowledge: ``learning``), veracity ``imported``, confidence 0.5 (MemoryOS
  keeps none), with MemoryOS's embeddings as they were written.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import numpy as np

from memorydesk.embedding.embedder import binary_blob
from memorydesk.lineage.memoryos.lineage import QaLife, stable_id
from memorydesk.lineage.memoryos.records import QA, Knowledge, Page, Profile, Session
from memorydesk.lineage.tiers import LPM_DOMAIN

FALLBACK_ASSISTANT = "memoryos"
VERACITY = "imported"
CONFIDENCE = 0.5
IMPORTANCE = 0.5
ITEM_TYPE = "observation"
PROFILE_TYPE, USER_KNOWLEDGE_TYPE, ASSISTANT_KNOWLEDGE_TYPE = "preference", "fact", "learning"


def unix(moment: datetime) -> int:
    return int(moment.timestamp())


def words(values: tuple[str, ...]) -> str:
    return json.dumps(list(values), ensure_ascii=False, separators=(",", ":"))


def content(qa: QA) -> str:
    return f"User: {qa.user_input}\nAssistant: {qa.agent_response}"


def segment_id(user: str, session: Session) -> str:
    return f"memoryos:{user}:{session.session_id}"


def page_row_ids(user: str, session: Session) -> list[str]:
    """One id per page row; a page id repeated inside the session gets ``#2``, ``#3``…"""
    seen: dict[str, int] = {}
    ids = []
    for page in session.pages:
        seen[page.page_id] = seen.get(page.page_id, 0) + 1
        suffix = f"#{seen[page.page_id]}" if seen[page.page_id] > 1 else ""
        ids.append(f"memoryos:{user}:{session.session_id}:{page.page_id}{suffix}")
    return ids


def agent_row(assistant: str, workspace_id: str, now: int) -> dict[str, Any]:
    return {"id": assistant, "name": assistant, "title": "MemoryOS assistant", "agent_md_path": "",
            "workspace_id": workspace_id, "skills": "", "created_at": now}


def hot_item(life: QaLife, assistant: str, workspace_id: str) -> dict[str, Any]:
    return {"id": life.item_id, "workspace_id": workspace_id, "agent_id": assistant, "session_id": life.user,
            "content": content(life.qa), "memory_type": ITEM_TYPE, "veracity": VERACITY, "importance": IMPORTANCE,
            "created_at": unix(life.qa.at.utc), "expires_at": None}


def version_row(life: QaLife, assistant: str) -> dict[str, Any]:
    return {"item_id": life.item_id, "run_id": life.run_id, "user_scope": life.user, "assistant_scope": assistant,
            "version": life.version}


def segment_values(user: str, assistant: str, session: Session, frequency: dict[str, int] | None) -> dict[str, Any]:
    """Our segment's columns and MemoryOS's session fields, in one mapping (as ``State`` keeps them)."""
    return {
        "user_scope": user, "assistant_scope": assistant, "summary": session.summary,
        "keywords": words(session.keywords), "n_visit": session.n_visit, "l_interaction": session.l_interaction,
        "last_visit_at": unix(session.last_visit.utc), "created_at": unix(session.created.utc),
        "session_id": session.session_id, "r_recency": session.r_recency, "h_segment": session.h_segment,
        "access_count_lfu": session.access_count_lfu,
        "access_frequency": None if frequency is None else frequency.get(session.session_id),
        "created_local": session.created.local, "last_visit_local": session.last_visit.local,
        "summary_embedding": session.embedding,
    }


def page_values(segment: str, page: Page, life: QaLife) -> dict[str, Any]:
    """Our page's columns and MemoryOS's page fields, in one mapping."""
    return {
        "segment_id": segment, "item_id": life.item_id, "run_id": life.run_id, "version": life.version,
        "content": content(page.qa), "memory_type": ITEM_TYPE, "veracity": VERACITY, "importance": IMPORTANCE,
        "created_at": unix(page.qa.at.utc),
        "page_id": page.page_id, "pre_page": page.pre_page, "next_page": page.next_page,
        "meta_info": page.meta_info, "keywords": words(page.keywords), "analyzed": int(page.analyzed),
        "preloaded": int(page.preloaded), "timestamp_local": page.qa.at.local, "page_embedding": page.embedding,
    }


def _fact(fact_id: str, workspace_id: str, topic: str, text: str, memory_type: str, author: str,
          at: int, embedding: bytes | None) -> dict[str, Any]:
    binary = binary_blob(np.frombuffer(embedding, dtype="<f4")) if embedding is not None else None
    return {"id": fact_id, "workspace_id": workspace_id, "domain": LPM_DOMAIN, "topic": topic, "content": text,
            "source_observation_ids": "[]", "confidence": CONFIDENCE, "authored_by_agent_id": author,
            "authored_by_role": None, "memory_type": memory_type, "veracity": VERACITY, "valid_until": None,
            "temporal_tags": None, "embedding": embedding, "binary_embedding": binary, "created_at": at,
            "updated_at": at}


def profile_fact(user: str, assistant: str, profile: Profile, workspace_id: str, fallback_at: int) -> dict[str, Any]:
    updated = profile.updated.local if profile.updated else ""
    at = unix(profile.updated.utc) if profile.updated else fallback_at
    return _fact(stable_id("profile", user, profile.text, updated), workspace_id, user, profile.text, PROFILE_TYPE,
                 assistant, at, None)


def knowledge_facts(owner: str, author: str, kind: str, entries: list[Knowledge],
                    workspace_id: str) -> list[dict[str, Any]]:
    """One fact per entry; an entry repeated with the same text and time gets its own id."""
    memory_type = USER_KNOWLEDGE_TYPE if kind == "user" else ASSISTANT_KNOWLEDGE_TYPE
    seen: dict[tuple[str, str], int] = {}
    rows = []
    for entry in entries:
        key = (entry.text, entry.at.local)
        seen[key] = seen.get(key, 0) + 1
        fact_id = stable_id(f"{kind}-knowledge", owner, entry.text, entry.at.local, str(seen[key]))
        rows.append(_fact(fact_id, workspace_id, owner, entry.text, memory_type, author, unix(entry.at.utc),
                          entry.embedding))
    return rows
