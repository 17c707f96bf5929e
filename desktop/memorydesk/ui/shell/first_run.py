"""The demo workspace behind the window: the window opens at once, the demo builds behind
its progress bar.

Facts come first, without embeddings: a job with progress and Cancel in the status bar,
on the builder's bulk path (the service's rules, a narrower search for links), so that
rows show within seconds. The workspace opens as soon as they are written. Then the
facts get their vectors in a job of their own (``memory.vector_index.build_vectors``: the
same batches as Tools ▸ Index Missing Vectors, but the desk building its demo, not a person
changing a workspace — it asks for no reason and writes no history), and search as the
agent sees it is complete once they are in.

Cancel, or closing the window, stops either step. A stopped fact build leaves nothing
behind (``demo.place``). Stopped indexing keeps what it did, and resumes the next time
the demo is opened. With ``echo``, progress is also printed on the terminal.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, Qt
from PySide6.QtWidgets import QLabel

from memorydesk.store import open_workspace
from memorydesk.store.workspace import Workspace
from memorydesk.ui.operations import Cancelled, Job
from memorydesk.ui.shell.mainwindow import MainWindow

DEMO_FACTS = 2000
BUILD_TITLE = "Building the demo workspace"
VECTORS_TITLE = "Computing the demo's vectors"
ECHO_EVERY = 2.0  # seconds between progress lines on the terminal


def data_folder() -> Path:
    """The desk's folder for its own files (the QApplication names it)."""
    return Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppLocalDataLocation))


def demo_path(folder: Path | None = None) -> Path:
    """Where the demo workspace lives: ``demo/workspace.db`` in the data folder."""
    return (folder or data_folder()) / "demo" / "workspace.db"


class JobEcho(QObject):
    """Prints the progress of the jobs a window runs: a line every few seconds, and the last."""

    def __init__(self, window: MainWindow, echo: Callable[[str], None]) -> None:
        super().__init__(window)
        self.ops, self.echo = window.ops, echo
        self._last: dict[int, float] = {}
        self.ops.job_started.connect(self._started)
        self.ops.job_finished.connect(self._finished)

    def _started(self, job: Job) -> None:
        self._last[id(job)] = 0.0
        job.progressed.connect(lambda done, total, text, j=job: self._progressed(j, done, total, text))

    def _line(self, job: Job) -> str:
        amount = f"{job.done:,} / {job.total:,}" if job.total else f"{job.done:,}"
        return f"{job.title}: {job.text + ' ' if job.text else ''}{amount}"

    def _progressed(self, job: Job, _done: int, _total: int, _text: str) -> None:
        now = time.monotonic()
        if now - self._last.get(id(job), 0.0) >= ECHO_EVERY:
            self._last[id(job)] = now
            self.echo(self._line(job))

    def _finished(self, job: Job) -> None:
        self._last.pop(id(job), None)
        self.echo(self._line(job) + (" (stopped)" if job.cancelled else ""))

    def stop(self) -> None:
        self.ops.job_started.disconnect(self._started)
        self.ops.job_finished.disconnect(self._finished)


class DemoSetup(QObject):
    """Opens the demo workspace in ``window``, building it first when needed (see the module)."""

    def __init__(self, window: MainWindow, path: Path, *, fresh: bool = False, read_only: bool = False,
                 echo: Callable[[str], None] | None = None, facts: int = DEMO_FACTS) -> None:
        super().__init__(window)
        self.window, self.path, self.fresh, self.read_only, self.facts = window, path, fresh, read_only, facts
        self.echo = echo or (lambda _line: None)
        self.placeholder: QLabel | None = None
        self.outcome = ""  # built / reused / stopped / failed, once the flow ends

    def start(self) -> asyncio.Task:
        return self.window.ops.start(self.run(), owner=self.window)

    async def run(self) -> str:
        printer = JobEcho(self.window, self.echo)
        try:
            self.outcome = await self._run()
        finally:
            printer.stop()
        return self.outcome

    async def _run(self) -> str:
        outcome = "reused"
        if self.fresh or not self.path.is_file():
            self._show_placeholder("Building the demo workspace: the memory of a small software team's agents, "
                                   f"about {self.facts:,} facts. They appear here as soon as they are written; "
                                   "their embeddings follow (progress below).")
            try:
                await self._build_facts()
            except Cancelled:
                self._show_placeholder("The demo build was stopped; nothing was kept. "
                                       "File ▸ Open… opens a workspace, and memory-desk --demo builds the demo.")
                self.echo("demo build stopped; nothing was kept")
                return "stopped"
            except Exception:  # noqa: BLE001 - already shown by the operations queue
                self._show_placeholder("The demo could not be built (the error was shown).")
                return "failed"
            outcome = "built"
        path, read_only = self.path, self.read_only
        try:
            ws: Workspace = await self.window.ops.call(lambda: open_workspace(path, read_only=read_only),
                                                       label=f"opening {path.name}")
        except Exception:  # noqa: BLE001 - already shown
            return "failed"
        self.window.set_workspace(ws)
        self._drop_placeholder()
        self.echo(f"demo workspace ready: {path}")
        from memorydesk.memory.vector_index import missing_count

        if not read_only and await self.window.ops.call(lambda: missing_count(ws), label="counting vectors") > 0:
            await self._build_vectors()  # resumable: a later start picks up what is left
        return outcome

    async def _build_vectors(self) -> None:
        """The demo's vectors, behind a progress bar with Cancel: part of building it, so no
        reason is asked and no history is written (a stop keeps what is done)."""
        from memorydesk.core.changes import Kind
        from memorydesk.embedding.embedder import embedder_status
        from memorydesk.memory.vector_index import build_vectors

        ok, why_not = embedder_status()
        session = self.window.session
        if not ok or session is None:
            self.echo(f"demo vectors not computed: {why_not}" if not ok else "demo vectors not computed")
            return

        def work(ws: Workspace, job: Job) -> bool:
            job.report(0, 1, "embedding facts")
            done = build_vectors(ws, cancelled=lambda: job.cancelled, progress=lambda p: job.report(p.done, p.total))
            return done.cancelled

        if await session.job(VECTORS_TITLE, work, kinds={Kind.FACT}):
            self.echo("demo vectors stopped; the next start finishes them")

    async def _build_facts(self) -> None:
        path, facts = self.path, self.facts
        path.parent.mkdir(parents=True, exist_ok=True)

        def work(job: Job) -> None:
            job.report(0, facts, "writing facts")

            def counted(written: int, _target: int) -> None:
                job.check()
                job.report(written, facts, "writing facts")

            from memorydesk.demo.place import create  # the builder only when a demo is built

            create(path, facts=facts, embed=0, bulk=True, progress=lambda _line: job.check(), counted=counted)
            job.report(facts, facts, "writing facts")

        _job, done = self.window.ops.job(BUILD_TITLE, work)
        await done

    def _show_placeholder(self, text: str) -> None:
        if self.placeholder is None:
            self.placeholder = QLabel()
            self.placeholder.setObjectName("demo-placeholder")
            self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
            self.placeholder.setWordWrap(True)
            self.placeholder.setMargin(48)
            self.window.tabs.addTab(self.placeholder, "Demo")
        self.placeholder.setText(text)

    def _drop_placeholder(self) -> None:
        if self.placeholder is not None:
            index = self.window.tabs.indexOf(self.placeholder)
            if index >= 0:
                self.window.tabs.removeTab(index)
            self.placeholder.deleteLater()
            self.placeholder = None
