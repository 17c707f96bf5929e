"""`memory-desk shot WORKSPACE --tab T --out FILE.png [--size WxH] [--search TEXT [--agent-view]] [--focus ID]`:
render one tab to a PNG.

The workspace is opened read-only (the file is not changed), it is not added to the
recent list (the person's profile is not changed either), and the window is
rendered off-screen when there is no display. The first fact (or policy) is
selected so the detail pane shows, and rendering waits for background reads.
``--search`` types a search into the Facts tab first (the agent's keyword search);
``--agent-view`` shows it as the agent sees it (the hybrid ranking, a preview).
``--focus FACT_ID`` (graph tab) focuses that fact. ``--receipts SOURCE`` (lineage tab) shows the
receipts of a ClickHouse source (``chdb:PATH`` or ``clickhouse://HOST``, as File ▸ Open Receipts
Source… does) instead of the workspace's.

A read that fails while the tab renders (a damaged page, a file that cannot be read) makes
no picture: exit 2 with the window's own sentence for it, or 70 when it is our bug — never
a normal-looking PNG of an empty tab and exit 0.
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
import time
from pathlib import Path

from memorydesk.core.errors import BadInput, MemoryDeskError, WorkspaceUnusable

TABS = ("facts", "policies", "graph", "grants", "conflicts", "lineage", "history", "review")


def _size(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d{2,5})x(\d{2,5})", text.strip().lower())
    if not m:
        raise BadInput(f"--size: expected WIDTHxHEIGHT such as 1280x800, got {text!r}")
    return int(m.group(1)), int(m.group(2))


class _Bugs(logging.Handler):
    """Errors the window logs with an exception that is not the input's fault (our bugs)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.found: list[BaseException] = []

    def emit(self, record: logging.LogRecord) -> None:
        error = record.exc_info[1] if record.exc_info else None
        if error is not None and not isinstance(error, MemoryDeskError):
            self.found.append(error)


def run(args: argparse.Namespace) -> int:
    width, height = _size(args.size)
    search = getattr(args, "search", None)
    agent_view = bool(getattr(args, "agent_view", False))
    if (search is not None or agent_view) and args.tab != "facts":
        raise BadInput("--search and --agent-view need --tab facts")
    focus_id = getattr(args, "focus", None)
    if focus_id is not None and args.tab != "graph":
        raise BadInput("--focus needs --tab graph")
    if agent_view and not (search or "").strip():
        raise BadInput("--agent-view needs --search TEXT")
    receipts = getattr(args, "receipts", None)
    if receipts is not None:
        from memorydesk.lineage.fleet.source import parse_source

        if args.tab != "lineage":
            raise BadInput("--receipts needs --tab lineage")
        parse_source(receipts)  # a name that is not a source is refused before the window opens
    from memorydesk.core.outputs import refuse_overwriting_input

    out = refuse_overwriting_input(args.out, [args.workspace], "--out")
    if not out.parent.is_dir():
        raise BadInput(f"--out: the folder {out.parent} does not exist")
    from memorydesk.ui.shell.app import ensure_app, ensure_offscreen_if_headless
    from memorydesk.ui.shell.platform_check import require_platform

    ensure_offscreen_if_headless()
    require_platform()
    app = ensure_app()
    from memorydesk.store import open_workspace
    from memorydesk.ui.shell.mainwindow import MainWindow

    ws = open_workspace(Path(args.workspace), read_only=True)
    bugs = _Bugs()
    logging.getLogger("memorydesk").addHandler(bugs)
    try:
        return _render(app, ws, MainWindow, args, out, (width, height), search, agent_view, focus_id, bugs)
    finally:
        logging.getLogger("memorydesk").removeHandler(bugs)


def _render(app, ws, main_window, args: argparse.Namespace, out: Path, size: tuple[int, int], search: str | None,
            agent_view: bool, focus_id: str | None, bugs: _Bugs) -> int:
    width, height = size
    receipts = getattr(args, "receipts", None)
    window = main_window(ws, remember=False)  # a picture neither uses nor changes what the window remembers
    failures: list[tuple[str, str]] = []
    window.ops.failed.connect(lambda label, message: failures.append((label, message)))
    window.resize(width, height)
    window.show_tab(args.tab)
    window.show()

    def settle(seconds: float = 15.0) -> None:
        deadline = time.monotonic() + seconds
        quiet = 0
        while time.monotonic() < deadline and quiet < 5:
            app.processEvents()
            busy = getattr(window.tab(args.tab), "busy", None)
            idle = window.ops.pending == 0 and window.ops.flows == 0 and not (busy is not None and busy())
            quiet = quiet + 1 if idle else 0
            time.sleep(0.02)

    settle()
    tab = window.tab(args.tab)
    if search is not None and tab is not None:
        tab.filters.set_search(search, agent_view=agent_view)
        settle()
    if focus_id is not None and tab is not None:
        tab.navigate({"fact": focus_id})
        settle()
    if receipts is not None and tab is not None:
        tab.fleet_bar.open_source(receipts)
        settle(120.0)
        if tab.pages.currentWidget() is tab.failed:  # the source could not be read: say why, draw nothing
            window.close()
            raise BadInput(tab.read_error)
    if tab is not None:
        tab.prepare_shot()
    settle()
    image = window.grab()
    if bugs.found or failures:  # what was read failed: the picture would show an empty tab as if all were well
        window.close()
        app.processEvents()
        if bugs.found:
            raise bugs.found[0]
        label, message = failures[0]
        raise WorkspaceUnusable(f"--tab {args.tab}: {label + ' failed: ' if label else ''}{message}; no picture was "
                                "written")
    shown = (image.width(), image.height())
    if shown[0] > width or shown[1] > height:
        print(f"memory-desk: --size {width}x{height} is below the window's minimum size; "
              f"the shot is {shown[0]}x{shown[1]}", file=sys.stderr)
    window.close()
    app.processEvents()
    if not image.save(str(out), "PNG"):
        raise BadInput(f"--out: could not write {out}")
    print(f"{out}: {args.tab} tab of {ws.name}, {shown[0]}x{shown[1]}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("shot", help="render a tab of the window to a PNG (off-screen)")
    p.add_argument("workspace", help="workspace database (opened read-only)")
    p.add_argument("--tab", choices=TABS, default="facts")
    p.add_argument("--out", required=True, help="PNG file to write")
    p.add_argument("--size", default="1280x800",
                   help="window size WIDTHxHEIGHT (default 1280x800); a size below the window's minimum is "
                        "raised to it, and said so")
    p.add_argument("--search", metavar="TEXT", help="facts tab: search for TEXT first (the agent's keyword search)")
    p.add_argument("--agent-view", action="store_true",
                   help="with --search: show the agent's hybrid ranking with its explanations (a preview)")
    p.add_argument("--focus", metavar="FACT_ID", help="graph tab: focus this fact (the graph voice's 2-hop walk)")
    p.add_argument("--receipts", metavar="SOURCE", help="lineage tab: the receipts of a ClickHouse source, "
                                                        "chdb:PATH[?database=D&table=T] or clickhouse://HOST[:PORT][/DB]")
    p.set_defaults(func=run)
