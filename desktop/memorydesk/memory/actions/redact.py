"""Redact: the secrets the review found in an item replaced by a placeholder, the rest of the
text kept (the Review tab's *Redact…*, ``Reviewer.redact``).

- **A fact** is superseded by a new version whose text holds ``[redacted: what]`` where each
  secret was, every other field kept as it was (author agent and role, veracity, type,
  confidence, mentions) but two: the new version is a new row, created and updated at the
  redaction (as an edit's: the supersession's time is the newer fact's ``created_at``), and
  its embedding is made again from the redacted text — none when the fact had none, never
  the old vector, which was made from the secret. Its earlier versions, which hold the
  secret too, are redacted in place, so no row of the file keeps it.
- **An agent's note or a working-memory item** is redacted in place.

The values removed are kept in the history row, nowhere else, so Undo can put them back
(as a quarantine keeps a note's text); a purge of the item erases that copy too. After the
change the full-text index is merged and the write-ahead log emptied, as a purge does
(``memory.actions.purge``), and the backups beside the file that still hold a secret are
named. Each step checks that the rows are as the previous step left them (``StaleEdit``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select

from memorydesk.core.errors import MemoryDeskError, StaleEdit
from memorydesk.memory.actions.base import ReviewerAction
from memorydesk.memory.actions.facts import UNDONE, set_superseded, store_vector
from memorydesk.memory.rows import fact_row, insert_fact
from memorydesk.store import Workspace

Span = tuple[int, int, str]  # start, end, what it is


def placeholder(what: str) -> str:
    return f"[redacted: {what}]"


def redacted(text: str, spans: list[Span]) -> str:
    """``text`` with each span replaced by its placeholder (overlapping spans as one)."""
    out, at = [], 0
    for start, end, what in sorted(spans):
        if start < at:
            continue
        out.append(text[at:start])
        out.append(placeholder(what))
        at = end
    out.append(text[at:])
    return "".join(out)


def _set_text(ws: Workspace, conn: Connection, fact_id: str, expect: dict[str, str], value: dict[str, str]) -> None:
    row = fact_row(conn, ws.layout, fact_id)
    if row is None:
        raise StaleEdit(f"fact {fact_id} no longer exists")
    if (row.topic or "", row.content or "") != (expect["topic"], expect["content"]):
        raise StaleEdit(f"fact {fact_id} changed since; nothing was changed")
    facts = ws.layout.facts
    conn.execute(facts.update().where(facts.c.id == fact_id).values(topic=value["topic"], content=value["content"]))


@dataclass(frozen=True)
class RedactFact(ReviewerAction):
    """A fact superseded by its redacted version, its earlier versions redacted in place.
    Stores both ids, the new row, and each version's text before and after; undone by
    making the new version undone, the old one active again and every text as it was."""

    entity, name = "fact", "redact"
    old_id: str
    new_id: str
    new_row: dict[str, Any]
    before: dict[str, dict[str, str]]  # version id -> {"topic", "content"} as it was
    after: dict[str, dict[str, str]]  # version id -> the same, redacted
    finding_key: str = ""

    def forward(self, ws: Workspace, conn: Connection) -> None:
        set_superseded(ws, conn, self.old_id, None, self.new_id)
        if fact_row(conn, ws.layout, self.new_id) is None:
            insert_fact(conn, ws.layout, dict(self.new_row), vectors=ws.has_vectors)
        else:
            set_superseded(ws, conn, self.new_id, UNDONE, None)
        for vid, text in self.after.items():
            _set_text(ws, conn, vid, self.before[vid], text)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        for vid, text in self.before.items():
            _set_text(ws, conn, vid, self.after[vid], text)
        set_superseded(ws, conn, self.new_id, None, UNDONE)
        set_superseded(ws, conn, self.old_id, self.new_id, None)

    def touched(self) -> dict[str, list[str]]:
        return {"domain": [], **({"review": [self.finding_key]} if self.finding_key else {})}


def _item_table(ws: Workspace, kind: str):
    return ws.layout.notes if kind == "note" else ws.layout.items


def _set_item(ws: Workspace, conn: Connection, kind: str, item_id: str, expect: str, value: str) -> None:
    table = _item_table(ws, kind)
    row = conn.execute(select(table.c.content).where(table.c.id == item_id)).first()
    if row is None:
        raise StaleEdit(f"{kind.replace('_', ' ')} {item_id} no longer exists; nothing was changed")
    if (row.content or "") != expect:
        raise StaleEdit(f"the agent wrote {kind.replace('_', ' ')} {item_id} since; nothing was changed")
    conn.execute(table.update().where(table.c.id == item_id).values(content=value))


@dataclass(frozen=True)
class RedactNote(ReviewerAction):
    """An agent's note redacted in place (its ``updated_at`` left as the agent wrote it).
    Stores its text before and after; undone by writing the text before back."""

    entity, name = "note", "redact"
    id: str
    before: str
    after: str
    finding_key: str = ""

    def forward(self, ws: Workspace, conn: Connection) -> None:
        _set_item(ws, conn, self.entity, self.id, self.before, self.after)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        _set_item(ws, conn, self.entity, self.id, self.after, self.before)

    def touched(self) -> dict[str, list[str]]:
        return {"review": [self.finding_key]} if self.finding_key else {}


@dataclass(frozen=True)
class RedactWorkingItem(RedactNote):
    """A working-memory item redacted in place; as a note's."""

    entity, name = "working_item", "redact"


