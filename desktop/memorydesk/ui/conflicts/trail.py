"""The trail pane: one conflict (or one burst) on one screen, as rich text.

The two facts side by side with a word-level diff, their provenance, the product's rule
recomputed with its arithmetic, each fact's supersession chain both ways (with times and
who), what people did, and the related conflicts. Links: ``fact:<id>`` opens the fact in
the Facts tab, ``conflict:<id>`` shows that conflict's trail.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QUrl, Signal
from PySide6.QtWidgets import QTextBrowser, QWidget

from memorydesk.browse.conflicts.bursts import BurstDetail
from memorydesk.browse.conflicts.rows import DECISION_WORDS, state_text
from memorydesk.browse.conflicts.trail_types import Trail, TrailChain, TrailConflict, TrailFact, Who
from memorydesk.core.product.conflict_rule import num
from memorydesk.core.review.secrets import mask_secrets
from memorydesk.core.worddiff import word_diff
from memorydesk.ui.widgets.text import is_rtl, when

TEXT_LIMIT = 20_000  # characters of a fact shown here (the Facts tab shows it whole)
REMOVED = "background-color: rgba(214, 48, 49, 0.22); text-decoration: line-through;"
ADDED = "background-color: rgba(39, 174, 96, 0.28);"
WARN = "background-color: rgba(192, 57, 43, 0.12);"
OPEN = "background-color: rgba(230, 160, 40, 0.18);"
OK = "background-color: rgba(39, 174, 96, 0.14);"
ACTION_WORDS = {"restore_loser": "Restore Loser", "keep": "Keep A/B", "review_burst": "Review Burst", "undo": "Undo",
                "redo": "Redo", "edit": "Edit", "delete": "Delete", "restore": "Restore", "merge": "Merge",
                "quarantine": "Quarantine"}


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def short(fact_id: str | None) -> str:
    return (fact_id or "")[:8]


def fact_link(fact_id: str, label: str | None = None, exists: bool = True) -> str:
    text = esc(label or short(fact_id) + "…")
    if not exists:
        return f"<span title='{esc(fact_id)}'>{text}</span>"
    return f"<a href='fact:{esc(fact_id)}' title='Open {esc(fact_id)} in the Facts tab'>{text}</a>"


def who_text(who: Who | None) -> str:
    if who is None:
        return "unknown"
    kind, name = who.kind, who.name
    if kind == "person":
        reason = f" — “{esc(who.reason)}”" if who.reason else ""
        return f"<b>{esc(name)}</b> (a person, in the desk: {esc(action_words(who.action))}){reason}"
    if kind == "agent":
        return f"agent <b>{esc(name)}</b> (its write)"
    if kind in ("system", "human"):
        return f"<code>{esc(name)}</code>"
    return "<i>unknown</i> (no conflict row or history names it)"


def action_words(action: str | None) -> str:
    """A desk change as its menu names it: ``conflict.restore_loser`` → “Restore Loser”."""
    name = (action or "").partition(".")[2] or (action or "a change")
    return ACTION_WORDS.get(name, name.replace("_", " ").capitalize())


def _on(at: int | None, after: bool = False) -> str:
    """“on 2026-12-03 07:04”, or where the file does not say when, the earliest it can have been."""
    return f"at an unknown time, not before {esc(when(at))}" if after else f"on {esc(when(at))}"


def _diffed(pieces: list[Any], limit: int = TEXT_LIMIT) -> str:
    out, used = [], 0
    for p in pieces:
        text = p.text[: max(0, limit - used)]
        used += len(text)
        body = esc(text).replace("\n", "<br>")
        style = REMOVED if p.kind == "removed" else ADDED if p.kind == "added" else ""
        out.append(f"<span style='{style}'>{body}</span>" if style else body)
        if used >= limit:
            out.append(" <i>… (cut here; open it in Facts for the whole text)</i>")
            break
    return "".join(out)


def _content_cells(a: TrailFact, b: TrailFact) -> tuple[str, str]:
    def missing(f: TrailFact) -> str:
        if f.state == "purged":
            p = f.purged
            return (f"<p style='{WARN}'>Purged by {esc(p.actor if p else None)} on {esc(when(p.at if p else None))}: "
                    "its text is gone for good.</p>")
        return (f"<p style='{WARN}'><b>This fact no longer exists</b> (deleted by the product: a real delete); "
                "the conflict row still names it.</p>")

    if not (a.exists and b.exists):
        one = lambda f: esc(mask_secrets(f.content or "")[:TEXT_LIMIT]) if f.exists else missing(f)  # noqa: E731
        return one(a), one(b)
    # secrets masked whole, as the trail's export masks them (``browse.conflicts.export``)
    pa, pb = word_diff(mask_secrets(a.content or ""), mask_secrets(b.content or ""))
    return _diffed(pa), _diffed(pb)


def _cell_dir(content: str | None) -> str:
    return " dir='rtl' align='right'" if is_rtl(content) else ""


def _text_cell(content: str | None, body: str) -> str:
    """A table cell holding a fact's text (``body``: ``content`` as shown), laid out
    right-to-left when the text is."""
    if is_rtl(content):
        return f"<td valign=top align='right'><div dir='rtl' align='right'>{body}</div></td>"
    return f"<td valign=top>{body}</td>"


def _state(f: TrailFact, missing: frozenset[str] = frozenset()) -> str:
    if not f.exists:
        return f"<b style='color:#c0392b'>{esc(f.state)}</b>"
    state, by = f.state, f.superseded_by
    if state == "superseded" and by:
        if ":" in by:
            return f"superseded (<code>{esc(by)}</code>)"
        return f"superseded by {fact_link(by, exists=by not in missing)}" + (" (no longer in the file)"
                                                                              if by in missing else "")
    return f"<b>{esc(state)}</b>" if state == "active" else esc(state)


def provenance(f: TrailFact, missing: frozenset[str] = frozenset()) -> str:
    """Who wrote the fact, how sure, when: three short lines under its text (``missing``: ids
    known to be gone, shown without a link)."""
    if not f.exists:
        return f"<small>id <code>{esc(f.id)}</code> · {_state(f)}</small>"
    name = f.agent_name or (short(f.agent_id) + "…" if f.agent_id else "no agent")
    gone = "" if f.agent_known or not f.agent_id else " <i>(no longer an agent)</i>"
    role = f.role or "no role"
    if f.role and f.role_read_as != f.role:
        role += f", read as {f.role_read_as or 'none'}"
    raw, read = f.veracity, f.veracity_read_as
    veracity = esc(raw) if raw == read else f"{esc(raw)} → read as {esc(read)}"
    ids = f.source_observation_ids
    sources = f"{len(ids)} source observation(s)" if ids else "no source observations"
    emb = f.embedding_bytes
    embedding = "no embedding" if emb is None else (
        "embedding" if emb == 1536 else f"embedding of {emb} bytes (malformed)")
    return (f"<small>{_state(f, missing)} · by <b>{esc(name)}</b>{gone} ({esc(role)}) · {esc(f.domain)} / "
            f"{esc(mask_secrets(f.topic or ''))}<br>veracity {veracity} (weight {f.weight:g}) · "
            f"confidence {f.confidence:.4g} · "
            f"mentions {esc(f.mention_count)} · recalls {esc(f.recall_count)}<br>"
            f"created {esc(when(f.created_at))} · updated {esc(when(f.updated_at))} · {sources} · "
            f"{embedding} · id <code>{esc(f.id)}</code></small>")


def strength(value: float, other: float) -> str:
    """A strength with 3 decimals, or as many more as it takes to tell it from the other side's
    (0.9 × 0.8 is 0.72 to a person, not the float 0.7200000000000001; two strengths that differ
    only in the 6th decimal show that decimal)."""
    for digits in range(3, 18):
        text, theirs = f"{value:.{digits}f}", f"{other:.{digits}f}"
        if value == other or text != theirs:
            return text
    return num(value)


def _decision(t: Trail) -> str:
    d, c = t.decision, t.conflict
    if d.rule_winner is None or d.a is None or d.b is None:
        return f"<p style='{WARN}'>{esc(d.note or 'The rule cannot be applied.')}</p>"
    rows = []
    for name, s, other, fact_id in (("A", d.a, d.b, c.fact_a), ("B", d.b, d.a, c.fact_b)):
        won = d.rule_winner == fact_id
        rows.append(f"<tr><td><b>{name}</b></td><td>{num(s.confidence)}</td><td>× {num(s.weight)}</td>"
                    f"<td>({esc(s.veracity_read_as)})</td><td>= <b>{strength(s.strength, other.strength)}</b></td>"
                    f"<td>{'← the rule keeps it' if won else ''}</td></tr>")
    side = "A" if d.rule_winner == c.fact_a else "B"
    verdict = (f"Equal strengths: the newer fact ({'A' if d.newer == c.fact_a else 'B'}) wins."
               if d.tie else f"{side} is stronger.")
    out = ["<table cellpadding=3 cellspacing=0><tr><th></th><th align=left>confidence</th><th align=left>"
           "× veracity weight</th><th></th><th align=left>strength</th><th></th></tr>", *rows, "</table>",
           f"<p>{verdict} "]
    if d.matches is True:
        out.append(f"<span style='{OK}'>The recorded winner ({side}) is what the rule gives today.</span></p>")
    elif d.matches is False:
        rec = "A" if d.recorded_winner == c.fact_a else "B"
        out.append(f"<span style='{WARN}'><b>The recorded winner is {rec}, but the rule gives {side} today</b>"
                   f" — {esc((d.note or '').partition(': ')[2])}.</span></p>")
    else:
        out.append(f"<span style='{OPEN}'>{esc(d.note)}.</span></p>")
    return "".join(out)


def _chain(name: str, f: TrailFact, chain: TrailChain, names: dict[str, str],
           missing: frozenset[str] = frozenset()) -> str:
    """One fact's chain: what it replaced (earlier versions), then each step forward to the
    version in force, each with when and who. ``names`` labels the conflict's two facts A and B;
    ``missing`` ids are gone from the file (no link)."""
    gone = missing | {n.id for n in chain.newer if n.state in ("missing", "purged")}

    def label(fact_id: str, exists: bool = True) -> str:
        if ":" in fact_id:
            return f"<code>{esc(fact_id)}</code>"
        return fact_link(fact_id, names.get(fact_id), exists and fact_id not in gone)

    head = f"<p><b>{name}</b> — now <b>{esc(f.state)}</b>"
    older, newer = chain.older, chain.newer
    if not f.exists:
        return head + ": no longer in the file, so its chain cannot be followed.</p>"
    if not chain.told:
        return head + ": never superseded, and it replaced nothing.</p>"
    parts = [head, "</p><ul>"]
    for o in older[:12]:
        parts.append(f"<li>earlier {label(o.id)} <small>(created {esc(when(o.created_at))})</small> → "
                     f"{label(o.into or '')} {_on(o.at, o.after)} by {who_text(o.who)}</li>")
    if len(older) > 12:
        parts.append(f"<li>… and {len(older) - 12} earlier versions</li>")
    for x in chain.lapsed:  # what no longer holds: set, then taken back by a person
        back = (f"; put back on {esc(when(x.back_at))} by {who_text(x.back_by)}" if x.back_by is not None else "")
        parts.append(f"<li>{label(x.id)} → {label(x.into)} {_on(x.at, x.after)} by {who_text(x.who)}; "
                     f"<b>taken back</b> on {esc(when(x.ended_at))} by {who_text(x.ended_by)} "
                     f"<small>(entry {x.entry})</small>{back}</li>")
    for node in newer:
        if node.next_id is not None:
            cycle = " <b>(a cycle)</b>" if node.cycle else ""
            parts.append(f"<li>{label(node.id)} → {label(node.next_id)} {_on(node.at, node.after)} by "
                         f"{who_text(node.who)}{cycle}</li>")
    if len(newer) > 1:
        tail = newer[-1]
        parts.append(f"<li>in force now: {label(tail.id, tail.state not in ('missing', 'purged'))}"
                     f" <i>({esc(tail.state)})</i></li>")
    parts.append("</ul>")
    return "".join(parts)


def _now(f: TrailFact, other: TrailFact, other_name: str) -> str:
    """What is true of a fact now, in a few words."""
    if not f.exists:
        return "no longer in the file" if f.state != "purged" else "purged"
    by = f.superseded_by
    if by is None:
        return "active"
    if by == other.id:
        return f"superseded by {other_name}"
    return "deleted" if f.state == "deleted" else f"superseded by {short(by)}…" if ":" not in by else \
        f"set aside ({by})"


def _side_label(name: str, f: TrailFact, c: TrailConflict, other: TrailFact) -> str:
    """The column head of a resolved contradiction's fact: what the product decided, and
    what is true now when that has changed (a restore, a later edit, a delete)."""
    other_name = "B" if name == "A" else "A"
    won = c.recorded_winner == f.id
    now = _now(f, other, other_name)
    if won:
        return f"{name} — won" if now == "active" else f"{name} — won; now {now}"
    if now == f"superseded by {other_name}":
        return f"{name} — lost, superseded by {other_name}"
    if now == "active":
        return f"{name} — lost, now active again"
    return f"{name} — lost; now {now}"


def _restore_note(t: Trail) -> str:
    r = t.restore
    if not r.says:
        return ""
    if r.possible:
        return f"<h4>Restore Loser (Ctrl+R) will</h4><p style='{OPEN}'>{esc(r.says)}</p>"
    return f"<p><small>Restore Loser: {esc(r.says)}</small></p>"


def trail_html(t: Trail, burst: str | None = None) -> str:
    c, a, b = t.conflict, t.a, t.b
    resolved = c.recorded_winner is not None
    kind = "Cross-agent disagreement" if c.type == "cross_agent" else c.type.capitalize()
    where = f"{b.domain} / {b.topic}" if b.exists else (f"{a.domain} / {a.topic}" if a.exists else "facts missing")
    reviews = t.reviews
    decided = DECISION_WORDS.get(reviews[-1].decision, reviews[-1].decision) if reviews else None
    state = state_text(c.state, decided, not (a.exists and b.exists))  # as the list says it
    head = [f"<h3 style='margin-bottom:2px'>{esc(kind)} · {esc(state)} · {esc(where)}</h3>",
            f"<p style='margin-top:0'>Conflict <code>{esc(c.id)}</code> · recorded {esc(when(c.created_at))}"]
    if c.resolved_at:
        head.append(f" · resolved {esc(when(c.resolved_at))}")
    if len(c.rows) > 1:
        head.append(f" · <b>flagged {len(c.rows)} times</b> by harmonize ({esc(when(c.first_at))} … "
                    f"{esc(when(c.last_at))})")
    head.append("</p>")
    if burst:
        head.append(f"<p style='{OPEN}'>Part of a burst: {esc(burst)}.</p>")
    for r in reviews[-3:]:
        head.append(f"<p style='{OK}'>{esc(DECISION_WORDS.get(r.decision, r.decision))} by <b>{esc(r.actor)}"
                    f"</b> on {esc(when(r.at))}" + (f": “{esc(r.reason)}”" if r.reason else "")
                    + "</p>")
    la, lb = (_side_label("A", a, c, b), _side_label("B", b, c, a)) if resolved else ("A", "B")
    ca, cb = _content_cells(a, b)
    gone = frozenset(x.id for x in (a, b) if not x.exists)
    names = {a.id: "A", b.id: "B"}
    facts = ("<table width='100%' cellpadding=5 cellspacing=0 border=1 style='border-collapse: collapse'>"
             f"<tr><th width='50%' align=left>{la} · {fact_link(a.id, exists=a.exists)}</th>"
             f"<th width='50%' align=left>{lb} · {fact_link(b.id, exists=b.exists)}</th></tr>"
             f"<tr>{_text_cell(a.content, ca)}{_text_cell(b.content, cb)}</tr>"
             f"<tr><td valign=top>{provenance(a, gone)}</td><td valign=top>{provenance(b, gone)}</td></tr></table>")
    chains = ("<table width='100%' cellpadding=2 cellspacing=0><tr>"
              f"<td width='50%' valign=top>{_chain('A', a, t.chain_a, names, gone)}</td>"
              f"<td width='50%' valign=top>{_chain('B', b, t.chain_b, names, gone)}</td></tr></table>")
    people = "".join(f"<li>{esc(when(h.at))} {esc(h.action)} by <b>{esc(h.actor)}</b>"
                     + (f" — “{esc(h.reason)}”" if h.reason else "")
                     + (" <i>(undone)</i>" if h.undone else "") + "</li>" for h in t.history)
    related = "".join(
        f"<li><a href='conflict:{esc(r.id)}'>{esc(r.type)}</a> · {esc(r.state)}"
        + (" · <b>dangling</b>" if r.dangling else "")
        + f" · {esc(r.domain)} / {esc(r.topic)} · {esc(when(r.last_at))}"
        + (f" · ×{r.count}" if r.count > 1 else "") + f" <i>({esc(', '.join(r.why))})</i></li>"
        for r in t.related)
    return "".join([
        *head, facts,
        "<h4>The decision — the product's rule, recomputed on the facts as they are now</h4>", _decision(t),
        _restore_note(t) if resolved else "",
        "<h4>What happened since</h4>", chains,
        "<h4>What people did in the desk</h4>", f"<ul>{people}</ul>" if people else "<p>Nothing yet.</p>",
        f"<h4>Related conflicts ({len(t.related)})</h4>",
        f"<ul>{related}</ul>" if related else "<p>None: no other conflict of this topic or of either fact.</p>",
    ])


def burst_html(d: BurstDetail, reason: str) -> str:
    w = d.winner
    where = f"{esc(w.domain)} / {esc(w.topic)}" if w.exists else "a missing fact"
    rows = []
    for item in d.displaced:
        f = item.fact
        if not item.exists or f is None:
            rows.append(f"<tr><td colspan=5><i>conflict {esc(item.conflict)} is gone</i></td></tr>")
            continue
        decided = ", ".join(DECISION_WORDS.get(r.decision, r.decision) + f" by {r.actor}" for r in item.reviews)
        still = "" if item.still_superseded_by_winner else " <i>(no longer superseded by the winner)</i>"
        text = esc((f.content or "")[:400]) if f.exists else "<i>missing</i>"
        rule = item.rule.lines if item.rule is not None else ()
        rows.append(
            f"<tr><td valign=top>{fact_link(f.id, f.topic, f.exists)}<br>"
            f"<small>{esc(f.domain)} · {esc(short(f.id))}</small></td>"
            f"{_text_cell(f.content, text)}"
            f"<td valign=top>{esc(f.state)}{still}</td>"
            f"<td valign=top>{'<br>'.join(esc(x) for x in rule)}</td>"
            f"<td valign=top><a href='conflict:{esc(item.conflict)}'>trail</a><br>{esc(decided)}</td></tr>")
    return "".join([
        f"<h3 style='margin-bottom:2px'>Burst · {esc(reason)}</h3>",
        f"<p style='margin-top:0'>Winner {fact_link(w.id, where, w.exists)} "
        f"<i>({esc(w.state)})</i> by agent {esc(w.agent_name or w.agent_id or '—')} displaced "
        f"<b>{len(d.displaced)}</b> fact(s) of {d.topics} topic(s), {esc(when(d.first_at))} … "
        f"{esc(when(d.last_at))}.</p>",
        f"<p{_cell_dir(w.content)}>{esc((w.content or '')[:TEXT_LIMIT])}</p>" if w.exists else "",
        "<p>This is the “collateral invalidation” graph memories are known for: one write, many facts gone. "
        "Review them together (Review Burst…): restore the ones that were still true, confirm the rest.</p>",
        "<table width='100%' cellpadding=4 cellspacing=0 border=1 style='border-collapse: collapse'>"
        "<tr><th align=left>Displaced fact</th><th align=left>Content</th><th align=left>Now</th>"
        "<th align=left>The rule</th><th align=left>Trail</th></tr>", *rows, "</table>"])


class TrailView(QTextBrowser):
    """Shows a trail; ``open_fact`` and ``open_conflict`` are its links."""

    open_fact = Signal(str)
    open_conflict = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conflict-trail")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._clicked)
        self.trail: Trail | None = None
        self.burst: BurstDetail | None = None
        self.show_nothing()

    def show_nothing(self, text: str = "Select a conflict to see its trail: the two facts side by side, who "
                                          "decided what and why, and everything that happened since.") -> None:
        self.trail = self.burst = None
        self.setHtml(f"<p style='color: gray'>{esc(text)}</p>")

    def show_trail(self, trail: Trail, burst: str | None = None) -> None:
        """Show a trail; the same conflict read again keeps its place on the page."""
        same = self.trail is not None and self.trail.conflict.id == trail.conflict.id
        scroll = self.verticalScrollBar().value()
        self.trail, self.burst = trail, None
        self.setHtml(trail_html(trail, burst))
        if same:
            self.verticalScrollBar().setValue(scroll)

    def show_burst(self, detail: BurstDetail, reason: str) -> None:
        self.trail, self.burst = None, detail
        self.setHtml(burst_html(detail, reason))

    def _clicked(self, url: QUrl) -> None:
        target = url.toString()
        kind, _sep, value = target.partition(":")
        if kind == "fact" and value:
            self.open_fact.emit(value)
        elif kind == "conflict" and value:
            self.open_conflict.emit(value)
