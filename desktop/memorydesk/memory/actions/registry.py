"""Every reviewer action, in one explicit list, and how a history row is read back into one.

An action is a typed value (``memory.actions.base.ReviewerAction``): adding one is writing its
class beside the others of its entity and naming it here — nothing registers itself when
a module is imported. The history row's ``entity`` and ``action`` columns name the class,
its ``detail`` holds the fields (docs/architecture.md, "The undo model").
"""

from __future__ import annotations

import json
from typing import Any

from memorydesk.core.errors import MemoryDeskError
from memorydesk.memory.actions.base import ReviewerAction
from memorydesk.memory.actions.conflicts import ConfirmResolution, KeepBoth, KeepFact, RestoreLoser, ReviewBurst
from memorydesk.memory.actions.edges import DeleteEdges
from memorydesk.memory.actions.embeddings import FillEmbeddings
from memorydesk.memory.actions.facts import DeleteFact, DeletePolicy, EditFact, EditPolicy, RestoreFact, SetPolicyActive
from memorydesk.memory.actions.forget import KeepForgetReceipt
from memorydesk.memory.actions.grants import FixGrantRow, RemoveGrants, SetGrants
from memorydesk.memory.actions.items import ITEM_ACTIONS
from memorydesk.memory.actions.purge import PurgeFacts
from memorydesk.memory.actions.purge_items import PURGE_ACTIONS
from memorydesk.memory.actions.redact import REDACT_ACTIONS
from memorydesk.memory.actions.restore_backup import RestoreFactBackup, RestorePolicyBackup
from memorydesk.memory.actions.review import (
    DismissFinding,
    MergeFacts,
    QuarantineFact,
    QuarantinePolicy,
    ReleaseFact,
    ReleasePolicy,
)

ACTIONS: tuple[type[ReviewerAction], ...] = (
    EditFact, DeleteFact, RestoreFact, PurgeFacts, FillEmbeddings,
    EditPolicy, DeletePolicy, SetPolicyActive,
    DeleteEdges,
    SetGrants, RemoveGrants, FixGrantRow,
    RestoreLoser, ConfirmResolution, KeepFact, KeepBoth, ReviewBurst,
    RestoreFactBackup, RestorePolicyBackup,
    QuarantineFact, ReleaseFact, QuarantinePolicy, ReleasePolicy, MergeFacts, DismissFinding,
    *ITEM_ACTIONS, *PURGE_ACTIONS, *REDACT_ACTIONS,
    KeepForgetReceipt,
)

BY_KEY: dict[str, type[ReviewerAction]] = {a.key(): a for a in ACTIONS}
assert len(BY_KEY) == len(ACTIONS), "two actions share an entity and a name"


def action_type(entity: str, name: str) -> type[ReviewerAction]:
    """The class a history row's ``entity`` and ``action`` name."""
    found = BY_KEY.get(f"{entity}.{name}")
    if found is None:
        raise MemoryDeskError(f"a {name} of a {entity} is not an action this build knows, so it cannot be undone")
    return found


def decode(entity: str, name: str, detail: str | dict[str, Any] | None) -> ReviewerAction:
    """A history row's detail (JSON text or already read) as its typed action."""
    if isinstance(detail, str) or detail is None:
        try:
            detail = json.loads(detail or "{}")
        except ValueError as exc:
            raise MemoryDeskError(f"the history row of this {name} of a {entity} is not readable JSON") from exc
    if not isinstance(detail, dict):
        raise MemoryDeskError(f"the history row of this {name} of a {entity} holds no detail")
    return action_type(entity, name).from_detail(detail)
