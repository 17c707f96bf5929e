"""A conflict's trail (or a burst) for a ticket: JSON and Markdown, full or content-free.

``trail_document`` / ``burst_document`` wrap what the trail and burst readers return
with what the export needs (kind, time); ``content_free`` turns a document into one
that can leave the team: every string that is not an id, a number-like value, a time or
a word of the product's vocabularies becomes ``sha256:<16 hex>`` of its text, and the
generated prose that quotes stored strings is dropped (the numbers stay). ``markdown``
renders either form; ``to_json`` is the JSON text.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Iterable
from typing import Any

from memorydesk.browse.conflicts.rows import DECISION_WORDS, state_text
from memorydesk.core.markdown import cell
from memorydesk.core.review.secrets import mask_secrets

__all__ = ["burst_document", "content_free", "markdown", "to_json", "trail_document"]

_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)
_SAFE = re.compile(r"^(sha256:[0-9a-f]+|[0-9a-f]{6,64}|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ|-?\d+(\.\d+)?)$")
#: words of the product's and the desk's vocabularies: no memory text can hide in them
VOCABULARY = frozenset({
    "contradiction", "cross_agent", "superseded", "open", "reviewed", "resolved", "active", "expired",
    "deleted", "missing", "purged", "sentinel", "stated", "inferred", "tool", "imported", "unknown",
    "fact", "preference", "decision", "commitment", "goal", "event", "instruction", "relationship", "context",
    "learning", "observation", "error", "artifact", "request", "ceo", "coder", "reviewer", "qa", "designer",
    "security", "devops", "pm", "general", "confirmed", "restored", "kept_a", "kept_b", "kept_both", "person",
    "agent", "system", "human", "system:harvest", "system:cleanup", "human:deleted", "human:undone",
    "conflict_trail", "burst", "fact.edit", "fact.delete", "conflict.restore_loser", "conflict.keep", "edit",
    "delete", "restore", "undo", "redo", "restore_loser", "confirm", "keep", "keep_both", "review_burst",
    "fact A", "fact B", "same topic",
})
#: generated sentences that quote stored strings (veracity as written, names): left out when content-free
PROSE = frozenset({"lines", "note"})
#: fields whose value is the person's or the agent's own words, hashed even when they look safe
TEXT_FIELDS = frozenset({"content", "topic", "domain", "reason", "actor", "name", "agent_name", "exported_by",
                         "veracity", "memory_type", "role", "agent_role_now"})


def _iso(ts: Any) -> str | None:
    if ts is None:
        return None
    try:
        return dt.datetime.fromtimestamp(int(ts), dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, OSError, ValueError, TypeError):
        return str(ts)


def hash_text(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def trail_document(trail: dict[str, Any], *, exported_by: str = "", now: int | None = None) -> dict[str, Any]:
    return {"kind": "conflict_trail", "exported_at": _iso(now if now is not None else _now()),
            "exported_by": exported_by, **secrets_masked(trail)}


def burst_document(detail: dict[str, Any], *, exported_by: str = "", now: int | None = None) -> dict[str, Any]:
    return {"kind": "burst", "exported_at": _iso(now if now is not None else _now()), "exported_by": exported_by,
            **secrets_masked(detail)}


def secrets_masked(doc: Any, key: str | None = None) -> Any:
    """The document with every secret in a fact's text masked whole (``core.review.secrets.mask_secrets``):
    a ticket never carries one."""
    if isinstance(doc, dict):
        return {k: secrets_masked(v, k) for k, v in doc.items()}
    if isinstance(doc, list):
        return [secrets_masked(v, key) for v in doc]
    if isinstance(doc, str) and key in ("content", "topic", "lines", "note"):
        return mask_secrets(doc)
    return doc


def _now() -> int:
    import time

    return int(time.time())


def _safe_string(key: str | None, value: str) -> str:
    if key in TEXT_FIELDS and not (key in ("veracity", "memory_type", "role") and value in VOCABULARY):
        return hash_text(value)
    if _ID.match(value) or _SAFE.match(value) or value in VOCABULARY:
        return value
    return hash_text(value)


def content_free(doc: Any, key: str | None = None) -> Any:
    """The document with every piece of stored text replaced by its hash (see the module docstring)."""
    if isinstance(doc, dict):
        out = {}
        for k, v in doc.items():
            if k in PROSE:
                continue
            out[k] = content_free(v, k)
        out.setdefault("content_free", True) if key is None else None
        return out
    if isinstance(doc, list):
        return [content_free(v, key) for v in doc]
    if isinstance(doc, str):
        return _safe_string(key, doc)
    return doc


def to_json(doc: dict[str, Any]) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


# --- Markdown -----------------------------------------------------------------------------------


def _quote(text: Any) -> list[str]:
    return [f"> {line}" if line else ">" for line in str(text or "").splitlines()] or [">"]


def _num(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else cell(value)


def _who(who: dict[str, Any] | None) -> str:
    if not who:
        return "unknown"
    kind, name = who.get("kind"), who.get("name")
    if kind == "person":
        action = str(who.get("action") or "").partition(".")[2]
        return f"{name} (a person, in the desk" + (f": {action}" if action else "") + ")"
    if kind == "agent":
        return f"agent {name} (its write)"
    if kind in ("system", "human"):
        return str(name)
    return "unknown (no conflict row or history names it)"


def _at(step: dict[str, Any]) -> str:
    """“at 2026-…Z”, or where the file does not say when (a cleanup), the earliest it can have been."""
    if step.get("at_known") is False:
        return f"at an unknown time, not before {_iso(step.get('at'))}"
    return f"at {_iso(step.get('at'))}"


def _state_words(doc: dict[str, Any]) -> str:
    """The conflict's state as the list and ``memory-desk conflicts`` say it: “superseded · loser restored”."""
    reviews = doc.get("reviews") or []
    facts = doc.get("facts") or {}
    dangling = not all((facts.get(k) or {}).get("exists", True) for k in ("a", "b"))
    decision = reviews[-1].get("decision") if reviews else None
    return state_text(doc["conflict"]["state"], DECISION_WORDS.get(decision, decision) if decision else None, dangling)


