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
from memorydesk.browse.history.sources import Event
from memorydesk.core.moments import local_text, utc_text


def shared(event: Event, content_free: bool) -> dict:
    row = event.to_json()
    if content_free:
        row["summary"] = hash_text(row["summary"])
        if event.actor_kind == "reviewer" and row["reason"]:
            row["reason"] = hash_text(row["reason"])
    return row


def export_json(events: Iterable[Event], *, content_free: bool = False) -> Iterator[str]:
    """``[{at, actor, actor_kind, kind, action, ids, summary, reason, undone}, …]`` in chunks."""
    first = True
    for event in events:
        yield ("[\n  " if first else ",\n  ") + json.dumps(shared(event, content_free), ensure_ascii=False)
        first = False
    yield "[]\n" if first else "\n]\n"


def text_line(event: Event, *, content_free: bool = False) -> str:
    if content_free:
        row = shared(event, content_free)
        summary, reason = row["summary"], row["reason"]
    else:
        summary, reason = event.summary, event.reason
    why = f"  ({reason})" if reason else ""
    return (f"{'after ' if event.after else ''}{utc_text(event.at)}  {event.actor_kind:<8} {event.actor}  "
            f"{event.what}  {' '.join(event.ids)}  {summary}{why}")


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def export_markdown(events: Iterable[Event], name: str, q: HistoryQuery, *, content_free: bool = False) -> Iterator[str]:
    span = f"{utc_text(q.since) if q.since is not None else 'the beginning'} – " \
           f"{utc_text(q.until) if q.until is not None else 'now'}"
    filters = ", ".join(f"{k} {v}" for k, v in (("kind", q.kind), ("actor", q.actor), ("text", q.text)) if v)
    yield f"# History of {_cell(name)}\n\n{span}" + (f"; {filters}" if filters else "") + \
        (" (content-free)" if content_free else "") + "\n\n"
    yield "| time (UTC) | local | who | kind | what | ids | why |\n|---|---|---|---|---|---|---|\n"
    count = 0
    for event in events:
        row = shared(event, content_free)
        after = "after " if event.after else ""
        yield (f"| {after}{utc_text(event.at)} | {after}{local_text(event.at)} | {_cell(event.actor)} ({event.actor_kind}) | "
               f"{event.what} | {_cell(row['summary'])} | {_cell(' '.join(event.ids))} | "
               f"{_cell(row['reason'])} |\n")
        count += 1
    yield f"\n{count:,} change{'s' if count != 1 else ''}.\n"
