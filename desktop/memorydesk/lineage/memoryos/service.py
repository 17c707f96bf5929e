"""``import memoryos``: read a MemoryOS data directory into a workspace in one transaction.

The directory is read and checked completely before the workspace is touched, so
unusable input (a truncated file, an unknown zone, a folder that is not MemoryOS's)
writes nothing. Then the difference to what earlier imports left is computed and
written in one write transaction: a failure leaves the workspace as it was, and a
workspace file this import created is removed again.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from memorydesk.core.errors import BadInput
from memorydesk.lineage.memoryos.anomalies import ordered
from memorydesk.lineage.memoryos.checks import find_anomalies
from memorydesk.lineage.memoryos.localtime import load_zone
from memorydesk.lineage.memoryos.plan import Plan, build_plan
from memorydesk.lineage.memoryos.records import Directory, read_directory
from memorydesk.lineage.memoryos.report import ImportResult, summarize
from memorydesk.lineage.memoryos.state import State, load_state
from memorydesk.lineage.memoryos.write import apply
from memorydesk.store import Workspace, open_workspace
from memorydesk.store.retry import with_retry

Progress = Callable[[str], None]


def _plan_in(ws: Workspace, conn, directory: Directory, now: datetime) -> Plan:
    state = load_state(conn, ws.layout, sorted(directory.users), sorted(directory.assistants))
    return build_plan(directory, state, ws.workspace_id, now)


def _dry_run(path: Path, directory: Directory, now: datetime) -> Plan:
    if not path.exists():
        return build_plan(directory, State(), "", now)
    with open_workspace(path, read_only=True) as ws, ws.read() as conn:
        return _plan_in(ws, conn, directory, now)


def _remove_new_file(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def _write(path: Path, directory: Directory, now: datetime) -> tuple[Plan, bool]:
    if path.is_dir():
        raise BadInput(f"{path}: is a folder; give the path of a workspace file")
    created = not path.exists()
    if created and not path.parent.is_dir():
        raise BadInput(f"{path}: the folder {path.parent} does not exist")
    ws = open_workspace(path)
    try:
        def work(conn) -> Plan:
            plan = _plan_in(ws, conn, directory, now)
            apply(ws, conn, plan)
            return plan

        plan = with_retry(ws, work)
    except BaseException:
        ws.close()
        if created:
            _remove_new_file(path)
        raise
    ws.close()
    return plan, created


def import_directory(data_dir: str | os.PathLike[str], workspace: str | os.PathLike[str], timezone: str | None, *,
                     dry_run: bool = False, now: datetime | None = None, attempts: int = 3,
                     progress: Progress | None = None) -> ImportResult:
    """Import (or with ``dry_run`` only plan) one MemoryOS directory; see the module docstring.

    ``progress`` is told each stage; it may raise to cancel (before anything is written).
    """
    say = progress or (lambda _stage: None)
    zone = load_zone(timezone)
    say("reading")
    directory = read_directory(data_dir, zone, attempts=attempts)
    say("checking")
    anomalies = find_anomalies(directory)
    path = Path(workspace).expanduser()
    moment = now or datetime.now(UTC)
    say("writing" if not dry_run else "planning")
    if dry_run:
        plan, created = _dry_run(path, directory, moment), False
    else:
        plan, created = _write(path, directory, moment)
    users, assistants = summarize(directory)
    return ImportResult(
        data_dir=directory.layout.root, workspace=path, timezone=zone.key, dry_run=dry_run, users=users,
        assistants=assistants, lanes=plan.lanes_by_user, anomalies=ordered(anomalies + plan.anomalies),
        receipts=plan.derived, imported=plan.counts(), created=created,
        runs=sorted({r.run_id for r in plan.derived}))
