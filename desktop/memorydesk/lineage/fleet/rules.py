"""The health rules as ClickHouse expressions, so the engine counts runs per state without sending
their receipts (``queries.state_counts``).

Two parts, as in the desk (``core.health``):

- *the clock step and the rules' order* — :func:`state` is generated from the rules' table
  (``core.health.table.RULES``: each rule's number and the findings that make it hold, tried in
  order), the same table ``core.health.arrays.states_at`` is generated from; nothing of it is
  written here;
- *a run's findings* — what ``core.health.vector.clock_columns`` finds over a run's receipts
  (``fixed`` 1-3 or 0, ``closes``, ``middle`` 4-6 or 0, ``newest``, ``waits``): :func:`receipt_columns`
  reads a receipt's fields from a span as :func:`memorydesk.lineage.otlp.receipt_from_attributes`
  does (ours, and derived from the conventions' names), :data:`PAIR` and :data:`RUN` aggregate per
  (run, version) and per run. This is the one part the engine holds in its own terms; a test holds
  it to the classifier over every case of the shipped example and the classifier's own cases, and
  over random runs built to make the rules collide (``tests/e2e/test_fleet_states.py``).

Times are integer microseconds since the epoch; an unstated time is ``NEVER`` (``core.receipt_codes``);
a ``waitingUntil`` past what ClickHouse's dates reach (the contract's no-deadline, year 9999) is
``to_us(NO_DEADLINE)``, as in the desk.
"""

from __future__ import annotations

from typing import Final

from memorydesk.core.health.table import RULES
from memorydesk.core.receipt_codes import NEVER, to_us
from memorydesk.core.receipts import DONE_STATUSES, MEMORY_TIERS, NO_DEADLINE, TIERS
from memorydesk.lineage.otlp import ERROR_TYPE, OPERATION, PREFIX, RECORD_ID, STORE_ID, UNSTATED

_FAR: Final = to_us(NO_DEADLINE)
_DONE: Final = ", ".join(f"'{s}'" for s in sorted(DONE_STATUSES))
_MEMORY: Final = ", ".join(f"'{t}'" for t in sorted(MEMORY_TIERS))
_NUMBERED: Final = "'^[^0-9]*[0-9]+$'"  # core.health.vector: one non-digit prefix, then digits


def _attr(name: str) -> str:
    return f"SpanAttributes['{name}']"


def _has(name: str) -> str:
    return f"mapContains(SpanAttributes, '{name}')"


def _part(n: int) -> str:
    """Part ``n`` of the store id, unescaped as ``lineage.otlp.parse_store_id`` does."""
    return (f"replaceAll(replaceAll(replaceAll(splitByChar('/', {_attr(STORE_ID)})[{n}], '%2F', '/'), '%2f', '/'), "
            "'%25', '%')")


def _time(name: str) -> str:
    """An RFC 3339 attribute as µs (years past ClickHouse's dates: the contract's no-deadline)."""
    value = _attr(name)
    return (f"if(toUInt16OrZero(substring({value}, 1, 4)) > 2261, toInt64({_FAR}), "
            f"toUnixTimestamp64Micro(parseDateTime64BestEffort({value}, 6, 'UTC')))")


#: a receipt's time (µs): ``memory.lineage.at_utc``, else its span's start
AT: Final = f"if({_has(PREFIX + 'at_utc')}, {_time(PREFIX + 'at_utc')}, toUnixTimestamp64Micro(Timestamp))"


def _ours_or_derived(ours: str, derived: str) -> str:
    return f"if(ours, {ours}, {derived})"


def receipt_columns(ours: str) -> str:
    """A receipt span's fields (``ours``: the expression true for a span with a ``memory.lineage.``
    attribute; the others are derived from the conventions' names, as ``lineage.otlp.derived_receipt``)."""
    op = _attr(OPERATION)
    store = _has(STORE_ID)
    fields = {
        "ours": ours,
        "run": (f"if({_has(PREFIX + 'run_id')}, {_attr(PREFIX + 'run_id')}, concat('trace:', lower(TraceId)))"),
        "user": _ours_or_derived(f"if({store}, {_part(1)}, {_attr(PREFIX + 'user_scope')})", f"'{UNSTATED}'"),
        "assistant": _ours_or_derived(f"if({store}, {_part(2)}, {_attr(PREFIX + 'assistant_scope')})",
                                      f"'{UNSTATED}'"),
        "tier": _ours_or_derived(f"if({store}, {_part(3)}, {_attr(PREFIX + 'tier')})",
                                 f"if({op} = 'search_memory', 'retrieval', 'lpm')"),
        "status": _ours_or_derived(_attr(PREFIX + "status"),
                                   f"multiIf({_attr(ERROR_TYPE)} != '', 'failed', {op} = 'update_memory', "
                                   "'committed', 'started')"),
        "version": _ours_or_derived(f"if({_has(RECORD_ID)}, {_attr(RECORD_ID)}, {_attr(PREFIX + 'version')})",
                                    f"if({_attr(RECORD_ID)} != '', {_attr(RECORD_ID)}, '{UNSTATED}')"),
        "at": AT,
        "line": f"toInt64OrZero({_attr(PREFIX + 'line')})",
        "present": f"multiIf({_attr(PREFIX + 'source_present')} = 'true', 1, "
                   f"{_attr(PREFIX + 'source_present')} = 'false', 0, -1)",
        "until": f"if({_has(PREFIX + 'waiting_until')}, {_time(PREFIX + 'waiting_until')}, toInt64({NEVER}))",
        "expected": f"if({_has(PREFIX + 'expected_version')}, toInt8({_attr(PREFIX + 'expected_version')} != "
                    "version), toInt8(-1))",
        "depends": f"if({_has(PREFIX + 'depends_on_version')}, {_attr(PREFIX + 'depends_on_version')}, NULL)",
        "outcome": _has(PREFIX + "outcome_receipt"),
        "no_source": f"NOT ({ours} AND {_has(PREFIX + 'source_version')})",
        "source": _attr(PREFIX + "source_version"),
    }
    return ", ".join(f"{sql} AS {name}" for name, sql in fields.items())


