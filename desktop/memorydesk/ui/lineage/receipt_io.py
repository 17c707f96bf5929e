"""The Lineage tab's writing and file actions: File ▸ Import Receipts…, File ▸ Export
Receipts…, Tools ▸ Run Canary… (``ReceiptIO``, mixed into
:class:`~memorydesk.ui.lineage.tab.LineageTab`, which has what the methods use: its session,
its write actions, the fleet bar, its filters)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog

from memorydesk.core.changes import Kind
from memorydesk.lineage.receipt_files import export_file
from memorydesk.lineage.receipt_import import import_file
from memorydesk.ui.lineage.canary_dialog import CanaryDialog, run_gate_in

RECEIPT_KINDS = frozenset({Kind.RECEIPT, Kind.TIER})


class ReceiptIO:
    """Mixed into the Lineage tab (a ``DeskTab``): needs ``session``, ``acts`` with ``act_import``
    and ``act_canary``, ``fleet_bar``, ``controls``, ``start``, ``dialog`` and ``_fit_next``."""

    session: Any
    acts: Any
    act_import: Any
    act_canary: Any
    fleet_bar: Any
    controls: Any
    dialog: Any
    _fit_next: bool

    async def import_receipts(self, path: str | None = None) -> None:
        """File ▸ Import receipts…: a JSON Lines or OTLP/JSON file, all or nothing, with progress."""
        if not self.acts.allowed(self.act_import) or self.session is None:
            return
        self.fleet_bar.use_workspace()  # an import goes into the workspace: show it
        if path is None:
            path, _filter = QFileDialog.getOpenFileName(self, "Import receipts", "", "Receipts: JSON Lines or "
                                                        "OTLP/JSON (*.jsonl *.ndjson *.json);;All files (*)")
            if not path:
                return

        def work(ws, job):
            return import_file(ws, path, lambda d, t, x: job.report(d, t, x), job.check)

        result = await self.session.job(f"Importing {Path(path).name}", work, kinds=RECEIPT_KINDS)
        self.session.status.emit(result.message())

    async def export_receipts(self, path: str | None = None, fmt: str | None = None) -> None:
        """File ▸ Export Receipts…: every stored receipt as OTLP/JSON (for OpenTelemetry) or JSON Lines."""
        if self.session is None:
            return
        if path is None:
            otlp, jsonl = "OTLP/JSON, for OpenTelemetry (*.json)", "JSON Lines (*.jsonl)"
            path, chosen = QFileDialog.getSaveFileName(self, "Export receipts", "receipts.otlp.json",
                                                       f"{otlp};;{jsonl}")
            if not path:
                return
            fmt = "jsonl" if chosen == jsonl else "otlp-json"
        fmt = fmt or ("jsonl" if path.endswith((".jsonl", ".ndjson")) else "otlp-json")

        def work(ws, job):
            job.report(0, 1, f"writing {Path(path).name}")
            return export_file(ws, path, fmt)

        count = await self.session.job(f"Exporting {Path(path).name}", work)
        self.session.status.emit(f"Exported {count:,} receipts to {Path(path).name} "
                                 f"({'OTLP/JSON' if fmt == 'otlp-json' else 'JSON Lines'}).")

    async def run_canary(self) -> None:
        """Tools ▸ Run canary…: says what it will write; Run starts the gate (progress, Stop, a
        result per check), Cancel writes nothing."""
        if not self.acts.allowed(self.act_canary) or self.session is None:
            return
        self.fleet_bar.use_workspace()
        dialog = CanaryDialog(self, workspace=str(self.session.ws.path))
        dialog.show_runs.connect(self.show_canary_runs)
        dialog.run_requested.connect(lambda: self.start(run_gate_in(dialog, self.session, RECEIPT_KINDS | {Kind.FACT})))
        self.dialog = dialog
        dialog.open()

    def show_canary_runs(self) -> None:
        """Only the canary's runs (the canary dialog's button), in view."""
        self.controls.clear_filters()
        self.controls.canary.setChecked(True)
        self._fit_next = True  # the next layout (with the canary filter) shows them: Home on them
