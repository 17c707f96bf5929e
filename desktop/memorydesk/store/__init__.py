"""The workspace database: product models, our tables, opening, integrity."""

from memorydesk.store.workspace import Workspace, open_workspace

__all__ = ["Workspace", "open_workspace"]
