"""The comparison as a person reads it: one tree item per difference, grouped by kind with
counts, and each item's two versions side by side (HTML, with a word diff of text; an agent's
notes as their text). Every text is shown as ``core.review.shown`` shows it — the one rule of the
History tab, the trails and the exports: every secret and every piece of personal data masked,
so what a backup still holds (a redacted e-mail address, a key) is never shown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memorydesk.browse.history.diff import Comparison, Version
from memorydesk.core.moments import utc_text
from memorydesk.core.review.shown import shown as masked_text
from memorydesk.core.worddiff import word_diff

ADDED = "background:#c8f0c8"
REMOVED = "background:#f6c6c6;text-decoration:line-through"
TEXT_FIELDS = ("content", "rule", "topic")  # word-diffed
ID_FIELDS = ("id", "workspace_id", "agent_id", "authored_by_agent_id", "superseded_by", "source_observation_ids",
             "source_fact_ids")  # ids, shown as they are (the masks would take digits for a phone number)
TIME_FIELDS = ("created_at", "updated_at", "valid_until", "last_recalled_at")


@dataclass(frozen=True)
class Item:
    kind: str  # fact | policy | grant | edge | conflict | note
    change: str  # added | removed | superseded | restored | changed | resolved
    key: Any  # the id, the (role, domain) pair, or the edge triple
    label: str
    fields: tuple[str, ...] = ()
    grant: dict | None = None

    @property
    def restorable(self) -> bool:
        """Restore from backup brings back a single removed or changed fact, policy or grant."""
        if self.kind in ("fact", "policy"):
            return self.change in ("removed", "changed", "superseded", "restored")
        return self.kind == "grant"


def groups(c: Comparison) -> list[tuple[str, list[Item]]]:
    """(heading, items) in a fixed order; headings carry the count."""
    out: list[tuple[str, list[Item]]] = []

    def add(title: str, items: list[Item]) -> None:
        out.append((f"{title} ({len(items):,})", items))

    for change in ("added", "removed", "superseded", "restored"):
        add(f"Facts {change}", [Item("fact", change, fid, fid) for fid in c.facts[change]])
    add("Facts changed", [Item("fact", "changed", x["id"], f"{x['id']} — {', '.join(x['fields'])}",
                               tuple(x["fields"])) for x in c.facts["changed"]])
    for change in ("added", "removed"):
        add(f"Policies {change}", [Item("policy", change, pid, pid) for pid in c.policies[change]])
    add("Policies changed", [Item("policy", "changed", x["id"], f"{x['id']} — {', '.join(x['fields'])}",
                                  tuple(x["fields"])) for x in c.policies["changed"]])
    add("Grants changed", [Item("grant", "changed", (g["role"], g["domain"]),
                                f"{g['role']} × {g['domain']}: {g['before']} → {g['after']}",
                                grant={**g, "sources": c.grant_sources.get((g["role"], g["domain"]), ("", ""))})
                           for g in c.grants])
    for change in ("added", "removed"):
        add(f"Edges {change}", [Item("edge", change, tuple(e), f"{e[0]} → {e[1]} ({e[2]})") for e in c.edges[change]])
    for change in ("added", "resolved"):
        add(f"Conflicts {change}", [Item("conflict", change, cid, cid) for cid in c.conflicts[change]])
    add("Notes changed", [Item("note", "changed", a, a) for a in c.notes_changed])
    return out


def esc(value: Any) -> str:
    return str(value if value is not None else "—").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _pieces(pieces: list[Any]) -> str:
    out = []
    for p in pieces:
        body = esc(p.text).replace("\n", "<br>")
        style = REMOVED if p.kind == "removed" else ADDED if p.kind == "added" else ""
        out.append(f"<span style='{style}'>{body}</span>" if style else body)
    return "".join(out)


def _value(name: str, value: Any) -> str:
    if name in TIME_FIELDS and isinstance(value, int):
        return f"{value} ({utc_text(value)})"
    return esc(masked_text(value) if isinstance(value, str) and name not in ID_FIELDS else value)


def side_by_side(item: Item, old: Version | None, new: Version | None, old_name: str,
                 new_name: str) -> tuple[str, str]:
    """HTML for the older and the newer version of a fact or policy (changed fields marked)."""
    if item.kind == "grant" and item.grant is not None:
        g, src = item.grant, item.grant.get("sources", ("", ""))
        return (f"<h3>{esc(old_name)}</h3><p>{esc(g['role'])} × {esc(g['domain'])}: <b>{esc(g['before'])}</b> "
                f"({esc(src[0])})</p>",
                f"<h3>{esc(new_name)}</h3><p>{esc(g['role'])} × {esc(g['domain'])}: <b>{esc(g['after'])}</b> "
                f"({esc(src[1])})</p>")
    if old is None and new is None:
        text = f"<p>{esc(item.label)}</p>"
        return f"<h3>{esc(old_name)}</h3>{text}", f"<h3>{esc(new_name)}</h3>{text}"
    shown = old if old is not None else new
    assert shown is not None
    left, right = [], []
    for name in shown.names:
        a = old.value(name) if old is not None else None
        b = new.value(name) if new is not None else None
        mark = " style='background:#fff3c4'" if old is not None and new is not None and a != b else ""
        if old is not None and new is not None and a != b and name in TEXT_FIELDS and isinstance(a, str) \
                and isinstance(b, str):
            pa, pb = word_diff(masked_text(a), masked_text(b))  # a backup's secret stays masked
            va, vb = _pieces(pa), _pieces(pb)
        else:
            va, vb = _value(name, a), _value(name, b)
        left.append(f"<tr{mark}><td><b>{esc(name)}</b></td><td>{va}</td></tr>")
        right.append(f"<tr{mark}><td><b>{esc(name)}</b></td><td>{vb}</td></tr>")
    missing = "<p><i>Not in this file.</i></p>"
    return (f"<h3>{esc(old_name)}</h3>" + (f"<table cellspacing=3>{''.join(left)}</table>" if old else missing),
            f"<h3>{esc(new_name)}</h3>" + (f"<table cellspacing=3>{''.join(right)}</table>" if new else missing))