FACT_ROWS = (("id", "id"), ("state", "state"), ("domain", "domain"), ("topic", "topic"),
             ("agent", "author agent"), ("role", "author role"), ("veracity", "veracity"),
             ("weight", "veracity weight"), ("confidence", "confidence"), ("strength", "strength"),
             ("created_at", "created"), ("updated_at", "updated"), ("mention_count", "mentions"),
             ("recall_count", "recalls"), ("source_observation_ids", "source observations"),
             ("embedding_bytes", "embedding"), ("superseded_by", "superseded by"))


def _fact_value(f: dict[str, Any], key: str) -> str:
    if not f.get("exists", False) and key not in ("id", "state"):
        return "—"
    if key == "agent":
        name, agent = f.get("agent_name"), f.get("agent_id")
        return cell(f"{name} ({agent})" if name and agent else agent)
    if key == "veracity":
        raw, read = f.get("veracity"), f.get("veracity_read_as")
        return cell(raw if raw == read else f"{raw} (read as {read})")
    if key in ("created_at", "updated_at"):
        return cell(_iso(f.get(key)))
    if key == "source_observation_ids":
        return cell(", ".join(f.get(key) or []) or "none")
    if key == "embedding_bytes":
        value = f.get(key)
        return "none" if value is None else f"{value} bytes"
    return _num(f.get(key))


