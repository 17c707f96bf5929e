"""Inputs checked at the edge, before they reach SQLite, the tokenizer or the model.

Text must be valid Unicode that UTF-8 can carry (a command-line argument that was not
UTF-8 arrives in Python as lone surrogates; so can a string from the API), of a sane
length, and — for ids and names — without NUL; numbers must lie in a sane range. Each
refusal is a ``BadInput`` naming the input. (Free text such as a query may hold NUL:
the product reads it as a separator, and so do we.)
"""

from __future__ import annotations

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


def check_count(value: object, what: str, low: int, high: int) -> int:
    """``value`` when it is an int in ``low..high`` (booleans are not counts)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(f"{what} must be a whole number, not {value!r}")
    if not low <= value <= high:
        shown = f"{value:,}" if abs(value) < 10**30 else f"a number with {len(str(abs(value)))} digits"
        raise BadInput(f"{what} must be between {low:,} and {high:,}, not {shown}")
    return value
