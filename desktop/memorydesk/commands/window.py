"""`memory-desk [WORKSPACE] [--read-only]` and `memory-desk --demo`: open the desk window.

With no workspace it reopens the most recent one; `--demo` builds a fresh demo
workspace first (through `memory-desk demo create`).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from memorydesk.core.errors import BadInput


def _demo_path() -> Path:
    """A fresh demo workspace, built through the memory service (as `memory-desk demo create` does)."""
    from memorydesk.commands import demo

    folder = Path(tempfile.mkdtemp(prefix="memorydesk-demo-"))
    path = folder / "demo.db"
    demo.create(path, facts=2000)
    return path


def run(args: argparse.Namespace) -> int:
    from memorydesk.ui.app import ensure_app, ensure_offscreen_if_headless

    ensure_offscreen_if_headless()
    app = ensure_app()
    from memorydesk.ui import settings
    from memorydesk.ui.mainwindow import MainWindow

    path: Path | None
    if args.demo:
        path = _demo_path()
    elif args.workspace:
        path = Path(args.workspace)
    else:
        recent = settings.recent()
        path = Path(recent[0]) if recent else None
        if path is None:
            raise BadInput("no workspace given and none opened before; try `memory-desk WORKSPACE` or --demo")
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
    p.set_defaults(func=run)
