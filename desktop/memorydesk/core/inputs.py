"""Inputs checked at the edge, before they reach SQLite, the tokenizer or the model.

Text must be valid Unicode that UTF-8 can carry (a command-line argument that was not
UTF-8 arrives in Python as lone surrogates; so can a string from the API), of a sane
length, and — for ids and names — without NUL; numbers must lie in a sane range. Each
refusal is a ``BadInput`` naming the input. (Free text such as a query may hold NUL:
the product reads it as a separator, and so do we.)
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path

from memorydesk.core.errors import BadInput

QUERY_MAX = 1_048_576  # characters of a search query (an agent may send a long one; the product takes it)
TASK_MAX = 1_048_576  # characters of a dispatch task
NAME_MAX = 200  # ids, slugs, names
LIMIT_MAX = 1_000  # hits a search may be asked for


def check_text(value: object, what: str, *, max_chars: int | None = None, nul: bool = False) -> str:
    """``value`` when it is a str UTF-8 can carry, at most ``max_chars`` long, without NUL unless ``nul``."""
    if not isinstance(value, str):
        raise BadInput(f"{what} must be text, not {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = ord(value[exc.start])
        if 0xDC80 <= bad <= 0xDCFF:  # a byte that was not UTF-8, kept by Python's surrogateescape
            raise BadInput(f"{what} is not valid UTF-8 (byte 0x{bad - 0xDC00:02x} at character {exc.start + 1})") \
                from None
        raise BadInput(f"{what} is not valid Unicode (a lone surrogate U+{bad:04X} at character {exc.start + 1})") \
            from None
    if not nul and "\x00" in value:
        raise BadInput(f"{what} contains a NUL character (at character {value.index(chr(0)) + 1})")
    if max_chars is not None and len(value) > max_chars:
        raise BadInput(f"{what} is {len(value):,} characters long; at most {max_chars:,} are accepted")
    return value


REASON_MAX = 2000  # characters of the reason a change keeps in the history
REASON_NEEDED = "give a reason: it is kept in the history with the change"


def check_reason(value: object, what: str = "the reason") -> str:
    """The reason for a change, trimmed: text (``check_text``) with something in it besides blanks.

    The one rule for every place that asks why (the window's fields, ``purge --reason``, the
    memory layer's purges): a reason of only spaces is refused like an empty one."""
    text = check_text(value, what, max_chars=REASON_MAX).strip()
    if not text:
        raise BadInput(REASON_NEEDED)
    return text


def check_count(value: object, what: str, low: int, high: int) -> int:
    """``value`` when it is an int in ``low..high`` (booleans are not counts)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(f"{what} must be a whole number, not {value!r}")
    if not low <= value <= high:
        shown = f"{value:,}" if abs(value) < 10**30 else f"a number with {len(str(abs(value)))} digits"
        raise BadInput(f"{what} must be between {low:,} and {high:,}, not {shown}")
    return value


RECEIPTS_MAX = 512 * 2**20  # bytes of a receipts file (JSON Lines) or of receipts on standard input
QUERIES_MAX = 64 * 2**20  # bytes of a recall-audit questions file
_SPECIAL = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
            (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


def _mb(n: int) -> str:
    return f"{n / 2**20:,.0f} MB"


def check_input_file(path: str | os.PathLike[str], what: str, limit: int) -> Path:
    """A named input that is a regular file of at most ``limit`` bytes, looked at before it is opened.

    A FIFO, a device, a socket or a folder is refused (reading one would block forever or
    never end; only ``-`` reads standard input), and so is a file over the limit."""
    path = Path(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise BadInput(f"{what} {path}: cannot read it (no such file)") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise BadInput(f"{what} {path}: a loop of symbolic links") from None
        raise BadInput(f"{what} {path}: cannot look at the file ({exc.strerror or exc})") from None
    for test, kind in _SPECIAL:
        if test(info.st_mode):
            raise BadInput(f"{what} {path}: is {kind}, not a file; give a file, or '-' to read standard input")
    if info.st_size > limit:
        raise BadInput(f"{what} {path}: the file is {_mb(info.st_size)}; at most {_mb(limit)} are read")
    return path


def read_input(path: str | os.PathLike[str], what: str, limit: int) -> bytes:
    """The bytes of a named input (``check_input_file``) or, for ``-``, of standard input, at most ``limit``."""
    if str(path) == "-":
        data = sys.stdin.buffer.read(limit + 1)
        if len(data) > limit:
            raise BadInput(f"{what}: standard input holds more than {_mb(limit)}; at most {_mb(limit)} are read "
                           "(give a file instead)")
        return data
    checked = check_input_file(path, what, limit)
    try:
        return checked.read_bytes()
    except OSError as exc:
        raise BadInput(f"{what} {checked}: cannot read the file ({exc.strerror or exc})") from None


def decode_utf8(data: bytes, what: str) -> str:
    """UTF-8 text, a byte-order mark at the start accepted (and dropped)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BadInput(f"{what}: not UTF-8 text (byte 0x{data[exc.start]:02x} at {exc.start + 1})") from None


JSON_DIGITS_MAX = 30  # digits of a JSON integer an input file may hold (ids and counts; more is not ours)
JSON_INT_RANGE = (-(2**63), 2**63 - 1)  # what SQLite stores as an integer


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > JSON_DIGITS_MAX:
        raise ValueError(f"an integer of {len(text.lstrip('-')):,} digits; at most {JSON_DIGITS_MAX} are accepted")
    value = int(text)
    if not JSON_INT_RANGE[0] <= value <= JSON_INT_RANGE[1]:
        raise ValueError(f"the integer {text} is out of range (at most 2^63 - 1)")
    return value


def _json_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")) or len(text) > 400:
        raise ValueError(f"the number {text[:30]}{'…' if len(text) > 30 else ''} is out of range")
    return value


def _json_constant(name: str) -> float:
    raise ValueError(f"{name} is not allowed in JSON")


#: ``json.loads(text, **JSON_HOOKS)``: numbers as an input file may hold them (a ValueError otherwise).
JSON_HOOKS = {"parse_int": _json_int, "parse_float": _json_float, "parse_constant": _json_constant}


def check_json_strings(value: object, what: str) -> None:
    """Every string (and key) in a decoded JSON value is valid Unicode (a ``\\ud800`` escape is not)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            check_text(item, f"{what}: a string", nul=True)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def strict_json(text: str, what: str) -> object:
    """JSON as an input file may hold it: numbers in range, no NaN/Infinity, not nested without end,
    every string valid Unicode. Any refusal is one ``BadInput`` naming ``what``."""
    import json

    try:
        value = json.loads(text, **JSON_HOOKS)
    except json.JSONDecodeError as exc:
        raise BadInput(f"{what}: not a JSON file ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise BadInput(f"{what}: the JSON is nested too deeply") from None
    except ValueError as exc:
        raise BadInput(f"{what}: {exc}") from None
    check_json_strings(value, what)
    return value
