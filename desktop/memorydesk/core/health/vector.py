"""The health rules over receipt columns (numpy): the one implementation of rules 1 to 6 and of
what rules 3, 7 and 8 need from the clock, for one run or 100,000 (the desk's timeline: a few
seconds; one receipt object per receipt would not fit that). The run detail, ``lineage
classify`` and the canary judge through it too (``core.health.scalar``), so every view
gives a run the same state; ``core.health.reasons`` names the receipts behind it.

Input: :class:`ReceiptColumns`, one entry per receipt, grouped by run (``run`` is
non-decreasing, each run's receipts in the order stored), from the store's blocks
(``lineage.runs``) or from receipts (:func:`columns_of`). Versions are codes into
``versions`` (``depends`` shares the codes); times are microseconds since the epoch, tiers
and statuses coded as ``core.receipt_codes`` codes them.
Output: :class:`~memorydesk.core.health.arrays.ClockColumns`, one row per run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from memorydesk.core.health.arrays import ClockColumns
from memorydesk.core.receipt_codes import (
    FAILED,
    GENERATION,
    LPM,
    MTM,
    NEVER,
    RETRIEVAL,
    STM,
    packed_of,
    to_us,
)
from memorydesk.core.receipts import Receipt

_NUMBERED: Final = re.compile(r"([^0-9]*)([0-9]+)")


@dataclass
class ReceiptColumns:
    run: np.ndarray  # int64, non-decreasing: the run of each receipt (0 .. runs-1)
    user: np.ndarray  # int64 scope codes (or codes of the (user, assistant) pair, with assistant all 0)
    assistant: np.ndarray  # int64
    tier: np.ndarray  # int8, TIER_CODES
    status: np.ndarray  # int8, STATUS_CODES
    version: np.ndarray  # int64 codes into ``versions``
    at: np.ndarray  # int64 µs
    line: np.ndarray  # int64 (0: none)
    present: np.ndarray  # int8: sourcePresent -1 unstated, 0 false, 1 true
    until: np.ndarray  # int64 µs: waitingUntil, NEVER when unstated
    expected: np.ndarray  # int8: expectedVersion -1 unstated, 0 the version itself, 1 another
    depends: np.ndarray  # int64 version code of dependsOnVersion, -1 unstated (codes need not all be used)
    outcome: np.ndarray  # bool: outcomeReceipt stated
    no_source: np.ndarray  # bool: sourceVersion unstated
    canary: np.ndarray  # bool
    versions: list[str]
    runs: int


#: one receipt as ``columns_of`` reads it: times (µs), its line, the small fields as
#: ``core.receipt_codes.packed_of`` packs them, and codes of its version, dependsOnVersion and scopes
_ROW: Final = np.dtype([("at", "<i8"), ("until", "<i8"), ("line", "<i8"), ("packed", "<i8"), ("version", "<i8"),
                        ("depends", "<i8"), ("scope", "<i8")])


def columns_of(runs: Sequence[Sequence[Receipt]]) -> tuple[ReceiptColumns, list[tuple[str, str]]]:
    """Runs of receipts (each run's receipts in their order) as columns, and the (userScope,
    assistantScope) pairs the ``user`` codes name (``assistant`` is all 0): one pass over the
    receipts into one record array, unpacked in numpy."""
    versions: dict[str, int] = {}
    scopes: dict[tuple[str, str], int] = {}
    code, scope = versions.setdefault, scopes.setdefault

    def rows():
        for run in runs:
            for r in run:
                until, depends = r.waiting_until, r.depends_on_version
                yield (to_us(r.at_utc), NEVER if until is None else to_us(until), r.line or 0, packed_of(r),
                       code(r.version, len(versions)), -1 if depends is None else code(depends, len(versions)),
                       scope((r.user_scope, r.assistant_scope), len(scopes)))

    lengths = np.fromiter(map(len, runs), np.int64, len(runs))
    rec = np.fromiter(rows(), _ROW, int(lengths.sum()))
    packed = rec["packed"]
    return ReceiptColumns(
        run=np.repeat(np.arange(len(runs), dtype=np.int64), lengths), user=rec["scope"],
        assistant=np.zeros(len(rec), np.int64), tier=(packed & 7).astype(np.int8),
        status=((packed >> 3) & 7).astype(np.int8), version=rec["version"], at=rec["at"], line=rec["line"],
        present=(((packed >> 6) & 3) - 1).astype(np.int8), until=rec["until"],
        expected=(((packed >> 8) & 3) - 1).astype(np.int8), depends=rec["depends"],
        outcome=(packed >> 10) & 1 > 0, no_source=(packed >> 11) & 1 > 0, canary=(packed >> 12) & 1 > 0,
        versions=list(versions), runs=len(runs)), list(scopes)


def _versions_order(versions: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per version code: numbered (one prefix + digits), its prefix code, the rank of its number."""
    numbered = np.zeros(len(versions), bool)
    prefix = np.full(len(versions), -1, np.int64)
    numbers: list[int] = []
    prefixes: dict[str, int] = {}
    for code, text in enumerate(versions):
        match = _NUMBERED.fullmatch(text)
        if match is None:
            numbers.append(-1)
            continue
        numbered[code] = True
        prefix[code] = prefixes.setdefault(match[1], len(prefixes))
        numbers.append(int(match[2]))
    ranks = {n: r for r, n in enumerate(sorted(set(numbers)))}
    return numbered, prefix, np.asarray([ranks[n] for n in numbers], np.int64)