def _trail_md(doc: dict[str, Any]) -> list[str]:
    c, d, facts = doc["conflict"], doc["decision"], doc["facts"]
    resolved = c.get("recorded_winner") is not None
    names = ("A (loser)", "B (winner)") if resolved else ("A", "B")
    out = [f"# Conflict {c['id']}", "",
           f"- type: {c['type']}; state: {_state_words(doc)}",
           f"- rows: {len(c['rows'])} (first {_iso(c['first_at'])}, last {_iso(c['last_at'])}): "
           + ", ".join(r["id"] for r in c["rows"]),
           f"- fact A: {c['fact_a']}; fact B: {c['fact_b']}",
           f"- recorded winner: {c.get('recorded_winner') or 'none (open)'}",
           f"- exported {doc.get('exported_at')} by {doc.get('exported_by') or '—'}"
           + (" (content-free: texts are sha256 hashes)" if doc.get("content_free") else ""), "",
           "## The two facts", "", f"| | {names[0]} | {names[1]} |", "|---|---|---|"]
    out += [f"| {label} | {_fact_value(facts['a'], key)} | {_fact_value(facts['b'], key)} |"
            for key, label in FACT_ROWS]
    for name, f in zip(names, (facts["a"], facts["b"]), strict=True):
        if f.get("exists"):
            out += ["", f"**{name} content**", "", *_quote(f.get("content"))]
    out += ["", "## The decision (the product's rule, recomputed now)", ""]
    if d.get("rule_winner") is None:
        out.append("- the rule cannot be applied: a fact is missing")
    else:
        for name, key in (("A", "a"), ("B", "b")):
            s = d[key]
            out.append(f"- {name}: confidence {_num(s['confidence'])} × weight {_num(s['weight'])} "
                       f"({s['veracity_read_as']}) = {_num(s['strength'])}")
        side = "A" if d["rule_winner"] == c["fact_a"] else "B"
        out.append(f"- rule winner: {side} ({d['rule_winner']})" + (" — a tie: the newer fact wins" if d.get("tie")
                                                                      else ""))
        if d.get("matches") is not None:
            out.append("- recorded winner " + ("matches the rule" if d["matches"] else "**differs from the rule**"))
    if d.get("note"):
        out.append(f"- {d['note']}")
    out += ["", "## What happened since", ""]
    for name, key in (("A", "a"), ("B", "b")):
        chain = doc["chains"][key]
        out.append(f"**{name}** ({facts[key]['id']}, now {facts[key]['state']})")
        for o in chain.get("older", []):
            out.append(f"- earlier: {o['id']} ({o['state']}) superseded into {o['into']} {_at(o)} "
                       f"by {_who(o.get('who'))}")
        for x in chain.get("lapsed", []):
            back = (f"; put back at {_iso(x.get('back_at'))} by {_who(x.get('back_by'))}" if x.get("back_by") else "")
            out.append(f"- {x['id']} → {x['into']} {_at(x)} by {_who(x.get('who'))}; taken back at "
                       f"{_iso(x.get('ended_at'))} by {_who(x.get('ended_by'))} (entry {x.get('entry')}){back}")
        for node in chain.get("newer", []):
            nxt = node.get("next")
            if nxt:
                out.append(f"- {node['id']} → {nxt['id']} {_at(nxt)} by {_who(nxt.get('who'))}"
                           + (" (a cycle)" if nxt.get("cycle") else ""))
        tail = chain.get("newer", [])[-1:] if chain.get("newer") else []
        if tail:
            out.append(f"- in force at the end of the chain: {tail[0]['id']} ({tail[0]['state']})")
        if not chain.get("older") and len(chain.get("newer", [])) <= 1 and not chain.get("lapsed"):
            out.append("- no supersession")
        out.append("")
    out += ["## What people did in the desk", ""]
    out += [f"- {_iso(h['at'])} {h['action']} by {h['actor']}" + (f" — {h['reason']}" if h.get("reason") else "")
            + (" (undone)" if h.get("undone") else "") for h in doc.get("history", [])] or ["- nothing yet"]
    out += ["", "## Related conflicts", ""]
    out += [f"- {r['id']} {r['type']} {r['state']} ×{r['count']} last {_iso(r['last_at'])} ({', '.join(r['why'])})"
            for r in doc.get("related", [])] or ["- none"]
    return out


def _burst_md(doc: dict[str, Any]) -> list[str]:
    w = doc["winner"]
    out = [f"# Burst: {w['id']} displaced {len(doc['displaced'])} facts", "",
           f"- winner: {w['id']} ({w.get('state')}), topic {cell(w.get('topic'))}, domain {cell(w.get('domain'))}",
           f"- from {_iso(doc.get('first_at'))} to {_iso(doc.get('last_at'))}, {doc.get('topics')} topic(s)",
           f"- exported {doc.get('exported_at')} by {doc.get('exported_by') or '—'}"
           + (" (content-free: texts are sha256 hashes)" if doc.get("content_free") else ""), "",
           "| conflict | displaced fact | topic | state now | at | confidence | decisions |",
           "|---|---|---|---|---|---|---|"]
    for item in doc["displaced"]:
        if not item.get("exists"):
            out.append(f"| {item['conflict']} | (row gone) | | | | | |")
            continue
        f = item["fact"]
        decisions = ", ".join(f"{r['decision']} by {r['actor']}" for r in item.get("reviews", [])) or "—"
        out.append(f"| {item['conflict']} | {f['id']} | {cell(f.get('topic'))} | {f.get('state')} | "
                   f"{_iso(item.get('at'))} | {_num(f.get('confidence'))} | {cell(decisions)} |")
    return out


def markdown(doc: dict[str, Any]) -> str:
    lines: Iterable[str] = _trail_md(doc) if doc.get("kind") == "conflict_trail" else _burst_md(doc)
    return "\n".join(lines) + "\n"
