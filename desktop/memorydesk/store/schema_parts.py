"""What a workspace file lacks of the schema the desk reads: tables and columns, named.

A file whose full-text table was dropped, or whose memory tables lost columns, cannot be
searched or listed: ``open_workspace`` refuses it in one sentence that names what is
missing (``check`` opens it anyway and reports ``schema_incomplete``; ``salvage`` reads
whatever columns are there).
"""

from __future__ import annotations

from dataclasses import fields

from sqlalchemy import Connection

from memorydesk.store.layout import Layout

ROLES = tuple(f.name for f in fields(Layout) if f.name != "kind")


def missing_parts(conn: Connection, layout: Layout, names: set[str]) -> list[str]:
    """``table X`` / ``column T.C`` for every part the desk reads that the file does not have.

    Memory tables the file does not have at all are left to the readers (older product
    files lack some); the fact table's full-text index and the columns of every memory
    table the file has are required."""
    missing = [] if layout.fts in names else [f"table {layout.fts} (the full-text index)"]
    for role in ROLES:
        table = getattr(layout, role)
        if table.name not in names:
            continue
        have = {row[1] for row in conn.exec_driver_sql(f'PRAGMA table_info("{table.name}")')}
        missing += [f"column {table.name}.{c.name}" for c in table.columns if c.name not in have]
    return missing


def sentence(path: object, missing: list[str]) -> str:
    more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
    return (f"{path}: the file lacks parts of the workspace schema Memory Desk reads ({', '.join(missing[:3])}{more}); "
            f"`memory-desk check {path}` lists them and `memory-desk salvage {path} OUT.db` copies its rows into a "
            "complete workspace")
