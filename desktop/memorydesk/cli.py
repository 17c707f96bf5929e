"""The ``memory-desk`` command (docs/cli.md).

Each subcommand lives in ``memorydesk.commands.<name>`` and exposes
``register(subparsers)``; the parser it adds sets ``func`` to a callable taking the
parsed arguments and returning the exit code.

Exit codes: 0 ok; 1 problems found / unhealthy (``check``, ``lineage classify``,
``canary``, …); 2 bad input, an unusable file or a refused operation (a
``MemoryDeskError``, a usage error, an SQLite or file-system error); 70 a bug in Memory
Desk (the traceback goes to a log file, named in the one line printed); 130
interrupted. Every message is one line on stderr starting ``memory-desk: ``, never a
traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from memorydesk.core.errors import BadInput, MemoryDeskError
from memorydesk.crashlog import bug_sentence, stderr_line, write_crash

SUBCOMMANDS = ("check", "search", "preamble", "agents", "lineage", "canary", "demo", "shot", "import", "audit",
                "conflicts", "graph", "grants", "purge", "salvage", "history", "facts", "diff", "review",
                "forget-check")
_MODULES = {"import": "importer", "forget-check": "forget_check"}

EXIT_OK, EXIT_PROBLEMS, EXIT_BAD_INPUT, EXIT_BUG, EXIT_INTERRUPTED = 0, 1, 2, 70, 130

log = logging.getLogger("memorydesk.cli")


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one ``memory-desk: …`` line (exit 2) like every other error."""

    def error(self, message: str):  # argparse calls it; it never returns
        command = self.prog.removeprefix("memory-desk").strip()
        raise BadInput(f"{command + ': ' if command else ''}{message} (see `{self.prog} --help`)")


class _Version(argparse.Action):
    """``--version``: the version is read only when asked for."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # noqa: ANN001
        from memorydesk import __version__

        sys.stdout.write(f"memory-desk {__version__}\n")
        parser.exit()


class _OneLine(logging.Formatter):
    """Log records on the terminal as one ``memory-desk: level: message`` line (no traceback)."""

    def format(self, record: logging.LogRecord) -> str:
        return "memory-desk: " + f"{record.levelname.lower()}: {record.getMessage()}".replace("\n", " ")


def _subcommand_parser(names: tuple[str, ...] = SUBCOMMANDS) -> argparse.ArgumentParser:
    """The parser of the subcommands ``names``: only their modules are imported (a command
    imports what it uses, nothing more; ``memory-desk agents`` never loads Qt or the model)."""
    parser = _Parser(prog="memory-desk", description="Review and repair agent memory.")
    parser.add_argument("--version", action=_Version, nargs=0, help="show the program's version and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in names:
        module = importlib.import_module(f"memorydesk.commands.{_MODULES.get(name, name)}")
        module.register(sub)
    return parser


def _window_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="memory-desk",
        description="Open the desk window. Subcommands: " + ", ".join(SUBCOMMANDS) + ".",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the program's version and exit")
    parser.add_argument("workspace", nargs="?", help="workspace database to open")
    parser.add_argument("--read-only", action="store_true", help="open without writing anything")
    parser.add_argument("--demo", action="store_true",
                        help="open the demo workspace (built in your data folder the first time, then reused)")
    parser.add_argument("--fresh", action="store_true", help="with --demo: build a new demo workspace first")
    return parser


def _console_logging() -> None:
    handler = logging.StreamHandler()
    handler.setLevel(logging.WARNING)  # the window's log file takes more (crashlog.start_desk_log)
    handler.setFormatter(_OneLine())
    logging.basicConfig(level=logging.WARNING, handlers=[handler])


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _console_logging()
    args = None
    try:
        if argv and argv[0] in SUBCOMMANDS:
            _terminate_as_interrupt()
            args = _subcommand_parser((argv[0],)).parse_args(argv)
        else:
            args = _window_parser().parse_args(argv)
            from memorydesk.commands import window

            args.func = window.run
        return int(args.func(args) or 0)
    except MemoryDeskError as exc:
        stderr_line(str(exc))
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        stderr_line("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (`| head`): nothing left to say
        _quiet_stdout()
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - the one place a bug becomes a sentence and a log file
        return _unexpected(exc, args, argv)


def _terminate_as_interrupt() -> None:
    """SIGTERM (a service manager, `timeout`, a closing terminal) ends a command the way Ctrl+C does:
    every ``finally`` runs, so a build in progress is removed and a transaction rolls back."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def interrupt(_signum, _frame):
        raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGTERM, interrupt)
    except (ValueError, OSError):  # not where signals can be handled
        pass


def _unexpected(exc: Exception, args: argparse.Namespace | None, argv: list[str]) -> int:
    from memorydesk.store.errors import explain

    target = next((getattr(args, a) for a in ("workspace", "file", "path") if getattr(args, a, None)), None)
    error = explain(target, exc) if target else None
    if error is not None:  # the environment's fault, met where no translation was in place
        stderr_line(str(error))
        return EXIT_BAD_INPUT
    stderr_line(bug_sentence(exc, write_crash(exc, argv)))
    return EXIT_BUG


def _quiet_stdout() -> None:
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    raise SystemExit(main())
