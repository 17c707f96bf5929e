"""The Lineage tab's writing and file actions: File ▸ Import Receipts…, File ▸ Export
Receipts…, Tools ▸ Run Canary… (methods of :class:`~memorydesk.ui.lineage.tab.LineageTab`,
kept here)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog

from memorydesk.core.changes import Kind
from memorydesk.lineage.receipt_files import export_file
from memorydesk.lineage.receipt_import import import_file
from memorydesk.ui.lineage.canary_dialog import CanaryDialog, run_gate_in

if TYPE_CHECKING:
    from memorydesk.ui.lineage.tab import LineageTab

RECEIPT_KINDS = frozenset({Kind.RECEIPT, Kind.TIER})


async def import_receipts(tab: LineageTab, path: str | None = None) -> None:
    """File ▸ Import receipts…: a JSON Lines or OTLP/JSON file, all or nothing, with progress."""
    if not tab.acts.allowed(tab.act_import) or tab.session is None:
        return
    tab.fleet_bar.use_workspace()  # an import goes into the workspace: show it
    if path is None:
        path, _filter = QFileDialog.getOpenFileName(tab, "Import receipts", "", "Receipts: JSON Lines or OTLP/JSON "
                                                    "(*.jsonl *.ndjson *.json);;All files (*)")
        if not path:
            return

    def work(ws, job):
        return import_file(ws, path, lambda d, t, x: job.report(d, t, x), job.check)

    result = await tab.session.job(f"Importing {Path(path).name}", work, kinds=RECEIPT_KINDS)
    tab.session.status.emit(result.message())


async def export_receipts(tab: LineageTab, path: str | None = None, fmt: str | None = None) -> None:
    """File ▸ Export Receipts…: every stored receipt as OTLP/JSON (for OpenTelemetry) or JSON Lines."""
    if tab.session is None:
        return
    if path is None:
        otlp, jsonl = "OTLP/JSON, for OpenTelemetry (*.json)", "JSON Lines (*.jsonl)"
        path, chosen = QFileDialog.getSaveFileName(tab, "Export receipts", "receipts.otlp.json",
                                                   f"{otlp};;{jsonl}")
        if not path:
            return
        fmt = "jsonl" if chosen == jsonl else "otlp-json"
    fmt = fmt or ("jsonl" if path.endswith((".jsonl", ".ndjson")) else "otlp-json")

    def work(ws, job):
        job.report(0, 1, f"writing {Path(path).name}")
        return export_file(ws, path, fmt)

    count = await tab.session.job(f"Exporting {Path(path).name}", work)
    tab.session.status.emit(f"Exported {count:,} receipts to {Path(path).name} "
                             f"({'OTLP/JSON' if fmt == 'otlp-json' else 'JSON Lines'}).")


async def run_canary(tab: LineageTab) -> None:
    """Tools ▸ Run canary…: says what it will write; Run starts the gate (progress, Stop, a
    result per check), Cancel writes nothing."""
    if not tab.acts.allowed(tab.act_canary) or tab.session is None:
        return
    tab.fleet_bar.use_workspace()
    dialog = CanaryDialog(tab, workspace=str(tab.session.ws.path))
    dialog.show_runs.connect(tab.show_canary_runs)
    dialog.run_requested.connect(lambda: tab.start(run_gate_in(dialog, tab.session, RECEIPT_KINDS | {Kind.FACT})))
    tab.dialog = dialog
    dialog.open()


def show_canary_runs(tab: LineageTab) -> None:
    """Only the canary's runs (the canary dialog's button), in view."""
    tab.controls.clear_filters()
    tab.controls.canary.setChecked(True)
    tab._fit_next = True  # the next layout (with the canary filter) shows them: Home on them
