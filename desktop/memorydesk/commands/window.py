"""`memory-desk [WORKSPACE] [--read-only]` and `memory-desk --demo [--fresh]`: open the desk window.

With no workspace it reopens the most recent one that still exists, or else the demo.
The demo workspace lives in the user's data folder (``demo/workspace.db`` there); it is
built once, through the memory service as `memory-desk demo create` does, printing its
progress on the terminal, and reused afterwards unless ``--fresh`` asks for a new one.

Before the QApplication exists, the platform Qt will use is checked: a library the
X11 platform needs, or an X server that cannot be reached, is named in one sentence
instead of Qt aborting the process.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from memorydesk.core.errors import BadInput

DEMO_FACTS = 2000


def data_folder() -> Path:
    """The desk's folder for its own files (the QApplication must exist: it names it)."""
    from PySide6.QtCore import QStandardPaths

    return Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppLocalDataLocation))


def demo_workspace(folder: Path, *, fresh: bool = False, progress: Callable[[str], None] | None = None,
                   facts: int = DEMO_FACTS) -> Path:
    """The demo workspace in ``folder``: the one built before, or a new one (``fresh``, or none yet)."""
    from memorydesk.commands import demo

    path = folder / "demo" / "workspace.db"
    if path.is_file() and not fresh:
        if progress is not None:
            progress(f"using the demo workspace {path} (--fresh builds a new one)")
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    demo.create(path, facts=facts, progress=progress)
    if progress is not None:
        progress(f"demo workspace ready: {path}")
    return path


def last_workspace(recent: list[str], say: Callable[[str], None]) -> Path | None:
    """The most recent workspace that still exists (the ones gone are named and skipped)."""
    for item in recent:
        path = Path(item)
        if path.is_file():
            return path
        say(f"skipping {path}: it no longer exists")
    return None


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    if args.fresh and not args.demo:
        raise BadInput("--fresh goes with --demo (it builds a new demo workspace)")
    if args.demo and args.workspace:
        raise BadInput("give a WORKSPACE or --demo, not both")
    from memorydesk.ui.app import ensure_app, ensure_offscreen_if_headless
    from memorydesk.ui.platform_check import require_platform

    ensure_offscreen_if_headless()
    require_platform()
    app = ensure_app()
    from memorydesk.ui import settings
    from memorydesk.ui.mainwindow import MainWindow

    path: Path | None
    if args.workspace:
        path = Path(args.workspace)
    elif args.demo:
        path = demo_workspace(data_folder(), fresh=args.fresh, progress=_say)
    else:
        path = last_workspace(settings.recent(), _say)
        if path is None:
            _say("no workspace given and none opened before: opening the demo workspace")
            path = demo_workspace(data_folder(), progress=_say)
    window = MainWindow()
    window.ops.failed.connect(lambda _label, message: print(f"memory-desk: {message}", file=sys.stderr))
    window.show()
    window.open_path(path, read_only=bool(args.read_only))  # a file that cannot be opened gets a dialog too
    return int(app.exec())


def register(sub) -> None:  # the window is the default command (see memorydesk.cli)
    p = sub.add_parser("window", help="open the desk window")
    p.add_argument("workspace", nargs="?")
    p.add_argument("--read-only", action="store_true")
    p.add_argument("--demo", action="store_true")
    p.add_argument("--fresh", action="store_true")
    p.set_defaults(func=run)
