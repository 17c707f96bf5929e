"""Helpers every test package can import: where things are, and file hashes."""

from __future__ import annotations

import hashlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
SAMPLE_DB = SHARED_DATA / "cc-workspace" / "workspace.db"


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


#: ``python -c DESK_UNTIL WAIT ARGS…`` runs ``memory-desk ARGS`` and, as soon as the desk logs its
#: first painted Facts rows (``WAIT`` = ``paint``) or the end of its warm-up (``warm``), prints that
#: log line and leaves at once (``ui.shell.startup``): what the launch test and benchmark time and inspect.
DESK_UNTIL = """
import logging, os, sys
WAIT = sys.argv.pop(1)
class Done(logging.Handler):
    def emit(self, record):
        text = record.getMessage()
        if text.startswith("first Facts rows painted") and WAIT == "paint" or text.startswith("warm-up done"):
            print(text, flush=True)
            if "-X" in sys.orig_argv and "importtime" in sys.orig_argv:
                print("MODULES " + " ".join(sorted(sys.modules)), flush=True)
            os._exit(0)
logging.getLogger("memorydesk.ui.shell.startup").addHandler(Done())
logging.getLogger("memorydesk.ui.shell.startup").setLevel(logging.INFO)
from memorydesk.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


def truth_versions(truth: dict) -> dict[str, str]:
    """A MemoryOS sample's ground truth (``SCENARIO.json``): page id → the version the receipts
    adapter gives its QA — the user, the QA's timestamp and its order among that user's QAs of
    that timestamp, in the order MemoryOS added them."""
    from memorydesk.lineage.adapters.memoryos import qa_version

    seen: dict[tuple[str, str], int] = {}
    versions = {}
    for qa in truth["qa_pairs"]:
        key = (qa["user_id"], qa["timestamp"])
        seen[key] = seen.get(key, 0) + 1
        version = qa_version(qa["user_id"], qa["timestamp"], seen[key])
        for place in qa["found_in"]:
            if place.startswith("mid_term:"):
                versions[place.split(":")[2]] = version
    return versions
