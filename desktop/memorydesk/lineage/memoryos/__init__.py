"""Importing MemoryOS data directories (STM → MTM → LPM) into a workspace's tiers,
with content-free receipts derived from what the files prove and a report of the
anomalies they show. ``service.import_directory`` is the entry point; ``watch`` keeps
importing while MemoryOS rewrites its files.
"""

from memorydesk.lineage.memoryos.anomalies import KINDS, Anomaly
from memorydesk.lineage.memoryos.localtime import load_zone, zone_names
from memorydesk.lineage.memoryos.report import ImportResult
from memorydesk.lineage.memoryos.service import import_directory

__all__ = ["KINDS", "Anomaly", "ImportResult", "import_directory", "load_zone", "zone_names"]
