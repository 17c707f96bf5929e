"""What the Lineage tab says above the timeline when the picture needs a sentence to stay true:
receipts dated after this computer's clock (they are stored, but a receipt counts only from
its ``atUtc`` on — as ``lineage classify`` counts it), and history whose every receipt is older
than the freshness window (all of it reads stale; one click evaluates at the newest receipt), and
an evaluated time before every receipt (nothing is drawn: said, with the way back to the clock)."""

from __future__ import annotations

import html

from memorydesk.core.receipt_codes import from_us
from memorydesk.lineage.runs import RunTable
from memorydesk.ui.lineage.axes import when_text

US = 1_000_000
NEWEST_LINK = "evaluate:newest"
NOW_LINK = "evaluate:now"


def span_text(us: int) -> str:
    """A length of time in words: ``4 s``, ``12 min``, ``3 h 20 min``, ``624 days``."""
    seconds = max(0, round(us / US))
    if seconds < 90:
        return f"{seconds} s"
    minutes = round(seconds / 60)
    if minutes < 90:
        return f"{minutes} min"
    hours, rest = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {rest} min" if rest else f"{hours} h"
    return f"{round(hours / 24):,} days"


def ahead_of_clock(whole: RunTable, cut: RunTable, now_us: int) -> str:
    """Receipts stored but dated after the clock (following it): said, never silently left out."""
    if not cut.later:
        return ""
    ahead = int(whole.end.max()) - now_us
    receipts = f"{cut.later:,} receipt{'' if cut.later == 1 else 's'}"
    runs = f"{cut.later_runs:,} run{'' if cut.later_runs == 1 else 's'}"
    when = (f" The first counts at {html.escape(when_text(cut.later_us / US))}."
            if cut.later_us is not None else "")
    return (f"<b>{receipts} of {runs} {'is' if cut.later == 1 else 'are'} dated after this computer's clock</b>, "
            f"up to {span_text(ahead)} ahead (another host's clock, or a producer's?). A receipt counts from its "
            f"time on, as <code>lineage classify --now</code> counts it: until then "
            f"{'it is' if cut.later == 1 else 'they are'} stored but not drawn or judged.{when}")


def before_all(whole: RunTable, now_us: int) -> str:
    """An evaluated time before every receipt: an empty timeline, said rather than left unexplained."""
    if not len(whole) or now_us >= int(whole.start.min()):
        return ""
    first = int(whole.start.min())
    return (f"<b>No run has begun at the evaluated time</b>: the first receipt is from "
            f"{html.escape(when_text(first / US))}, {span_text(first - now_us)} later, so nothing is drawn. "
            f'<a href="{NOW_LINK}">Evaluate now</a>, or type a later time.')


def all_stale(whole: RunTable, now_us: int, fresh_us: int) -> str:
    """Every receipt older than the freshness window: say so, and offer the newest receipt's time."""
    if not len(whole):
        return ""
    newest = int(whole.end.max())
    if now_us - newest <= fresh_us:
        return ""
    return (f"<b>Every receipt is older than the freshness window</b>: the newest is from "
            f"{html.escape(when_text(newest / US))}, {span_text(now_us - newest)} before the evaluated time, so "
            f"every run no earlier rule catches reads <i>stale_evidence</i> — old evidence, not a fault. "
            f'<a href="{NEWEST_LINK}">Evaluate at the newest receipt</a> to see each run as an operator saw it then.')


def newest_moment(whole: RunTable):
    return from_us(int(whole.end.max()))
