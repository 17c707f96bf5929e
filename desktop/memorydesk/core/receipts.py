"""Lineage receipts: the content-free record every tier boundary emits (docs/receipts.md).

A receipt travels as one JSON object with camelCase keys; in Python it is a frozen
:class:`Receipt` with snake_case attributes. :func:`receipt_from_json` is the only
door from the wire: it checks the whole contract and raises
:class:`~memorydesk.core.errors.BadInput` with a message naming the field.

The contract, as enforced here:

* Required: ``runId``, ``userScope``, ``assistantScope``, ``tier``, ``status``,
  ``version``, ``atUtc``. ``null`` for a required field counts as missing.
* ``tier`` is one of ``stm mtm lpm retrieval generation``; ``status`` one of
  ``started waiting committed verified failed`` (exact, lower case).
* Identifiers and free labels (``runId``, scopes, ``sourceVersion``,
  ``outcomeReceipt``, ``receiptId``) are non-empty JSON strings.
* Versions (``version``, ``expectedVersion``, ``dependsOnVersion``) may be a non-empty
  string or an integer (not a boolean, not a float). They are kept, compared and
  exported as strings: ``22`` and ``"22"`` are the same version, ``"v22"`` and
  ``"22"`` are not, and an integer version comes back from export as ``"22"``.
* Times (``atUtc``, ``waitingUntil``) are RFC 3339 strings in UTC:
  ``YYYY-MM-DDTHH:MM:SS[.fraction]`` followed by ``Z`` or ``+00:00`` (``T``/``Z`` may
  be lower case). A time without an offset, or with any other offset, is refused
  rather than guessed at. Fractions beyond microseconds are truncated.
* ``sourcePresent`` and ``canary`` are JSON booleans. ``canary: true`` marks the
  receipt as part of a canary run (the canary's identity is its ``runId``).
* Optional fields may be absent or ``null``; both mean "not stated". The fields the
  table ties to one tier (``sourcePresent``/``waitingUntil`` on ``stm``,
  ``expectedVersion`` on ``retrieval``, ``dependsOnVersion``/``outcomeReceipt`` on
  ``generation``) are accepted on any tier; the classifier only reads them where the
  table says they mean something.
* Any other key is refused — receipts never carry content — unless it starts with
  ``x-``; such extension fields are kept aside, unchecked, in
  :attr:`Receipt.extensions` and exported after the contract fields.
* Strings of the contract are at most ``TEXT_MAX`` (512) characters. (The JSON Lines
  reader also refuses NUL, lone surrogates, integers of more than 19 digits and
  numbers out of a double's range anywhere in a line, ``x-`` fields included.)
"""

from __future__ import annotations

import gc
import re
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Final, Literal, NoReturn, get_args

from memorydesk.core.errors import BadInput

Tier = Literal["stm", "mtm", "lpm", "retrieval", "generation"]
Status = Literal["started", "waiting", "committed", "verified", "failed"]

TIERS: Final[tuple[str, ...]] = get_args(Tier)
STATUSES: Final[tuple[str, ...]] = get_args(Status)
MEMORY_TIERS: Final[frozenset[str]] = frozenset({"stm", "mtm", "lpm"})
DONE_STATUSES: Final[frozenset[str]] = frozenset({"committed", "verified"})

EXTENSION_PREFIX: Final = "x-"
#: ``waitingUntil`` of a wait with no deadline (MemoryOS: a resident QA moves at the next add
#: once short-term memory is full, whenever that is); the latest time RFC 3339 can carry
NO_DEADLINE: Final = datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc)
TEXT_MAX: Final = 512  # characters of any string field of the contract
_ZERO = timedelta(0)

