"""The evidence of one finding as HTML for the detail pane: what was found, where, why it
matters, and for duplicates the members side by side with a word diff. Every text is
escaped; secrets arrive masked (``core.review.mask``) and stay so."""

from __future__ import annotations

import html
import time
from typing import Any

from memorydesk.core.review.finding import Finding
from memorydesk.core.review.kinds import ReviewKind
from memorydesk.ui.review.model import ITEM_WORDS, SEVERITY_COLOURS


def _e(text: Any) -> str:
    return html.escape(str(text))


def _when(ts: Any) -> str:
    try:
        return time.strftime("%Y-%m-%d %H:%M", time.gmtime(int(ts)))
    except (TypeError, ValueError, OverflowError):
        return "—"


def evidence_html(f: Finding) -> str:
    ev = f.evidence
    colour = SEVERITY_COLOURS[f.severity]
    out = [f"<h3 style='margin:0'>{_e(ReviewKind(f.kind).words)} · <span style='color:{colour}'>{_e(f.severity)}</span>"
           f" · {_e(f.state)}</h3>",
           f"<p>{_e(ITEM_WORDS[f.item_kind])} <code>{_e(f.item_id)}</code>, field <b>{_e(f.field)}</b>"
           + (f", domain {_e(f.domain)}" if f.domain else "") + "</p>",
           f"<p><i>{_e(ReviewKind(f.kind).why)}</i></p>"]
    if ev.get("explanation"):
        out.append(f"<p><b>{_e(ev.get('rule', ''))}</b>: {_e(ev['explanation'])}</p>")
    if ev.get("masked"):
        out.append(f"<p>Found (masked): <code>{_e(ev['masked'])}</code></p>")
    if ev.get("excerpt"):
        out.append(f"<p>In context: <code>{_e(ev['excerpt'])}</code></p>")
    if ev.get("characters"):
        out.append(f"<p>Characters: {_e(ev['characters'])}</p>")
    if ev.get("says"):
        out.append(f"<p>{_e(ev['says'])}</p>")
    if f.kind == "duplicate":
        out += _duplicate(ev)
    if f.kind == "losing_correction":
        out += _correction(ev)
    for key in ("note", "encoding"):
        if ev.get(key):
            out.append(f"<p style='color:#7f8c8d'>{_e(ev[key])}</p>")
    if ev.get("decision"):
        d = ev["decision"]
        out.append(f"<p>{_e(d.get('as', 'dismissed')).capitalize()} by {_e(d.get('by'))} on {_when(d.get('at'))}: "
                   f"{_e(d.get('reason'))}</p>")
    return "".join(out)


def _diff(pieces: list[list[str]]) -> str:
    colours = {"removed": "#fadbd8", "added": "#d5f5e3"}
    return "".join(f"<span style='background:{colours[k]}'>{_e(t)}</span>" if k in colours else _e(t)
                   for k, t in pieces)


def _duplicate(ev: dict[str, Any]) -> list[str]:
    out = [f"<p>{len(ev['cluster'])} facts, cosine ≥ {_e(ev.get('min_cosine'))}. {_e(ev['mmr'].get('says', ''))}</p>"]
    # each member a block, its content the pane's whole width (four table columns in a pane
    # 400 px wide left the content one word a line at 1280 px)
    for m in ev.get("members", []):
        out.append(f"<p><code>{_e(m['id'][:8])}</code> · {_e(m['domain'])} / {_e(m['topic'])} · "
                   f"{_when(m['created_at'])}<br>{_e(m['content'])}</p>")
    for d in ev.get("diffs", []):
        diff = d["diff"]
        out.append(f"<p>Newest <code>{_e(d['a'][:8])}</code> against <code>{_e(d['b'][:8])}</code> (cosine "
                   f"{_e(d['cosine'])}):<br>{_diff(diff['a'])}<br>{_diff(diff['b'])}</p>")
    for drop in ev["mmr"].get("dropped", []):
        out.append(f"<p>MMR drops <code>{_e(drop['id'][:8])}</code> for “{_e(drop['query'])}” because "
                   f"<code>{_e(drop['dropped_for'][:8])}</code> was chosen "
                   f"(word similarity {_e(drop['similarity'])}).</p>")
    return out


def _correction(ev: dict[str, Any]) -> list[str]:
    out = ["<table cellspacing='0' cellpadding='4' border='1' style='border-collapse:collapse'>"
           "<tr><th></th><th>fact</th><th>created</th><th>place for the query</th><th>content</th></tr>"]
    for label in ("older", "newer"):
        side = ev[label]
        place = f"#{side['rank']}" if side.get("rank") else f"not in the top 10 ({side.get('lost_at')})"
        out.append(f"<tr><td>{label}</td><td><code>{_e(side['id'][:8])}</code> {_e(side['domain'])} / "
                   f"{_e(side['topic'])}</td><td>{_when(side['created_at'])}</td><td>{_e(place)}</td>"
                   f"<td>{_e(side['content'])}</td></tr>")
    out.append("</table>")
    out.append(f"<p>Query: “{_e(ev.get('query'))}” · cosine {_e(ev.get('cosine'))} · cue: {_e(ev.get('cue'))}</p>")
    return out


def whole_html(f: Finding, text: str) -> str:
    """The item's whole text (masked already), below the evidence: what Open item shows of a note
    or a working-memory item, which no other tab lists."""
    return (f"<h3><a name='whole'></a>The whole {_e(ITEM_WORDS[f.item_kind])} ({len(text):,} characters, "
            "secrets and personal data masked)</h3>"
            f"<pre style='white-space: pre-wrap'>{_e(text)}</pre>")
