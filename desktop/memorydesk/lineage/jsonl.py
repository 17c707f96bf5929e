"""Receipts as JSON Lines: one receipt object per line (docs/receipts.md).

Reading is all or nothing: the first bad line raises
:class:`~memorydesk.core.errors.BadInput` with a message ``line N: …`` (N counts every
line from 1, blank ones included) and no receipt is returned. Blank or
whitespace-only lines are skipped. Lines are split on ``\\n`` only (a ``\\r`` before
it is ignored), so a U+2028 inside a JSON string does not end a line. Besides the
receipt contract (:mod:`memorydesk.core.receipts`), a line is refused when it is not
UTF-8, not one JSON value, uses ``NaN``/``Infinity``, or repeats a key in an object
(a repeated ``userScope`` could otherwise hide a scope conflict); when it is longer
than ``LINE_MAX`` bytes; when any string in it (``x-`` fields included) holds NUL or
a lone surrogate (``\\u0000``, ``\\ud800``), or any number is an integer of more
than 19 digits or out of a double's range (``1e400``).

Writing produces compact lines (no spaces), keys in the contract's order, UTF-8
without ``\\u`` escapes, each line ending in ``\\n``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any, TextIO

from memorydesk.core.errors import BadInput
from memorydesk.core.receipts import CONTRACT_FIELDS, Receipt, gc_paused, receipt_from_json

__all__ = ["BadReceiptLine", "dump_jsonl", "parse_jsonl", "read_jsonl", "receipt_to_line", "write_jsonl"]


class BadReceiptLine(BadInput):
    """A line of a JSON Lines file that is not a valid receipt; ``str()`` is
    ``line N: detail``."""

    def __init__(self, line: int, detail: str) -> None:
        super().__init__(f"line {line}: {detail}")
        self.line = line
        self.detail = detail


LINE_MAX = 65_536  # bytes of one receipt line
INT_DIGITS_MAX = 19


class _Refused(ValueError):
    """Raised from inside the JSON decoder for input we refuse on sight."""


def _int(text: str) -> int:
    if len(text.lstrip("-")) > INT_DIGITS_MAX:
        raise _Refused(f"an integer of {len(text.lstrip('-')):,} digits; at most {INT_DIGITS_MAX} are accepted")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _Refused(f"the number {text[:30]} is out of range")
    return value


def _no_constants(name: str) -> Any:
    raise _Refused(f"{name} is not allowed in JSON")


def _object_without_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"field {key!r} appears more than once")
            seen.add(key)
    return obj


_DECODER = json.JSONDecoder(parse_constant=_no_constants, object_pairs_hook=_object_without_repeats,
                            parse_int=_int, parse_float=_float)


def _check_strings(value: Any) -> None:
    """No NUL and no lone surrogate in any string or key (only ``\\u`` escapes can make them)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            _check_string(item)
        elif isinstance(item, dict):
            for key, inner in item.items():
                _check_string(key)
                stack.append(inner)
        elif isinstance(item, list):
            stack.extend(item)


def _no_controls(obj: dict[str, Any]) -> None:
    """Ids, scopes and versions are printed one per line: no control characters in them."""
    for key in CONTRACT_FIELDS:
        value = obj.get(key)
        if isinstance(value, str) and any(ord(c) < 32 or ord(c) == 127 for c in value):
            raise BadInput(f"field {key!r} holds a control character (a newline, tab, …): {value[:40]!r}")


def _check_string(text: str) -> None:
    if "\x00" in text:
        raise BadInput(f"a string holds a NUL character: {text[:40]!r}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput(f"a string holds a lone surrogate (an unpaired \\u escape): {text[:40]!r}") from None


def _decode(text: str) -> Any:
    try:
        value, end = _DECODER.raw_decode(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except _Refused as exc:
        raise BadInput(str(exc)) from None
    except RecursionError:
        raise BadInput("JSON nested too deeply") from None
    if end != len(text):
        raise BadInput(f"not valid JSON (extra data at column {end + 1}; one receipt per line)")
    if "\\" in text:  # escapes are the only way NUL, a lone surrogate or a newline gets into a string
        _check_strings(value)
        if isinstance(value, dict):
            _no_controls(value)
    return value


def parse_jsonl(source: str | bytes | Iterable[str | bytes]) -> list[Receipt]:
    """Parse JSON Lines into receipts, in input order, each with its ``line`` set.

    ``source`` is a whole document (``str``/``bytes``) or an iterable of lines (an
    open file, text or binary). Raises :class:`BadReceiptLine` (a :class:`BadInput`,
    ``line N: …``) on the first bad line; nothing is returned then.
    """
    if isinstance(source, str):
        lines: Iterable[str | bytes] = source.split("\n")
    elif isinstance(source, (bytes, bytearray)):
        lines = bytes(source).split(b"\n")
    else:
        lines = source
    with gc_paused():
        return _parse_lines(lines)


def _parse_lines(lines: Iterable[str | bytes]) -> list[Receipt]:
    receipts: list[Receipt] = []
    append = receipts.append
    for number, raw in enumerate(lines, 1):
        try:
            if len(raw) > LINE_MAX and (type(raw) is not str or len(raw.encode("utf-8", "replace")) > LINE_MAX):
                raise BadInput(f"the line is longer than {LINE_MAX:,} bytes; a receipt is a few hundred")
            if type(raw) is not str:
                try:
                    raw = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise BadInput(f"not valid UTF-8 (byte {exc.start + 1})") from None
            if number == 1 and raw.startswith("\ufeff"):
                raw = raw[1:]
            text = raw.strip(" \t\r\n")
            if not text:
                continue
            append(receipt_from_json(_decode(text), line=number))
        except BadInput as exc:
            raise BadReceiptLine(number, str(exc)) from None
    return receipts


def read_jsonl(path: str | os.PathLike[str]) -> list[Receipt]:
    """Read a JSON Lines file of receipts (see :func:`parse_jsonl`).

    A file that cannot be opened or read is :class:`BadInput` too (no line number).
    """
    try:
        with open(path, "rb") as stream:
            return parse_jsonl(stream)
    except OSError as exc:
        raise BadInput(f"cannot read {os.fspath(path)}: {exc.strerror or exc}") from None


def receipt_to_line(receipt: Receipt) -> str:
    """One receipt as one compact JSON line, without the newline."""
    return json.dumps(receipt.to_json(), separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def dump_jsonl(receipts: Iterable[Receipt]) -> str:
    """Receipts as a JSON Lines document (every line ends in ``\\n``)."""
    return "".join(receipt_to_line(r) + "\n" for r in receipts)


def write_jsonl(receipts: Iterable[Receipt], stream: TextIO) -> int:
    """Write receipts to an open text stream as JSON Lines; returns how many."""
    count = 0
    for receipt in receipts:
        stream.write(receipt_to_line(receipt))
        stream.write("\n")
        count += 1
    return count
