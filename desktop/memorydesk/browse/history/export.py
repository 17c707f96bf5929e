"""The history as text, JSON Lines-free JSON and Markdown, whole or content-free.

Content-free (for a ticket outside the team, as the Conflicts export): each summary —
it quotes topics, contents and rules — and each reason a person typed becomes
``sha256:`` and the first 16 hex digits of its hash; times, ids, actors, kinds, actions
and the reasons the desk itself words stay.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from memorydesk.browse.conflicts.export import hash_text
from memorydesk.browse.history.entries import HistoryQuery
from memorydesk.browse.history.event import Event
from memorydesk.core.markdown import cell
from memorydesk.core.moments import local_text, utc_text


def shared(event: Event, content_free: bool) -> dict:
    row = event.to_json()
    if content_free:
        row["summary"] = hash_text(row["summary"])
        if event.actor_kind == "reviewer" and row["reason"]:
            row["reason"] = hash_text(row["reason"])
    return row


def export_json(events: Iterable[Event], *, content_free: bool = False) -> Iterator[str]:
    """``[{at, actor, actor_kind, kind, action, ids, summary, reason, undone, at_known, entry, undone_by,
    details}, …]`` in chunks."""
    first = True
    for event in events:
        yield ("[\n  " if first else ",\n  ") + json.dumps(shared(event, content_free), ensure_ascii=False)
        first = False
    yield "[]\n" if first else "\n]\n"


def entry_text(event: Event) -> str:
    """“#43” for the desk's entry 43 (what “undo of entry 43” names), “-” for what agents wrote."""
    return f"#{event.history_id}" if event.history_id is not None else "-"


def what_text(event: Event) -> str:
    """“grant set · undone by #49”: the tab's What, with the entry that undid it."""
    return event.what + (f" by #{event.undone_by}" if event.undone_by else "")


def text_line(event: Event, *, content_free: bool = False) -> str:
    """One line: time, entry, who, what, ids, the summary (what changed), then “why:” and
    the reason, and “details:” what the row says of itself — never mixed up."""
    if content_free:
        row = shared(event, content_free)
        summary, said = row["summary"], row["reason"]
    else:  # the event's own fields (no JSON row made for each of many thousand lines)
        summary, said = event.summary, event.reason
    reason = f"  why: {said}" if said else ""
    details = f"  details: {event.details}" if event.details else ""
    return (f"{'after ' if event.after else ''}{utc_text(event.at)}  {entry_text(event):<6} {event.actor_kind:<8} "
            f"{event.actor}  {what_text(event)}  {' '.join(event.ids)}  {summary}{reason}{details}")


def export_markdown(events: Iterable[Event], name: str, q: HistoryQuery, *,
                    content_free: bool = False) -> Iterator[str]:
    span = f"{utc_text(q.since) if q.since is not None else 'the beginning'} – " \
           f"{utc_text(q.until) if q.until is not None else 'now'}"
    filters = ", ".join(f"{k} {v}" for k, v in (("kind", q.kind), ("actor", q.actor), ("text", q.text)) if v)
    yield f"# History of {cell(name)}\n\n{span}" + (f"; {filters}" if filters else "") + \
        (" (content-free)" if content_free else "") + "\n\n"
    yield ("| time (UTC) | local | entry | who | what | summary | ids | why | details |\n"
           "|---|---|---|---|---|---|---|---|---|\n")
    count = 0
    for event in events:
        row = shared(event, content_free)
        after = "after " if event.after else ""
        yield (f"| {after}{utc_text(event.at)} | {after}{local_text(event.at)} | {entry_text(event)} | "
               f"{cell(event.actor)} ({event.actor_kind}) | {event.what} | {cell(row['summary'])} | "
               f"{cell(' '.join(event.ids))} | {cell(row['reason'])} | {cell(event.details)} |\n")
        count += 1
    yield f"\n{count:,} change{'s' if count != 1 else ''}.\n"