def _any(mask: np.ndarray, starts: np.ndarray) -> np.ndarray:
    return np.maximum.reduceat(mask.astype(np.uint8), starts) > 0 if len(mask) else np.zeros(0, bool)


def clock_columns(c: ReceiptColumns) -> ClockColumns:
    """Every run's clock-free findings (see the module)."""
    n_runs = c.runs
    starts = np.searchsorted(c.run, np.arange(n_runs))
    done = (c.status == 2) | (c.status == 3)
    stm = c.tier == STM

    # 1. scope_conflict
    conflict = (np.maximum.reduceat(c.user, starts) != np.minimum.reduceat(c.user, starts)) | \
        (np.maximum.reduceat(c.assistant, starts) != np.minimum.reduceat(c.assistant, starts))

    # per (run, version)
    width = max(len(c.versions), 1) + 1
    keys, pair = np.unique(c.run * width + c.version, return_inverse=True)
    pair_run = keys // width
    n_pairs = len(keys)

    def pair_any(mask: np.ndarray) -> np.ndarray:
        return np.bincount(pair[mask], minlength=n_pairs) > 0

    has_stm = pair_any(stm)
    gone = pair_any(stm & (c.present == 0))
    durable = pair_any(((c.tier == MTM) | (c.tier == LPM)) & done)
    declared_mask = stm & (c.until != NEVER)
    declared = pair_any(declared_mask)
    until = np.full(n_pairs, np.iinfo(np.int64).min, np.int64)
    np.maximum.at(until, pair[declared_mask], c.until[declared_mask])
    open_pair = has_stm & ~durable
    at_risk, undeclared = open_pair & gone, open_pair & ~gone & ~declared
    window = open_pair & ~gone & declared

    def run_any(mask: np.ndarray) -> np.ndarray:
        return np.bincount(pair_run[mask], minlength=n_runs) > 0

    closes = np.full(n_runs, NEVER, np.int64)
    np.minimum.at(closes, pair_run[window], until[window])
    fixed = np.where(conflict, 1, np.where(run_any(at_risk), 2, np.where(run_any(undeclared), 3, 0))).astype(np.int8)

    # 4. stale_retrieval
    retrieved = (c.tier == RETRIEVAL) & done
    stale = np.zeros(n_runs, bool)
    stale[c.run[retrieved & (c.expected == 1)]] = True
    stale |= _implicit_stale(c, done, pair, keys, width, n_runs)

    # 5. generation_unverified
    returned = np.unique(c.run[retrieved] * width + c.version[retrieved])
    generation = c.tier == GENERATION
    finished = pair_any(generation & (c.status >= 2))
    judged = generation & ~((c.status <= 1) & finished[pair])
    depends_key = c.run * width + np.where(c.depends >= 0, c.depends, width - 1)
    problem = (c.depends < 0) | ~c.outcome | ~np.isin(depends_key, returned)
    unverified = np.zeros(n_runs, bool)
    unverified[c.run[judged & problem]] = True

    # 6. uncertain: a receipt without sourceVersion, no stm receipt, a failed latest receipt
    uncertain = _any(c.no_source, starts) | ~_any(stm, starts)
    order = np.lexsort((c.status == FAILED, c.line, c.at, c.version, c.tier, c.run))
    group = np.stack([c.run[order], c.tier[order].astype(np.int64), c.version[order]])
    last = np.r_[np.any(group[:, 1:] != group[:, :-1], axis=0), True]
    latest_failed = order[last][c.status[order[last]] == FAILED]
    uncertain[c.run[latest_failed]] = True

    middle = np.where(stale, 4, np.where(unverified, 5, np.where(uncertain, 6, 0))).astype(np.int8)
    return ClockColumns(fixed, closes, middle, np.maximum.reduceat(c.at, starts), run_any(window))