#: per (run, version), over the receipt columns (``GROUP BY run, version``)
PAIR: Final = ", ".join((
    "groupUniqArray((user, assistant)) AS p_scopes",
    "groupUniqArray(source) AS p_sources",
    "countIf(tier = 'stm') > 0 AS p_stm",
    "countIf(tier = 'stm' AND present = 0) > 0 AS p_gone",
    f"countIf(tier IN ('mtm', 'lpm') AND status IN ({_DONE})) > 0 AS p_durable",
    f"countIf(tier = 'stm' AND until != {NEVER}) > 0 AS p_declared",
    f"maxIf(until, tier = 'stm' AND until != {NEVER}) AS p_until",
    f"countIf(tier = 'retrieval' AND status IN ({_DONE}) AND expected = 1) > 0 AS p_stale",
    f"countIf(tier = 'retrieval' AND status IN ({_DONE})) > 0 AS p_returned",
    f"groupArrayIf(at, tier = 'retrieval' AND status IN ({_DONE}) AND expected = -1) AS p_implicit",
    f"countIf(tier IN ({_MEMORY}) AND status IN ({_DONE})) > 0 AS p_done",
    f"minIf(at, tier IN ({_MEMORY}) AND status IN ({_DONE})) AS p_first_done",
    "countIf(tier = 'generation' AND status IN ('committed', 'verified', 'failed')) > 0 AS p_finished",
    "groupArrayIf((status, depends, outcome), tier = 'generation') AS p_generations",
    # rule 6: the latest receipt of a tier and version (time, line; at one instant a failed one) is failed
    "(" + " OR ".join(f"argMaxIf(status = 'failed', (at, line, status = 'failed'), tier = '{t}')"
                      for t in TIERS) + ") AS p_latest_failed",
    "max(no_source) AS p_no_source",
    "max(at) AS p_newest",
))

_OPEN: Final = "p_stm AND NOT p_durable"
#: rule 4 without an expectedVersion, for one retrieval ``x`` = (version, time, its version's first done)
#: among the run's ``events`` (version, first done): stale unless its version is the newest held then
_IMPLICIT: Final = (
    "arrayExists(x -> notEmpty(arrayFilter(e -> e.2 <= x.2, events)) AND NOT (x.3 <= x.2 AND if("
    f"arrayAll(e -> e.2 > x.2 OR (match(e.1, {_NUMBERED}) AND extract(e.1, '^([^0-9]*)') = extract("
    "arrayFilter(e -> e.2 <= x.2, events)[1].1, '^([^0-9]*)')), events), "
    "toUInt256OrZero(extract(x.1, '([0-9]+)$')) = arrayMax(e -> if(e.2 <= x.2, "
    "toUInt256OrZero(extract(e.1, '([0-9]+)$')), toUInt256(0)), events), "
    "x.3 = arrayMax(e -> if(e.2 <= x.2, e.2, toInt64(-1)), events))), implicit)"
)

#: per run, over :data:`PAIR` (``GROUP BY run``): the findings ``core.health.vector`` gives
RUN: Final = ", ".join((
    "arrayDistinct(arrayFlatten(groupArray(p_scopes))) AS scopes",
    "arrayDistinct(arrayFlatten(groupArray(p_sources))) AS sources",
    f"multiIf(length(scopes) > 1, 1, max({_OPEN} AND p_gone), 2, max({_OPEN} AND NOT p_gone AND NOT p_declared), "
    "3, 0) AS fixed",
    f"max({_OPEN} AND NOT p_gone AND p_declared) AS waits",
    f"if(waits, minIf(p_until, {_OPEN} AND NOT p_gone AND p_declared), toInt64({NEVER})) AS closes",
    "groupArrayIf((version, p_first_done), p_done) AS events",
    f"arrayFlatten(groupArray(arrayMap(t -> (version, t, if(p_done, p_first_done, toInt64({NEVER}))), "
    "p_implicit))) AS implicit",
    "groupArrayIf(version, p_returned) AS returned",
    "arrayFlatten(groupArray(arrayFilter(g -> NOT (g.1 IN ('started', 'waiting') AND p_finished), p_generations)))"
    " AS judged",
    f"max(p_stale) OR {_IMPLICIT} AS stale",
    "arrayExists(g -> g.2 IS NULL OR NOT g.3 OR NOT has(returned, assumeNotNull(g.2)), judged) AS unverified",
    "max(p_no_source) OR NOT max(p_stm) OR max(p_latest_failed) AS uncertain",
    "multiIf(stale, 4, unverified, 5, uncertain, 6, 0) AS middle",
    "max(p_newest) AS newest",
))


def state(now_us: int, fresh_us: int) -> str:
    """A run's state (its rule number) at ``now_us`` over the :data:`RUN` columns: generated from the
    rules' table, the first rule that holds deciding."""
    holds = {"closed": f"closes <= {int(now_us)}", "old": f"({int(now_us)} - newest) > {int(fresh_us)}",
             "open": "waits"}
    branches = []
    for rule in RULES[:-1]:
        tests = [f"{f} = {rule.number}" if f in ("fixed", "middle") else holds[f] for f in rule.when]
        branches.append(f"({' OR '.join(tests)}), {rule.number}")
    return f"multiIf({', '.join(branches)}, {RULES[-1].number})"
