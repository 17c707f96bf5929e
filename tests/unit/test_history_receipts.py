"""Receipts in the history: newest first, a page at a time, read from the receipt blocks exactly as
a file of the older row layout gives them from its rows."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from fixtures import receipt_rows
from fixtures.receipts import synthetic_lines
from memorydesk.browse.history.entries import HistoryQuery, context
from memorydesk.browse.history.sources import SOURCES
from memorydesk.core.receipts import receipt_from_json
from memorydesk.lineage import receipt_store
from memorydesk.store import open_workspace, ours, receipt_blocks


def pages(path: Path, n: int) -> list[tuple]:
    """Every receipt event the source gives, ``n`` at a time, as (position, time, summary)."""
    source = SOURCES["receipts"][1]
    with open_workspace(path, read_only=True) as ws:
        ctx = context(ws, HistoryQuery())
        out, pos = [], None
        while groups := source(ctx, pos, n):
            assert len(groups) <= n
            out += [(key, at, [(e.actor, e.action, e.ids, e.summary) for e in events]) for key, at, events in groups]
            pos = groups[-1][0]
    return out


def test_receipts_page_newest_first_from_the_blocks_as_from_the_rows(tmp_path: Path) -> None:
    receipts = [receipt_from_json(json.loads(line)) for line in synthetic_lines(30, 7)]
    blocks, rows = tmp_path / "blocks.db", tmp_path / "rows.db"
    with open_workspace(blocks, create=True) as ws:
        for k in range(0, len(receipts), 50):  # several blocks
            receipt_store.ingest(ws, receipts[k:k + 50])
        with ws.write() as conn:  # a removed run leaves a gap in the ids
            code = conn.exec_driver_sql(f"SELECT code FROM {receipt_blocks.NAMES} WHERE name = 'run-0000004'").scalar()
            receipt_blocks.remove(conn, lambda rec, _text: rec["run"] == code)
    kept = [(k, r) for k, r in enumerate(receipts, 1) if r.run_id != "run-0000004"]
    shutil.copy(blocks, rows)
    with open_workspace(rows) as ws:  # the same receipts, same ids, as rows of the older layout
        receipt_rows.freeze(ws, [r for _k, r in kept], ours.RECEIPT_BLOCKS_ONLY_SCHEMA - 1,
                            ids=[k for k, _r in kept])
    got = pages(blocks, 16)
    assert [key for key, _at, _e in got] == [k for k, _r in reversed(kept)]
    newest_id, newest = kept[-1]
    assert got[0][1] == int(newest.at_utc.timestamp()) and got[0][2] == [
        (newest.source_version, newest.status, (newest.run_id, newest.version),
         f"{newest.tier} {newest.status} of version {newest.version} in run {newest.run_id} "
         f"({newest.user_scope} × {newest.assistant_scope})")]
    assert got == pages(rows, 16) == pages(blocks, 1000)
    assert np.all(np.diff([key for key, _at, _e in got]) < 0)