# Wire name -> (attribute, kind). Order is the export order.
_FIELDS: Final[dict[str, tuple[str, str]]] = {
    "runId": ("run_id", "text"),
    "userScope": ("user_scope", "text"),
    "assistantScope": ("assistant_scope", "text"),
    "tier": ("tier", "tier"),
    "status": ("status", "status"),
    "version": ("version", "version"),
    "sourceVersion": ("source_version", "text"),
    "atUtc": ("at_utc", "time"),
    "sourcePresent": ("source_present", "bool"),
    "waitingUntil": ("waiting_until", "time"),
    "expectedVersion": ("expected_version", "version"),
    "dependsOnVersion": ("depends_on_version", "version"),
    "outcomeReceipt": ("outcome_receipt", "text"),
    "receiptId": ("receipt_id", "text"),
    "canary": ("canary", "bool"),
}
REQUIRED_FIELDS: Final[tuple[str, ...]] = (
    "runId",
    "userScope",
    "assistantScope",
    "tier",
    "status",
    "version",
    "atUtc",
)
CONTRACT_FIELDS: Final[tuple[str, ...]] = tuple(_FIELDS)
_OPTIONAL_TEXT = tuple((k, _FIELDS[k][0]) for k in ("sourceVersion", "outcomeReceipt", "receiptId"))
_OPTIONAL_VERSION = tuple((k, _FIELDS[k][0]) for k in ("expectedVersion", "dependsOnVersion"))
_OPTIONAL_BOOL = tuple((k, _FIELDS[k][0]) for k in ("sourcePresent", "canary"))
_TIER_SET = frozenset(TIERS)
_STATUS_SET = frozenset(STATUSES)

_RFC3339_UTC = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?"
    r"(?P<offset>[Zz]|[+-][0-9]{2}:[0-9]{2})?"
)


@dataclass(frozen=True)
class Receipt:
    """One receipt. Construct it from the wire with :func:`receipt_from_json`.

    Direct construction is checked too (tier, status, non-empty strings, UTC-aware
    times); versions must already be strings there (see :func:`normalize_version`).
    ``extensions`` holds the ``x-`` fields as read; ``line`` records where the receipt
    was read from (a JSON Lines line number) and is not part of the wire format.
    """

    run_id: str
    user_scope: str
    assistant_scope: str
    tier: Tier
    status: Status
    version: str
    at_utc: datetime
    source_version: str | None = None
    source_present: bool | None = None
    waiting_until: datetime | None = None
    expected_version: str | None = None
    depends_on_version: str | None = None
    outcome_receipt: str | None = None
    receipt_id: str | None = None
    canary: bool | None = None
    extensions: Mapping[str, Any] = field(default_factory=dict, hash=False)
    line: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        for wire, (attr, kind) in _FIELDS.items():
            value = getattr(self, attr)
            if value is None:
                if wire in REQUIRED_FIELDS:
                    raise BadInput(f"missing required field {wire!r}")
                continue
            if kind in ("text", "version"):
                ok, want = type(value) is str and value != "", "a non-empty string"
            elif kind == "bool":
                ok, want = type(value) is bool, "a bool"
            elif kind == "time":
                ok = isinstance(value, datetime) and value.utcoffset() == _ZERO
                want = "a timezone-aware datetime in UTC"
            elif kind == "tier":
                ok, want = value in TIERS, "one of " + ", ".join(TIERS)
            else:
                ok, want = value in STATUSES, "one of " + ", ".join(STATUSES)
            if not ok:
                raise BadInput(f"field {wire!r} must be {want}, got {value!r}")
        for key in self.extensions:
            if not (isinstance(key, str) and key.startswith(EXTENSION_PREFIX)):
                raise BadInput(f"extension field {key!r} must start with {EXTENSION_PREFIX!r}")

    def to_json(self) -> dict[str, Any]:
        """The wire form: camelCase keys in contract order, unstated fields left out,
        versions as strings, times as ``…Z``, extension fields last, sorted by key."""
        out: dict[str, Any] = {}
        for wire, (attr, kind) in _FIELDS.items():
            value = getattr(self, attr)
            if value is None:
                continue
            out[wire] = format_utc(value) if kind == "time" else value
        for key in sorted(self.extensions):
            out[key] = self.extensions[key]
        return out

    def label(self) -> str:
        """How a health reason names this receipt: ``tier/version/status`` plus where
        it came from (``receipt ID``, else ``line N``, else its time)."""
        where = (
            f"receipt {self.receipt_id}"
            if self.receipt_id is not None
            else f"line {self.line}"
            if self.line is not None
            else f"at {format_utc(self.at_utc)}"
        )
        return f"{self.tier}/{self.version}/{self.status} ({where})"


