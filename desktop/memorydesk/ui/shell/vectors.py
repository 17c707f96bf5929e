"""Tools ▸ Index Missing Vectors in the window: say what it will do, ask why, then run it as a
job (progress and Cancel in the status bar) through the reviewer, which writes history rows
that one Edit ▸ Undo takes back (``memory.vector_index``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QMainWindow

from memorydesk.core.changes import Kind
from memorydesk.ui.session import DeskSession
from memorydesk.ui.widgets.progress import vector_summary
from memorydesk.ui.widgets.prompts import ask_reason

WHAT = ("The on-device model (all-MiniLM-L6-v2, the product's own) computes each fact's vector from its topic "
        "and content; the desk writes it into the file's embedding columns and its own vector index. Agents' "
        "semantic recall then finds these facts where it could not before (keyword search is unchanged). "
        "Stopping keeps what is done; Edit ▸ Undo clears every vector this run wrote.")


async def index_vectors(win: QMainWindow, session: DeskSession, failed: Callable[[str, str], None],
                        shown: Callable[[Any], None], batch: int | None = None) -> None:
    """In ``win`` (the dialog's parent, its status bar) on ``session``: ``failed(label, why)`` when the
    model cannot run, ``shown(dialog)`` with the question while it is open (None after)."""
    from memorydesk.embedding.embedder import embedder_status
    from memorydesk.memory.reviewer import Reviewer
    from memorydesk.memory.vector_index import missing_count

    ok, why_not = embedder_status()
    if not ok:
        failed("indexing missing vectors", why_not)
        return
    missing = await session.read(missing_count, label="counting facts without a vector")
    if not missing:
        win.statusBar().showMessage("Every fact already has a vector: nothing to index.", 15000)
        return
    dialog, answer = ask_reason(win, "Index missing vectors",
                                f"Compute and store vectors for {missing:,} fact{'s' if missing != 1 else ''} "
                                "that have none?", yes_text="Index", informative=WHAT, name="index-vectors")
    shown(dialog)
    reason = await answer
    shown(None)
    if reason is None:
        return
    actor = session.actor

    def work(ws: Any, job: Any) -> Any:
        job.report(0, missing, "embedding facts without a vector")
        return Reviewer(ws, actor).index_missing_vectors(
            reason, cancelled=lambda: job.cancelled, progress=lambda p: job.report(p.done, p.total),
            **({"batch": batch} if batch else {}))

    result = await session.job("Index missing vectors", work, kinds={Kind.FACT})
    win.statusBar().showMessage(vector_summary(result), 15000)
