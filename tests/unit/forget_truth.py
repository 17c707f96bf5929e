"""What is really there, found without the forget check: every table's rows and every file's
bytes searched by brute force, and the agent's own search and preamble asked directly. The
forget check's tests compare its verdicts with these."""

from __future__ import annotations

from pathlib import Path

import sqlean

from memorydesk.core.forget.receipt import STILL, Receipt


def tables_holding(path: Path, needle: str) -> set[str]:
    """Every ordinary table with a row whose any column, read as text, holds ``needle`` (ASCII
    letters folded). Virtual tables and their shadow tables are their indexes' business (the
    check asks them through their public interfaces); the byte search covers their pages."""
    conn = sqlean.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
        virtual = [n for n, sql in rows if (sql or "").upper().startswith("CREATE VIRTUAL TABLE")]
        found = set()
        for name, _sql in rows:
            if name.startswith("sqlite_") or name in virtual or any(name.startswith(v + "_") for v in virtual):
                continue
            for col in [r[1] for r in conn.execute(f'PRAGMA table_info("{name}")')]:
                hit = conn.execute(f'SELECT 1 FROM "{name}" WHERE instr(lower(CAST("{col}" AS TEXT)), lower(?)) > 0 '
                                   "LIMIT 1", (needle,)).fetchone()
                if hit:
                    found.add(name)
        return found
    finally:
        conn.close()


def files_holding(folder: Path, needle: bytes) -> set[str]:
    """Every file in ``folder`` whose bytes hold ``needle``."""
    return {p.name for p in folder.iterdir() if p.is_file() and needle in p.read_bytes()}


def named(receipt: Receipt, kind: str, paths: tuple[str, ...] | None = None) -> set[str]:
    """The ids of ``kind`` the receipt's still-paths name (only ``paths`` when given)."""
    return {i for a in receipt.answers if a.verdict == STILL and (paths is None or a.key in paths)
            for i in a.ids_of(kind)}


def verdicts(receipt: Receipt) -> dict[str, str]:
    return {a.key: a.verdict for a in receipt.answers}


def rows_holding(path: Path, table: str, key: str, needle: str) -> set[str]:
    """The ``key`` of every row of ``table`` with any column holding ``needle`` (ASCII letters folded)."""
    conn = sqlean.connect(f"file:{path}?mode=ro", uri=True)
    try:
        cols = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
        cond = " OR ".join(f'instr(lower(CAST("{c}" AS TEXT)), lower(?)) > 0' for c in cols)
        return {str(r[0]) for r in conn.execute(f'SELECT "{key}" FROM "{table}" WHERE {cond}', (needle,) * len(cols))}
    finally:
        conn.close()