def parse_utc(value: object, field_name: str = "time") -> datetime:
    """Parse an RFC 3339 UTC time (``Z`` or ``+00:00``) into an aware datetime."""
    if type(value) is not str:
        raise BadInput(f"field {field_name!r} must be an RFC 3339 time string, got {_json_type(value)}")
    if (
        len(value) == 20
        and value[19] == "Z"
        and value[10] == "T"
        and value[4] == "-"
        and value[7] == "-"
        and value[13] == ":"
        and value[16] == ":"
    ):
        # The common shape, YYYY-MM-DDTHH:MM:SSZ: fromisoformat checks the digits.
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            raise BadInput(f"field {field_name!r}: {value!r} is not a valid date and time") from None
    match = _RFC3339_UTC.fullmatch(value)
    if match is None:
        raise BadInput(f"field {field_name!r}: {value!r} is not an RFC 3339 time (YYYY-MM-DDTHH:MM:SSZ)")
    offset = match["offset"]
    if offset is None:
        raise BadInput(f"field {field_name!r}: {value!r} has no UTC offset; write it in UTC with 'Z'")
    if offset not in ("Z", "z", "+00:00"):
        raise BadInput(f"field {field_name!r}: {value!r} is not in UTC (offset {offset}); convert it to 'Z'")
    try:
        return datetime.fromisoformat(value.upper())
    except ValueError:
        raise BadInput(f"field {field_name!r}: {value!r} is not a valid date and time") from None


def format_utc(moment: datetime) -> str:
    """``2025-03-10T08:00:00Z`` (with ``.ffffff`` only when there are microseconds)."""
    if moment.utcoffset() is None:
        raise ValueError("format_utc needs a timezone-aware datetime")
    text = moment.astimezone(timezone.utc).isoformat()
    return text[:-6] + "Z"


def normalize_version(value: object, field_name: str = "version") -> str:
    """A version as the classifier compares it: non-empty strings as they are,
    integers in decimal (``22`` → ``"22"``). Anything else is :class:`BadInput`."""
    kind = type(value)
    if kind is str:
        if value:
            return value  # type: ignore[return-value]
        raise BadInput(f"field {field_name!r} must not be empty")
    if kind is int:
        return str(value)
    raise BadInput(f"field {field_name!r} must be a string or an integer, got {_json_type(value)}")


def receipt_from_json(obj: object, *, line: int | None = None) -> Receipt:
    """Check one decoded JSON value against the receipt contract and build a Receipt.

    Raises :class:`BadInput` naming the first offending field; ``line`` is only
    recorded on the receipt, the caller adds it to error messages.
    """
    if type(obj) is not dict:
        raise BadInput(f"a receipt must be a JSON object, got {_json_type(obj)}")
    extensions: dict[str, Any] = {}
    if not obj.keys() <= _FIELDS.keys():
        for key, value in obj.items():
            if key in _FIELDS:
                continue
            if not key.startswith(EXTENSION_PREFIX):
                raise BadInput(
                    f"unknown field {key!r} (receipts carry no content; extension fields need an 'x-' prefix)"
                )
            extensions[key] = value
    # This runs once per line of files with millions of receipts, so the checks are
    # spelled out field by field and the receipt is filled without a second pass
    # through Receipt.__post_init__ (every value here has already been checked).
    get = obj.get
    run_id = get("runId")
    user_scope = get("userScope")
    assistant_scope = get("assistantScope")
    tier = get("tier")
    status = get("status")
    version = get("version")
    at_utc = get("atUtc")
    if (
        type(run_id) is not str
        or type(user_scope) is not str
        or type(assistant_scope) is not str
        or not (run_id and user_scope and assistant_scope)
        or type(tier) is not str
        or tier not in _TIER_SET
        or type(status) is not str
        or status not in _STATUS_SET
        or at_utc is None
        or version is None
    ):
        _refuse_required(obj)
    if len(run_id) > TEXT_MAX or len(user_scope) > TEXT_MAX or len(assistant_scope) > TEXT_MAX:
        _refuse_long(obj, ("runId", "userScope", "assistantScope"))
    if type(version) is not str or not version:
        version = normalize_version(version)
    elif len(version) > TEXT_MAX:
        _refuse_long(obj, ("version",))
    values: dict[str, Any] = {
        "run_id": run_id,
        "user_scope": user_scope,
        "assistant_scope": assistant_scope,
        "tier": tier,
        "status": status,
        "version": version,
        "at_utc": parse_utc(at_utc, "atUtc"),
        "extensions": extensions,
        "line": line,
    }
    if len(obj) > 7:
        for key, attr in _OPTIONAL_TEXT:
            value = get(key)
            if value is not None:
                if type(value) is not str or not value:
                    _refuse_text(key, value)
                if len(value) > TEXT_MAX:
                    _refuse_long(obj, (key,))
                values[attr] = value
        for key, attr in _OPTIONAL_VERSION:
            value = get(key)
            if value is not None:
                values[attr] = normalize_version(value, key)
                if len(values[attr]) > TEXT_MAX:
                    _refuse_long(obj, (key,))
        for key, attr in _OPTIONAL_BOOL:
            value = get(key)
            if value is not None:
                if type(value) is not bool:
                    raise BadInput(f"field {key!r} must be true or false, got {_json_type(value)}")
                values[attr] = value
        waiting_until = get("waitingUntil")
        if waiting_until is not None:
            values["waiting_until"] = parse_utc(waiting_until, "waitingUntil")
    receipt = object.__new__(Receipt)
    object.__setattr__(receipt, "__dict__", values)  # unstated optional fields: the class defaults
    return receipt


