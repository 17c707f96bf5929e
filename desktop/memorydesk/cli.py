"""The ``memory-desk`` command (DESIGN.md section 7).

Each subcommand lives in ``memorydesk.commands.<name>`` and exposes
``register(subparsers)``; the parser it adds sets ``func`` to a callable taking the
parsed arguments and returning the exit code. Input problems are raised as
``MemoryDeskError`` and printed as one line on stderr (exit 2), never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from memorydesk import __version__
from memorydesk.core.errors import MemoryDeskError

SUBCOMMANDS = ("check", "search", "preamble", "agents", "lineage", "canary", "demo", "shot", "import", "audit",
               "conflicts", "graph", "grants")
_MODULES = {"import": "importer"}

log = logging.getLogger("memorydesk.cli")


def _subcommand_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memory-desk", description="Review and repair agent memory.")
    parser.add_argument("--version", action="version", version=f"memory-desk {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"memorydesk.commands.{_MODULES.get(name, name)}")
        module.register(sub)
    return parser


def _window_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memory-desk",
        description="Open the desk window. Subcommands: " + ", ".join(SUBCOMMANDS) + ".",
    )
    parser.add_argument("--version", action="version", version=f"memory-desk {__version__}")
    parser.add_argument("workspace", nargs="?", help="workspace database to open")
    parser.add_argument("--read-only", action="store_true", help="open without writing anything")
    parser.add_argument("--demo", action="store_true",
                        help="open the demo workspace (built in your data folder the first time, then reused)")
    parser.add_argument("--fresh", action="store_true", help="with --demo: build a new demo workspace first")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        if argv and argv[0] in SUBCOMMANDS:
            args = _subcommand_parser().parse_args(argv)
        else:
            args = _window_parser().parse_args(argv)
            from memorydesk.commands import window

            args.func = window.run
        return int(args.func(args) or 0)
    except MemoryDeskError as exc:
        print(f"memory-desk: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("memory-desk: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
