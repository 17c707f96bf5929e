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

from memorydesk import testpoints
from memorydesk.core.errors import BadInput
from memorydesk.lineage.memoryos.anomalies import ordered
from memorydesk.lineage.memoryos.checks import find_anomalies
from memorydesk.lineage.memoryos.files import find_layout
from memorydesk.lineage.memoryos.localtime import load_zone
from memorydesk.lineage.memoryos.plan import Plan, build_plan
from memorydesk.lineage.memoryos.records import Directory, read_directory
from memorydesk.lineage.memoryos.report import ImportResult, summarize
from memorydesk.lineage.memoryos.state import State, load_state
from memorydesk.lineage.memoryos.write import apply
from memorydesk.store import Workspace, files, open_workspace
from memorydesk.store.retry import with_retry

#: ``progress(done, total, what)``: told at each file read and each stage; it may raise to
#: stop the import, which it can until the writing starts.
Progress = Callable[[int, int, str], None]


def _needed(layout) -> int:
    """Room an import needs: its data twice over (the rows and the write-ahead log), generously."""
    return 3 * sum(p.stat().st_size for p in layout.files() if p.is_file())


def _plan_in(ws: Workspace, conn, directory: Directory, now: datetime, capacity: int | None) -> Plan:
    state = load_state(conn, ws.layout, sorted(directory.users), sorted(directory.assistants))
    return build_plan(directory, state, ws.workspace_id, now, capacity)


def _write_into(ws: Workspace, directory: Directory, now: datetime, capacity: int | None) -> Plan:
    def work(conn) -> Plan:
        plan = _plan_in(ws, conn, directory, now, capacity)
        testpoints.reached("import.planned")
        apply(ws, conn, plan)
        testpoints.reached("import.applied")  # before the commit
        return plan

    return with_retry(ws, work)


def _dry_run(target: Path | Workspace, directory: Directory, now: datetime, capacity: int | None) -> Plan:
    if isinstance(target, Workspace):
        with target.read() as conn:
            return _plan_in(target, conn, directory, now, capacity)
    if not target.exists():
        return build_plan(directory, State(), "", now, capacity)
    with open_workspace(target, read_only=True) as ws, ws.read() as conn:
        return _plan_in(ws, conn, directory, now, capacity)


def _write(path: Path, directory: Directory, now: datetime, needed: int,
           capacity: int | None) -> tuple[Plan, bool]:
    """Import into the workspace at ``path``; a new one is built beside it and moved into place
    when complete (a kill leaves only a hidden file, removed by the next import there)."""
    if path.is_dir():
        raise BadInput(f"{path}: is a folder; give the path of a workspace file")
    created = not path.exists()
    if created and not path.parent.is_dir():
        raise BadInput(f"{path}: the folder {path.parent} does not exist")
    files.require_free(path.parent, needed, f"importing {directory.layout.root.name}")
    if not created:
        with open_workspace(path) as ws:
            return _write_into(ws, directory, now, capacity), False
    files.remove_dead_builds(path, "importing")
    building = files.building_path(path, "importing")
    try:
        with open_workspace(building, create=True, name=path.stem) as ws:
            plan = _write_into(ws, directory, now, capacity)
        testpoints.reached("import.built")
        files.fold_log(building)
        os.replace(building, path)
    except BaseException:
        files.remove_database(building)
        raise
    return plan, True


def import_directory(data_dir: str | os.PathLike[str], workspace: str | os.PathLike[str] | Workspace,
                     timezone: str | None, *, dry_run: bool = False, now: datetime | None = None,
                     attempts: int = 3, progress: Progress | None = None,
                     stm_capacity: int | None = None) -> ImportResult:
    """Import (or with ``dry_run`` only plan) one MemoryOS directory; see the module docstring.

    ``stm_capacity``: MemoryOS's ``short_term_capacity`` for the run that wrote the files
    (not in the files); given it, short-term memory holding fewer entries than that while
    mid-term memory holds pages is reported as an ``interrupted_migration``.

    ``workspace`` is a path (opened, or created when it does not exist, and closed again)
    or an open :class:`Workspace` (the desk's), which is used and left open.
    """
    report = progress or (lambda _done, _total, _what: None)
    zone = load_zone(timezone)
    layout = find_layout(data_dir)
    total = sum(1 for path in layout.files() if path.is_file()) + 2
    done = 0

    def reading(relative: str) -> None:
        nonlocal done
        report(done, total, f"reading {relative}")
        done += 1

    directory = read_directory(layout.root, zone, attempts=attempts, on_file=reading)
    report(done, total, "checking")
    if stm_capacity is not None and stm_capacity < 1:
        raise BadInput(f"the short-term capacity must be a whole number of at least 1, not {stm_capacity}")
    anomalies = find_anomalies(directory, stm_capacity)
    moment = now or datetime.now(UTC)
    report(done + 1, total, "planning" if dry_run else "writing")
    created = False
    if dry_run:
        plan = _dry_run(workspace if isinstance(workspace, Workspace) else Path(workspace).expanduser(),
                        directory, moment, stm_capacity)
    elif isinstance(workspace, Workspace):
        files.require_free(workspace.path.parent, _needed(layout), f"importing {layout.root.name}")
        plan = _write_into(workspace, directory, moment, stm_capacity)
    else:
        plan, created = _write(Path(workspace).expanduser(), directory, moment, _needed(layout), stm_capacity)
    path = workspace.path if isinstance(workspace, Workspace) else Path(workspace).expanduser()
    users, assistants = summarize(directory, stm_capacity)
    return ImportResult(
        data_dir=directory.layout.root, workspace=path, timezone=zone.key, dry_run=dry_run, users=users,
        assistants=assistants, lanes=plan.lanes_by_user, anomalies=ordered(anomalies + plan.anomalies),
        receipts=plan.derived, imported=plan.counts(), created=created,
        runs=sorted({r.run_id for r in plan.derived}), at_risk_runs=dict(plan.at_risk_runs))