def _refuse_required(obj: dict[str, Any]) -> NoReturn:
    """Raise the first problem with the required fields (all missing ones at once)."""
    missing = [key for key in REQUIRED_FIELDS if obj.get(key) is None]
    if missing:
        raise BadInput(f"missing required field{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    for key in ("runId", "userScope", "assistantScope"):
        value = obj[key]
        if type(value) is not str or not value:
            _refuse_text(key, value)
    _refuse_choice("tier", obj["tier"], TIERS)
    _refuse_choice("status", obj["status"], STATUSES)
    raise AssertionError("_refuse_required called on valid required fields")


def _refuse_long(obj: dict[str, Any], keys: tuple[str, ...]) -> NoReturn:
    for key in keys:
        value = obj.get(key)
        if isinstance(value, str) and len(value) > TEXT_MAX:
            raise BadInput(f"field {key!r} is {len(value):,} characters long; at most {TEXT_MAX} are accepted "
                           "(receipts carry ids and versions, not content)")
    raise AssertionError("_refuse_long called without a long field")


def _refuse_choice(key: str, value: object, choices: tuple[str, ...]) -> None:
    if type(value) is not str:
        raise BadInput(f"field {key!r} must be a string, got {_json_type(value)}")
    if value not in choices:
        raise BadInput(f"field {key!r}: {value!r} is not one of {', '.join(choices)}")


def _refuse_text(key: str, value: object) -> None:
    if type(value) is not str:
        raise BadInput(f"field {key!r} must be a string, got {_json_type(value)}")
    raise BadInput(f"field {key!r} must not be empty")


_gc_lock = threading.Lock()
_gc_pauses = 0
_gc_was_enabled = False


@contextmanager
def gc_paused(*, promote: bool = False) -> Iterator[None]:
    """Pause the cyclic garbage collector while building many receipts at once.

    Receipts hold no reference cycles, but every one is a GC-tracked object, and with
    a million of them alive CPython's collector re-scans the growing heap again and
    again (it doubled the time to read a million receipts). Reference counting still
    frees everything as usual. Nested and concurrent pauses are counted; the
    collector is switched back on when the last one ends, and only if it was on
    before the first began.

    ``promote``: when the collector comes back on, everything made during the pause goes to
    its oldest generation at once (``gc.freeze`` then ``gc.unfreeze``), so that its first
    collection does not walk it all (a quarter of ``lineage classify``'s time); a later full
    collection still sees it.
    """
    global _gc_pauses, _gc_was_enabled
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                if promote:
                    gc.freeze()
                    gc.unfreeze()
                gc.enable()


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
