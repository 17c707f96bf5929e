"""`memory-desk [WORKSPACE] [--read-only]` and `memory-desk --demo [--fresh]`: open the desk window.

The window opens at once; the workspace is opened behind it (a file that cannot be
opened gets a dialog, and a line on the terminal). With no workspace it reopens the
most recent one that still exists, or else the demo. The demo workspace lives in the
user's data folder; the first time it is built behind the window's progress bar (and
on the terminal), afterwards it is reused unless ``--fresh`` asks for a new one
(``memorydesk.ui.shell.first_run``).

Before the QApplication exists, the platform Qt will use is checked: a library the
X11 platform needs, or an X server that cannot be reached (or none at all), is named in
one sentence instead of Qt aborting the process.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from memorydesk.core.errors import BadInput


def last_workspace(recent: list[str], say: Callable[[str], None]) -> Path | None:
    """The most recent workspace that still exists (the ones gone are named and skipped)."""
    for item in recent:
        path = Path(item)
        if path.is_file():
            return path
        say(f"skipping {path}: it no longer exists")
    return None


def _same_path(a: Path, b: Path) -> bool:
    """Both name one file (never raises: a loop of symbolic links is no file at all)."""
    return os.path.realpath(a) == os.path.realpath(b)


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    if args.fresh and not args.demo:
        raise BadInput("--fresh goes with --demo (it builds a new demo workspace)")
    if args.demo and args.workspace:
        raise BadInput("give a WORKSPACE or --demo, not both")
    from memorydesk.ui.shell.app import ensure_app
    from memorydesk.ui.shell.platform_check import require_platform

    require_platform()  # without a display this says so (a window nobody can see helps nobody)
    if args.workspace:  # a loop of symbolic links, a folder, a FIFO: the command line's sentence, exit 2
        from memorydesk.store.files import inspect_path

        inspect_path(Path(args.workspace).expanduser())
    app = ensure_app()
    from memorydesk.ui.shell import settings
    from memorydesk.ui.shell.first_run import DemoSetup, demo_path
    from memorydesk.ui.shell.mainwindow import MainWindow

    settings.apply_search_cache_setting()
    read_only = bool(args.read_only)
    path = Path(args.workspace) if args.workspace else None
    if path is None and not args.demo:
        path = last_workspace(settings.recent(), _say)
        if path is None:
            _say("no workspace given and none opened before: opening the demo workspace")
    window = MainWindow(lazy_tabs=True)  # the tab shown first now, the others after its first paint
    window.ops.failed.connect(lambda _label, message: print(f"memory-desk: {message}", file=sys.stderr))
    window.show()
    window.keeper.end_on_signals()  # SIGTERM / SIGHUP: closed as File ▸ Quit does, the state saved
    demo = demo_path()
    if path is not None and not _same_path(path, demo):
        window.open_path(path, read_only=read_only)  # a file that cannot be opened gets a dialog too
    else:  # the demo, opened as the demo: built if need be, its missing vectors resumed
        DemoSetup(window, demo, fresh=bool(args.fresh), read_only=read_only, echo=_say).start()
    return int(app.exec())


def register(sub) -> None:  # the window is the default command (see memorydesk.cli)
    p = sub.add_parser("window", help="open the desk window")
    p.add_argument("workspace", nargs="?")
    p.add_argument("--read-only", action="store_true")
    p.add_argument("--demo", action="store_true")
    p.add_argument("--fresh", action="store_true")
    p.set_defaults(func=run)
