"""argparse types that check inputs at the edge (``core.inputs``); a refusal is one usage line. Also the
shape most subcommands share: one workspace, ``--json``."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from memorydesk.core.errors import BadInput
from memorydesk.core.inputs import check_count, check_reason, check_text


def workspace_command(sub, name: str, *, help: str, json_help: str, func: Callable[[argparse.Namespace], int],
                      description: str | None = None) -> argparse.ArgumentParser:
    """A subcommand that reads one WORKSPACE and prints what it found (``--json``: as JSON);
    returns the parser for any further arguments."""
    p = sub.add_parser(name, help=help, description=description)
    p.add_argument("workspace")
    p.add_argument("--json", action="store_true", help=json_help)
    p.set_defaults(func=func)
    return p


def text_arg(what: str, max_chars: int) -> Callable[[str], str]:
    """Valid UTF-8 text without NUL, at most ``max_chars`` characters."""

    def parse(value: str) -> str:
        try:
            return check_text(value, what, max_chars=max_chars)
        except BadInput as exc:
            raise argparse.ArgumentTypeError(_reason(str(exc), what)) from None

    parse.__name__ = "text"
    return parse


def reason_arg(what: str = "--reason") -> Callable[[str], str]:
    """A reason for a change (``check_reason``: not blank), trimmed."""

    def parse(value: str) -> str:
        try:
            return check_reason(value, what)
        except BadInput as exc:
            raise argparse.ArgumentTypeError(_reason(str(exc), what)) from None

    parse.__name__ = "reason"
    return parse


def count_arg(what: str, low: int, high: int) -> Callable[[str], int]:
    """A whole number in ``low..high``."""

    def parse(value: str) -> int:
        try:
            number = int(value.strip().replace("_", ""), 10) if len(value) <= 50 else None
        except ValueError:
            number = None
        if number is None:
            raise argparse.ArgumentTypeError(f"not a whole number: {value[:50]!r}")
        try:
            return check_count(number, what, low, high)
        except BadInput as exc:
            raise argparse.ArgumentTypeError(_reason(str(exc), what)) from None

    parse.__name__ = "count"
    return parse


def _reason(message: str, what: str) -> str:
    """``check_text``'s sentence without its subject (argparse names the argument itself)."""
    return message.removeprefix(f"{what} ").removeprefix("is ")
