"""Bursts: one fact that displaced many others at once ("collateral invalidation").

A *win* is a resolved contradiction: the winner superseded the loser at time ``at``.
A winner's wins form a burst when

- **rapid**: more than ``RAPID_COUNT - 1`` of them fall within one minute
  (``RAPID_COUNT`` wins whose times span less than ``WINDOW_S`` seconds), or
- **wide**: a single write (one second, one winner) superseded facts of
  ``WIDE_TOPICS`` or more different topics.

Wins that qualify are gathered into bursts: a winner's qualifying wins less than
``WINDOW_S`` apart belong to the same burst. Pure: no SQL, no Qt.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["RAPID_COUNT", "WIDE_TOPICS", "WINDOW_S", "Burst", "Win", "find_bursts"]

WINDOW_S = 60
RAPID_COUNT = 4  # "more than 3 within one minute"
WIDE_TOPICS = 2


@dataclass(frozen=True, slots=True)
class Win:
    conflict_id: str
    winner: str
    loser: str
    at: int
    order: int = 0  # the conflict row's insertion order (ties within a second)
    topic: str | None = None  # the loser's (domain, topic) when known; None: not read / missing
    domain: str | None = None


@dataclass
class Burst:
    winner: str
    wins: list[Win]
    rapid: bool = False
    wide: bool = False
    topics: set[tuple[str | None, str | None]] = field(default_factory=set)

    @property
    def first_at(self) -> int:
        return self.wins[0].at

    @property
    def last_at(self) -> int:
        return self.wins[-1].at

    @property
    def reason(self) -> str:
        n = len(self.wins)
        if self.first_at == self.last_at:
            text = f"one write superseded {n} facts"
            return text + (f" across {len(self.topics)} topics" if self.wide else "")
        parts = [f"{n} wins within {self.last_at - self.first_at + 1} s"] if self.rapid else []
        if self.wide:
            parts.append(f"a single write superseded facts across {len(self.topics)} topics")
        return "; ".join(parts)

    @property
    def key(self) -> str:
        """Stable id of the burst: its winner and its first conflict."""
        return f"{self.winner}@{self.wins[0].conflict_id}"


def _rapid_marks(times: list[int]) -> set[int]:
    marked: set[int] = set()
    n = RAPID_COUNT - 1
    for i in range(len(times) - n):
        if times[i + n] - times[i] < WINDOW_S:
            marked.update(range(i, i + n + 1))
    return marked


def _wide_marks(wins: list[Win]) -> set[int]:
    marked: set[int] = set()
    by_second: dict[int, list[int]] = defaultdict(list)
    for i, w in enumerate(wins):
        by_second[w.at].append(i)
    for idx in by_second.values():
        topics = {(wins[i].domain, wins[i].topic) for i in idx if wins[i].topic is not None}
        if len(topics) >= WIDE_TOPICS:
            marked.update(idx)
    return marked


def find_bursts(wins: Iterable[Win]) -> list[Burst]:
    """Every burst among ``wins``, newest first."""
    by_winner: dict[str, list[Win]] = defaultdict(list)
    for w in wins:
        by_winner[w.winner].append(w)
    bursts: list[Burst] = []
    for winner, mine in by_winner.items():
        if len(mine) < 2:
            continue
        mine.sort(key=lambda w: (w.at, w.order))
        rapid = _rapid_marks([w.at for w in mine])
        wide = _wide_marks(mine)
        current: Burst | None = None
        for i in sorted(rapid | wide):
            w = mine[i]
            if current is None or w.at - current.last_at >= WINDOW_S:
                current = Burst(winner, [])
                bursts.append(current)
            current.wins.append(w)
            current.rapid |= i in rapid
            current.wide |= i in wide
            if w.topic is not None:
                current.topics.add((w.domain, w.topic))
    bursts.sort(key=lambda b: (b.last_at, b.wins[-1].order), reverse=True)
    return bursts
