"""`memory-desk importer` (not yet available)."""

from memorydesk.commands import not_yet

run = not_yet("importer")


def register(sub) -> None:
    p = sub.add_parser("import", help="not yet available")
    p.add_argument("rest", nargs="*")
    p.set_defaults(func=run)
