"""One change of the desk, field by field: what each thing it touched was before and after
(read-only) — the History tab's "Before and after", instead of the stored JSON.

``field_changes(ws, entity, action, detail)`` reads the history row's detail (the action's
fields, and the supersessions it made, ``moves``) and, where the detail holds only ids, the
rows as they are now, and names facts and policies as a person reads them. An undo or a redo
lists the supersessions it made; one that made none (a grant, a policy) lists the change of
the entry it names, put back or done again. Whatever an action stores that is not a change of a field
(a batch mark, a version) is left out; anything this module does not know is listed as
``field: value`` (never JSON), so a new action shows something true before it is taught here.
Every cell goes through ``core.review.shown`` — secrets and personal data masked as the
review masks them — so the table never shows a text the history summary, the command line or
an export would mask (a redaction's "before" is the secret masked, its "after" the placeholder).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from memorydesk.browse.naming import names_in, pair_names
from memorydesk.core.review.shown import shown
from memorydesk.store.workspace import Workspace

ACTIVE = "active (not superseded)"
#: what a row of the facts or policies table an edit writes anew says of itself, not of the change
OWN = {"id", "created_at", "updated_at", "embedding", "binary_embedding", "workspace_id"}
SKIP = {"v", "batch", "moves", "of", "says"}


@dataclass(frozen=True)
class FieldChange:
    what: str  # the thing and its field: “fact “deploy” · superseded_by”
    before: str
    after: str


def _text(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False) if value else "—"
    return str(value)


SENTINELS = {"human:deleted": "deleted in the desk", "human:undone": "an undone edit's version (set aside)",
             "human:quarantined": "quarantined in the desk"}


def _superseded(value: str | None, names: dict[str, str]) -> str:
    if value is None:
        return ACTIVE
    if ":" in value:  # a sentinel, not a fact
        return SENTINELS.get(value, f"set aside as {value}")
    return f"superseded by {names.get(value, f'fact {value}')}"


def _fact_names(ws: Workspace, conn: Any, ids: list[str]) -> dict[str, str]:
    """Each fact id as “fact “its name”” (a sentinel such as ``human:deleted`` is no fact: left out)."""
    facts = [i for i in ids if i and ":" not in i]
    found = {n.id: f"fact “{n.shown}”" for n in names_in(ws, conn, facts)}
    return {i: found.get(i, f"fact {i}") for i in facts}


def _rows_changed(kind: str, name: str, old: Any, new: dict[str, Any]) -> list[FieldChange]:
    """Each field of ``new`` (a row an edit wrote) that differs from the row it replaced."""
    if old is None:
        return [FieldChange(f"{name} · {k}", "", _text(v)) for k, v in new.items() if k not in OWN]
    out = [FieldChange(f"{name} · {k}", _text(getattr(old, k, None)), _text(v)) for k, v in new.items()
           if k not in OWN and getattr(old, k, None) != v]
    return out + [FieldChange(f"{name} · version", f"{kind} {old.id}", f"{kind} {new.get('id')}")]


def _policy_name(rule: str | None, pid: str) -> str:
    words = " ".join((rule or "").split())
    return f"policy “{words[:60] + ('…' if len(words) > 60 else '')}”" if words else f"policy {pid}"


def _grant_changes(detail: dict[str, Any]) -> list[FieldChange]:
    out = []
    for edit in detail.get("edits", [detail]):
        domain = edit.get("domain", "?")
        before = {r[1]: r[2] for r in edit.get("before", []) if len(r) >= 3}
        after = {r[1]: r[2] for r in edit.get("after", []) if len(r) >= 3}
        for role in sorted(before.keys() | after.keys()):
            out.append(FieldChange(f"grant {role} on {domain}", before.get(role, "no row (read)"),
                                   after.get(role, "no row (read)")))
    return out


def _reversed(ws: Workspace, detail: dict[str, Any]) -> list[FieldChange]:
    """An undo or a redo that moved no fact (a grant, a policy): the change of the entry it names,
    field by field — put back (an undo) or done again (a redo)."""
    of, back, seen = detail.get("of"), True, 0
    with ws.read() as conn:
        row = None
        while isinstance(of, int) and seen < 100:
            row = conn.exec_driver_sql("SELECT entity, action, detail, undo_of FROM memdesk_history WHERE id = ?",
                                       (of,)).first()
            if row is None or row[1] not in ("undo", "redo"):
                break
            back, of, seen = not back, row[3], seen + 1
    if row is None or row[1] in ("undo", "redo"):
        return []
    try:
        original = json.loads(row[2] or "{}")
    except ValueError:
        return []
    done = _changes(ws, row[0], row[1], original if isinstance(original, dict) else {})
    return [FieldChange(c.what, c.after, c.before) for c in done] if back else done


def field_changes(ws: Workspace, entity: str, action: str, detail: dict[str, Any]) -> list[FieldChange]:
    """The change a history row records, field by field, masked (see the module's docstring)."""
    return [FieldChange(shown(c.what), shown(c.before), shown(c.after)) for c in _changes(ws, entity, action, detail)]


def _redactions(names: dict[str, str], entity: str, detail: dict[str, Any]) -> list[FieldChange]:
    """A redaction: each text it rewrote, before (masked by the caller) and after (placeholders)."""
    if entity == "fact":
        before, after = detail.get("before") or {}, detail.get("after") or {}
        out = []
        for vid, was in before.items():
            now = after.get(vid) or {}
            for part in ("topic", "content"):
                if isinstance(was, dict) and was.get(part) != now.get(part):
                    out.append(FieldChange(f"{names.get(vid, f'fact {vid}')} · {part}", _text(was.get(part)),
                                           _text(now.get(part))))
        old, new = detail.get("old_id", ""), detail.get("new_id", "")
        return out + [FieldChange(f"{names.get(old, f'fact {old}')} · version", f"fact {old}",
                                  f"fact {new} (the redacted version)")]
    what = entity.replace("_", " ")
    return [FieldChange(f"{what} {detail.get('id', '')} · content", _text(detail.get("before")),
                        _text(detail.get("after")))]


def _changes(ws: Workspace, entity: str, action: str, detail: dict[str, Any]) -> list[FieldChange]:
    if action in ("undo", "redo") and not detail.get("moves"):
        return _reversed(ws, detail)
    f, p = ws.layout.facts, ws.layout.policies
    moves = [m for m in detail.get("moves", []) if isinstance(m, list) and len(m) == 3]
    out: list[FieldChange] = []
    with ws.read() as conn:
        ids = [m[0] for m in moves] + [m[i] for m in moves for i in (1, 2) if isinstance(m[i], str)]
        if entity == "fact" and action in ("edit", "redact"):
            ids.append(detail.get("old_id", ""))
            ids += list(detail.get("before") or {}) if action == "redact" else []
        names = _fact_names(ws, conn, ids)
        handled = set()
        if action == "redact" and entity in ("fact", "note", "working_item"):
            out += _redactions(names, entity, detail)
            handled |= {"id", "old_id", "new_id", "new_row", "before", "after", "finding_key"}
        elif entity == "fact" and action == "edit" and isinstance(detail.get("new_row"), dict):
            old = conn.execute(select(f).where(f.c.id == detail.get("old_id"))).first()
            out += _rows_changed("fact", names.get(detail.get("old_id", ""), "fact"), old, detail["new_row"])
            handled |= {"old_id", "new_id", "new_row", "removes"}
        elif entity == "policy" and action == "edit" and isinstance(detail.get("new_row"), dict):
            old = conn.execute(select(p).where(p.c.id == detail.get("old_id"))).first()
            name = _policy_name(getattr(old, "rule", None) or detail["new_row"].get("rule"), detail.get("old_id", ""))
            out += _rows_changed("policy", name, old, detail["new_row"])
            out.append(FieldChange(f"{name} · active", "active" if detail.get("old_active", 1) else "inactive",
                                   "inactive (replaced by its new version)"))
            handled |= {"old_id", "new_id", "new_row", "old_active", "removes"}
        elif entity == "policy" and action == "activate":
            rule = conn.execute(select(p.c.rule).where(p.c.id == detail.get("id"))).scalar()
            word = {1: "active", 0: "inactive"}
            out.append(FieldChange(f"{_policy_name(rule, detail.get('id', ''))} · active",
                                   word.get(detail.get("before"), "?"), word.get(detail.get("after"), "?")))
            handled |= {"id", "before", "after"}
        elif entity == "policy" and action == "delete" and isinstance(detail.get("row"), dict):
            row = detail["row"]
            out.append(FieldChange(_policy_name(row.get("rule"), row.get("id", "")), "in the file", "deleted"))
            handled.add("row")
        elif entity == "grant":
            out += _grant_changes(detail)
            handled |= {"edits", "domain", "before", "after", "row", "rowid"}
        elif entity == "edge" and action == "delete":
            for row in detail.get("rows", []):
                cols = {c[0]: c[2] for c in row.get("columns", [])}
                ends = _fact_names(ws, conn, [cols.get("source_fact_id", ""), cols.get("target_fact_id", "")])
                out.append(FieldChange(f"edge {ends.get(cols.get('source_fact_id', ''), '?')} → "
                                       f"{ends.get(cols.get('target_fact_id', ''), '?')}",
                                       f"{cols.get('edge_type', '')} {_text(cols.get('weight'))}".strip(), "deleted"))
            handled |= {"ids", "rows"}
        elif entity == "fact" and action == "embed":
            n = len(detail.get("ids", []))
            out.append(FieldChange(f"{n:,} fact{'s' if n != 1 else ''} · embedding", "none", "a vector (written)"))
            handled |= {"ids", "digests"}
        if isinstance(detail.get("review"), dict) or isinstance(detail.get("decision"), dict):
            review = detail.get("review") or detail.get("decision")
            out.append(FieldChange("decision", "—", f"{review.get('decision', '?')} by {review.get('actor', '?')}"))
            handled |= {"review", "decision"}
        for fact_id, before, after in moves:
            here = dict(names)
            other = next((v for v in (before, after) if isinstance(v, str) and ":" not in v), None)
            if other is not None and other != fact_id and names.get(fact_id) == names.get(other):
                # two facts whose names read the same (one topic, a long shared start): named against each other
                pair = pair_names(ws, conn, fact_id, other)
                here.update({fact_id: f"fact {pair[0].short}", other: f"fact {pair[1].short}"})
            out.append(FieldChange(f"{here.get(fact_id, fact_id)} · superseded_by", _superseded(before, here),
                                   _superseded(after, here)))
    if moves:  # what the moves say, the ids that name them say too
        handled |= {"id", "ids", "before", "after", "was", "replaces", "loser", "winner", "loser_before",
                    "winner_before", "replaced", "conflict", "kept", "dropped", "keeper", "others", "conflicts",
                    "restored", "reviews", "winner", "finding", "finding_key"}
    for key, value in detail.items():
        if key not in SKIP and key not in handled:
            out.append(FieldChange(key, "", _text(value)))
    return out


__all__ = ["FieldChange", "field_changes"]
