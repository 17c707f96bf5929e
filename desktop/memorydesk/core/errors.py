"""Errors that carry a message meant for a person.

Anything raised as a ``MemoryDeskError`` is the environment's or the input's fault
(a corrupt file, a newer schema, a bad receipt line) and is shown as one clear line;
anything else is our bug and keeps its traceback in the log.
"""


class MemoryDeskError(Exception):
    """A problem with the input or the environment, explained in ``str(self)``."""


class WorkspaceUnusable(MemoryDeskError):
    """The file cannot be opened as a workspace (not SQLite, truncated, locked, …)."""


class WorkspaceBusy(WorkspaceUnusable):
    """Another program held the write lock for longer than the busy timeout."""


class WorkspaceDamaged(WorkspaceUnusable):
    """SQLite reports the file corrupt; nothing is written into it (salvage or a backup recovers)."""


class DiskFull(MemoryDeskError):
    """Not enough free space for the operation; nothing was changed."""


class SchemaTooNew(WorkspaceUnusable):
    """The file was written by a newer Memory Desk."""


class ReadOnlyWorkspace(MemoryDeskError):
    """A write was attempted on a workspace opened read-only."""


class InsufficientMemoryPermission(MemoryDeskError):
    """The role lacks the ``write`` grant the operation needs."""


class StaleEdit(MemoryDeskError):
    """A reviewer's change targets a row that an agent changed in the meantime."""


class BadInput(MemoryDeskError):
    """Input the command cannot use (malformed receipts, bad arguments)."""
