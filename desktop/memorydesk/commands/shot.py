"""`memory-desk shot` (not yet available)."""

from memorydesk.commands import not_yet

run = not_yet("shot")


def register(sub) -> None:
    p = sub.add_parser("shot", help="not yet available")
    p.add_argument("rest", nargs="*")
    p.set_defaults(func=run)
