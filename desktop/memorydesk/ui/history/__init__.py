"""The History tab: every change the file can account for, newest first (``browse.history.entries``)."""

from memorydesk.ui.history.tab import HistoryTab

__all__ = ["HistoryTab"]