def _implicit_stale(c: ReceiptColumns, done: np.ndarray, pair: np.ndarray, keys: np.ndarray, width: int,
                    n_runs: int) -> np.ndarray:
    """Rule 4 without an expectedVersion: a done retrieval that returned anything but the newest
    version done in stm/mtm/lpm at or before it (numbered versions by number while they share one
    prefix, others by when they were first done)."""
    stale = np.zeros(n_runs, bool)
    implicit = np.flatnonzero((c.tier == RETRIEVAL) & done & (c.expected < 0))
    if not len(implicit):
        return stale
    memory = (c.tier <= LPM) & done
    first_done = np.full(len(keys), NEVER, np.int64)
    np.minimum.at(first_done, pair[memory], c.at[memory])
    events = np.flatnonzero(first_done < NEVER)
    if not len(events):
        return stale
    e_run, e_time, e_version = keys[events] // width, first_done[events], keys[events] % width
    by = np.lexsort((e_time, e_run))
    e_run, e_time, e_version = e_run[by], e_time[by], e_version[by]
    numbered, prefix, rank = _versions_order(c.versions)
    e_first = np.searchsorted(e_run, e_run)  # each event's run's first event
    broken = ~numbered[e_version] | (prefix[e_version] != prefix[e_version[e_first]])
    count = np.cumsum(broken)
    broken_so_far = (count - (count[e_first] - broken[e_first])) > 0
    top = int(rank.max()) + 2 if len(rank) else 2
    best = np.maximum.accumulate(e_run * top + np.where(numbered[e_version], rank[e_version], -1) + 1) - e_run * top - 1
    # the last event of the retrieval's run at or before it, by (run, time rank)
    r_run, r_time, r_version = c.run[implicit], c.at[implicit], c.version[implicit]
    times, where = np.unique(np.r_[e_time, r_time], return_inverse=True)
    span = len(times) + 1
    e_key = e_run * span + where[:len(e_time)]
    p = np.searchsorted(e_key, r_run * span + where[len(e_time):], "right") - 1
    valid = (p >= 0) & (e_run[np.maximum(p, 0)] == r_run)
    p = np.maximum(p, 0)
    mine = np.searchsorted(keys, r_run * width + r_version)
    found = (mine < len(keys)) & (keys[np.minimum(mine, len(keys) - 1)] == r_run * width + r_version)
    fd = np.where(found, first_done[np.minimum(mine, len(keys) - 1)], NEVER)
    held = fd <= r_time
    by_number = held & numbered[r_version] & (rank[r_version] == best[p])
    by_time = held & (fd == e_time[p])
    newest = np.where(broken_so_far[p], by_time, by_number)
    stale[r_run[valid & ~newest]] = True
    return stale
