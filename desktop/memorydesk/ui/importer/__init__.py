"""File ▸ Import MemoryOS Directory…: the dialog and its anomaly table."""

from memorydesk.ui.importer.dialog import ImportDialog

__all__ = ["ImportDialog"]
