"""File ▸ Export Receipts (OTLP/JSON) and File ▸ Import Receipts of an OTLP/JSON file, in the real window."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import desk_sample
import pytest

from memorydesk.core.health.scalar import classify
from memorydesk.demo import lineage as demo
from memorydesk.lineage import receipt_store
from memorydesk.lineage.receipt_files import read_receipts
from memorydesk.store import open_workspace

pytestmark = pytest.mark.gui
END = datetime.now(UTC).replace(second=0, microsecond=0)


def ready(qtbot, win):
    tab = win.show_tab("lineage")
    qtbot.waitUntil(lambda: tab.tl is not None and not tab.busy() and win.ops.pending == 0, timeout=30000)
    return tab


def test_export_from_a_read_only_window_then_import_the_otlp_file_elsewhere(open_window, tmp_path: Path,
                                                                             qtbot) -> None:
    source = desk_sample.build(tmp_path / "source.db")
    receipts = demo.history(3, END)
    with open_workspace(source) as ws:
        receipt_store.ingest(ws, receipts)
    win = open_window(source, read_only=True)
    tab = ready(qtbot, win)
    assert win.act_export_receipts.isEnabled() and win.act_export_receipts in win.file_menu.actions()
    out = tmp_path / "receipts.otlp.json"
    tab.start(tab.export_receipts(str(out), "otlp-json"))
    qtbot.waitUntil(lambda: "Exported" in win.statusBar().currentMessage(), timeout=60000)
    assert f"Exported {len(receipts):,} receipts to receipts.otlp.json (OTLP/JSON)" in \
        win.statusBar().currentMessage()
    assert out.read_text(encoding="utf-8").startswith('{"resourceSpans":')
    exported = read_receipts(out)
    now = datetime.now(UTC)
    assert [(v.run_id, v.state) for v in classify(exported, now=now)] == \
        [(v.run_id, v.state) for v in classify(receipts, now=now)]
    win.close()

    target = desk_sample.build(tmp_path / "target.db")
    win = open_window(target)
    tab = ready(qtbot, win)
    before = len(tab.table)
    tab.start(tab.import_receipts(str(out)))
    qtbot.waitUntil(lambda: "Imported" in win.statusBar().currentMessage() and not tab.busy(), timeout=60000)
    runs = len({r.run_id for r in receipts})
    assert f"Imported {len(receipts):,} receipts of {runs:,} runs from receipts.otlp.json" in \
        win.statusBar().currentMessage()
    qtbot.waitUntil(lambda: len(tab.table) == before + runs, timeout=30000)


@pytest.mark.slow
def test_receipts_sent_to_lineage_serve_show_in_the_open_window(open_window, tmp_path: Path, qtbot) -> None:
    import json

    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    from fixtures.otlp_sdk import sdk_spans, serving
    from fixtures.receipts import complete_lineage

    path = desk_sample.build(tmp_path / "open.db")
    win = open_window(path)
    tab = ready(qtbot, win)
    rows = json.loads(json.dumps(complete_lineage("from-the-fleet", now=datetime.now(UTC), user="user:fleet")))
    with serving(path) as (url, _process):
        exporter = OTLPSpanExporter(endpoint=url + "/v1/traces")
        assert exporter.export(sdk_spans(rows)) == SpanExportResult.SUCCESS
        exporter.shutdown()
        qtbot.waitUntil(lambda: "from-the-fleet" in tab.table.index and not tab.busy(), timeout=30000)
