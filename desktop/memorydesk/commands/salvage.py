"""``memory-desk salvage WORKSPACE OUT.db``: copy every readable row of a damaged workspace.

For a file SQLite calls damaged (``check`` reports ``sqlite_corrupt``; ``--repair``
refuses it). The source is only read. OUT.db is a new workspace holding every row that
could be read, its full-text and vector indexes rebuilt; one line per table says what
was copied and which rows could not be read. Exit 0 when every row was copied, 1 when
some could not be, 2 when nothing could be read or the input is unusable.
"""

from __future__ import annotations

import sys


def register(sub) -> None:
    p = sub.add_parser("salvage", help="copy every readable row of a damaged workspace into a new one",
                       description="Copy every readable row of a damaged workspace into a new workspace file, "
                                   "rebuild its indexes, and say per table what could not be read.")
    p.add_argument("workspace", help="the damaged workspace (only read)")
    p.add_argument("out", metavar="OUT.db", help="the new workspace to write (must not exist)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.set_defaults(func=run)


def run(args) -> int:
    from pathlib import Path

    from memorydesk.store.salvage import salvage

    def progress(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    report = salvage(Path(args.workspace), Path(args.out), progress)
    for table in report:
        print(table.line())
    complete = all(t.complete for t in report)
    print(f"wrote {args.out}: " + ("every row was copied" if complete else "some rows could not be read (above)"))
    return 0 if complete else 1