REDACT_ACTIONS = (RedactFact, RedactNote, RedactWorkingItem)


def check_spans(text: str, spans: list[Span]) -> list[Span]:
    out = [(int(s), int(e), str(w)) for s, e, w in spans]
    if not out or any(not 0 <= s < e <= len(text) for s, e, _w in out):
        raise MemoryDeskError("nothing to redact: the text changed since it was scanned; scan again")
    return out


# -- the call the Review tab makes (``Reviewer.redact``) --------------------------------------------
def _found(text: str, values: set[str]) -> list[Span]:
    """The secrets in ``text``: what the review finds there, and every value already found elsewhere."""
    from memorydesk.core.review.secrets import find_secrets

    spans = [(h.start, h.end, h.type) for h in find_secrets(text)]
    for value in values:
        at = text.find(value)
        while at >= 0:
            spans.append((at, at + len(value), "secret"))
            at = text.find(value, at + len(value))
    return spans


def redact(reviewer, item_kind: str, item_id: str, reason: str, finding_key: str = "",
           finding: dict[str, Any] | None = None):
    """Replace every secret found in the item by a placeholder: a fact superseded by its redacted
    version (earlier versions redacted in place), a note or working item in place. Then the
    index is merged, the write-ahead log emptied, and the backups that still hold a secret named.

    ``finding`` (its ``kind`` and ``evidence``) of personal data or an injected instruction:
    only what it found is replaced — the personal data itself, the instruction's sentence or
    line (``core.review.locate``) — the rest of the item kept as the agent wrote it."""
    from pathlib import Path

    from memorydesk.core.review.locate import WHAT, removal
    from memorydesk.embedding.embedder import fact_text, fact_vectors
    from memorydesk.memory.actions.purge import earlier_versions
    from memorydesk.memory.history.record import ChangeResult, perform
    from memorydesk.memory.rows import new_id, now_s
    from memorydesk.store import files, wal
    from memorydesk.store.engine import BUSY_TIMEOUT_MS
    from memorydesk.store.retry import with_retry

    ws = reviewer.ws
    if not reason.strip():
        raise MemoryDeskError("give a reason: it is kept in the history with the change")
    if item_kind not in ("fact", "note", "working_item"):
        raise MemoryDeskError(f"a {item_kind.replace('_', ' ')} cannot be redacted; quarantine or edit it")
    if not ws.adopted:
        ws.adopt()
    values: set[str] = set()
    kind = (finding or {}).get("kind", "secret")
    if kind not in ("secret", *WHAT):
        raise MemoryDeskError(f"a {kind.replace('_', ' ')} finding cannot be redacted")
    what = "secret(s)" if kind == "secret" else f"the {WHAT[kind]}"
    gone = (f"no secret is found in {item_kind.replace('_', ' ')} {item_id} any more" if kind == "secret" else
            f"the {WHAT[kind]} is not found in {item_kind.replace('_', ' ')} {item_id} any more (changed since "
            "the scan?); scan again")

    def spans(fields: list[str]) -> list[list[Span]]:
        """What to replace in each field of the version in force: every secret, or the finding's stretch."""
        if kind == "secret":
            return [_found(t, set()) for t in fields]
        got = removal("\n".join(fields), kind, finding.get("evidence", {}))
        out: list[list[Span]] = [[] for _t in fields]
        at = 0
        for i, t in enumerate(fields):
            if got is not None and at <= got[0] and got[1] <= at + len(t):
                out[i].append((got[0] - at, got[1] - at, got[2]))
            at += len(t) + 1
        return out

    def earlier(text: str) -> list[Span]:
        """In an earlier version: what was found in force (by value), and, for secrets, every secret."""
        spans_v = _found(text, values) if kind == "secret" else []
        if kind != "secret":
            for value in values:
                at = text.find(value)
                while at >= 0:
                    spans_v.append((at, at + len(value), WHAT[kind]))
                    at = text.find(value, at + len(value))
        return spans_v

    def fact_work(conn: Connection) -> ChangeResult:
        old = fact_row(conn, ws.layout, item_id)
        if old is None or old.superseded_by is not None:
            raise StaleEdit(f"fact {item_id} is no longer the version in force; scan again")
        spans_t, spans_c = spans([old.topic or "", old.content or ""])
        if not spans_t and not spans_c:
            raise MemoryDeskError(gone.replace(f"{item_kind.replace('_', ' ')} {item_id}", f"fact {item_id}")
                                  + "; nothing was changed")
        values.update((old.topic or "")[s:e] for s, e, _w in spans_t)
        values.update((old.content or "")[s:e] for s, e, _w in spans_c)
        before, after = {}, {}
        for vid in earlier_versions(conn, ws.layout, [item_id]):
            row = fact_row(conn, ws.layout, vid)
            text = {"topic": row.topic or "", "content": row.content or ""}
            red = {k: redacted(v, earlier(v)) for k, v in text.items()}
            if red != text:
                before[vid], after[vid] = text, red
        now = now_s()
        new = {"id": new_id(), "workspace_id": old.workspace_id, "domain": old.domain, "topic": after[item_id]["topic"],
               "content": after[item_id]["content"], "source_observation_ids": old.source_observation_ids,
               "confidence": old.confidence, "authored_by_agent_id": old.authored_by_agent_id,
               "authored_by_role": old.authored_by_role, "memory_type": old.memory_type,
               "veracity": old.veracity, "valid_until": old.valid_until, "temporal_tags": old.temporal_tags,
               "mention_count": old.mention_count, "created_at": now, "updated_at": now,
               "embedding": None, "binary_embedding": None}
        hid = perform(ws, conn, RedactFact(item_id, new["id"], new, before, after, finding_key), entity_id=item_id,
                      actor=reviewer.actor, reason=reason.strip(), before_id=item_id, after_id=new["id"])
        if old.embedding is not None:  # a vector of the redacted text, never the old one (it was made of the secret)
            vector = fact_vectors([fact_text(new["topic"], new["content"])], reviewer._embedder)[0]
            if vector is not None:
                store_vector(ws, conn, new["id"], vector)
        wal.mark_pending(conn)
        return ChangeResult("fact", [item_id, new["id"], *before], [hid],
                            f"{len(values) if kind == 'secret' else ''} {what} redacted (a new version "
                            "supersedes the fact)".lstrip(),
                            {"domain": [old.domain], "review": [finding_key] if finding_key else []})

    def item_work(conn: Connection) -> ChangeResult:
        table = _item_table(ws, item_kind)
        row = conn.execute(select(table.c.content).where(table.c.id == item_id)).first()
        if row is None:
            raise StaleEdit(f"{item_kind.replace('_', ' ')} {item_id} no longer exists")
        text = row.content or ""
        found = spans([text])[0]
        if not found:
            raise MemoryDeskError(gone)
        values.update(text[s:e] for s, e, _w in found)
        act = (RedactNote if item_kind == "note" else RedactWorkingItem)(item_id, text, redacted(text, found),
                                                                        finding_key)
        hid = perform(ws, conn, act, entity_id=item_id, actor=reviewer.actor, reason=reason.strip())
        wal.mark_pending(conn)
        return ChangeResult(item_kind, [item_id], [hid],
                            f"{len(values) if kind == 'secret' else ''} {what} redacted in place".lstrip(),
                            {"review": [finding_key] if finding_key else []})

    result = with_retry(ws, fact_work if item_kind == "fact" else item_work)
    with ws.write() as conn:  # merge the index: its old segments held the words
        conn.exec_driver_sql(f"INSERT INTO {ws.layout.fts}({ws.layout.fts}) VALUES('optimize')")
    needles = [v.encode("utf-8") for v in values if len(v) >= 6]
    state = wal.finish_pending_erase(ws.path, wait_ms=BUSY_TIMEOUT_MS)
    ws.pending_erase = not state.done
    lines = [result.message, state.sentence()]
    held = [b for b in files.backups_beside(ws.path) if wal.files_holding([b, Path(f"{b}-wal")], needles)]
    if held:
        lines.append("backup(s) " + ", ".join(p.name for p in held) + " still hold "
                     + {"secret": "the secret", "personal_data": "the personal data"}.get(kind, "the removed text")
                     + "; purge the item's "
                     "old text there or delete the backup")
    lines.append("the values removed are kept in this change's history row for Undo; purging the item erases them")
    result.message = "; ".join(lines)
    return result
