"""What an import found and did: the ``--json`` document and the lines a person reads."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memorydesk.core.receipts import Receipt
from memorydesk.lineage.memoryos.anomalies import Anomaly
from memorydesk.lineage.memoryos.fill import StmFill, stm_fill
from memorydesk.lineage.memoryos.llm import is_llm_error
from memorydesk.lineage.memoryos.records import Directory


@dataclass(frozen=True)
class UserCounts:
    """What one user's files hold (``to_json``: the counts ``--json`` reports)."""

    stm: int
    stm_fill: StmFill
    mtm_sessions: int
    mtm_pages: int  # distinct page ids
    lpm_knowledge: int
    profile: str  # absent | error_text | present
    mtm_page_rows: int = 0  # page rows in mid_term.json (MemoryOS may store one page more than once)
    mtm_pages_repeated: int = 0  # page ids stored more than once

    def pages_text(self) -> str:
        """``18 pages``, and where MemoryOS stored pages more than once, how many rows that made."""
        text = counted(self.mtm_pages, "page")
        if self.mtm_page_rows > self.mtm_pages:
            text += (f" in {self.mtm_page_rows:,} page rows ({counted(self.mtm_pages_repeated, 'page')} stored more "
                     "than once: duplicate_page_id)")
        return text

    def to_json(self) -> dict[str, Any]:
        return {"stm": self.stm, "stm_fill": self.stm_fill.to_json(), "mtm_sessions": self.mtm_sessions,
                "mtm_pages": self.mtm_pages, "lpm_knowledge": self.lpm_knowledge, "profile": self.profile}


@dataclass(frozen=True)
class AssistantCounts:
    """What one assistant's files hold."""

    lpm_knowledge: int

    def to_json(self) -> dict[str, Any]:
        return {"lpm_knowledge": self.lpm_knowledge}


def summarize(directory: Directory, stm_capacity: int | None = None
              ) -> tuple[dict[str, UserCounts], dict[str, AssistantCounts]]:
    """Per user and per assistant, what the files hold."""
    users = {}
    for name, files in sorted(directory.users.items()):
        profile = "absent" if files.profile is None else "error_text" if is_llm_error(files.profile.text) else "present"
        ids = Counter(page.page_id for session in files.sessions for page in session.pages)
        users[name] = UserCounts(len(files.stm), stm_fill(files, stm_capacity), len(files.sessions), len(ids),
                                 len(files.knowledge), profile, sum(ids.values()),
                                 sum(1 for n in ids.values() if n > 1))
    assistants = {name: AssistantCounts(len(files.knowledge)) for name, files in sorted(directory.assistants.items())}
    return users, assistants


def counted(n: int, word: str, many: str | None = None) -> str:
    """``1 page``, ``2 pages`` (``many`` where the plural is not the word and an s)."""
    return f"{n:,} {word if n == 1 else many or word + 's'}"


def fill_line(fill: StmFill, pages: int) -> str:
    """How full short-term memory is, in words (and whether that can be judged)."""
    entries, capacity = fill.entries, fill.capacity
    if capacity is None:
        return (f"short-term memory holds {counted(entries, 'entry', 'entries')}; whether a migration was "
                "interrupted, and when each QA moved, needs MemoryOS's short_term_capacity: give --stm-capacity N "
                "(without it, moves are dated by upper bounds)")
    state = ("full" if entries == capacity else "over its capacity (not a loss)" if entries > capacity
             else "not full, with mid-term pages: a migration did not finish" if pages else "filling")
    return f"short-term memory holds {entries} of {capacity}: {state}"


#: How the outcome names what it wrote, where the count's own name would mislead: MemoryOS may
#: store one page more than once, and each stored copy is a row of its own
WRITTEN = {"mtm_pages": "mtm page rows", "mtm_pages_updated": "mtm page rows updated",
           "mtm_pages_removed": "mtm page rows removed"}

#: What a one-shot import cannot see (said by every report), and where to see it.
CANNOT_SEE = ("What an import of the files cannot see: a QA that left no trace in any file — one dropped when "
              "MemoryOS was reopened with a smaller short-term capacity, a mid-term session evicted as soon as it "
              "was written, a knowledge line lost when two MemoryOS processes wrote the shared assistant file (the "
              "last writer wins). The receipts adapter (memorydesk.lineage.adapters.memoryos.with_receipts) writes "
              "a receipt at each move as it happens and sees these.")


@dataclass
class ImportResult:
    data_dir: Path
    workspace: Path
    timezone: str
    dry_run: bool
    users: dict[str, UserCounts]
    assistants: dict[str, AssistantCounts]
    lanes: dict[str, str]  # user scope -> assistant scope
    anomalies: list[Anomaly]
    receipts: list[Receipt]  # every receipt the files prove
    imported: dict[str, int]  # what was (or, with dry_run, would be) written
    created: bool = False  # the workspace did not exist and was created
    runs: list[str] = field(default_factory=list)
    at_risk_runs: dict[str, str] = field(default_factory=dict)  # user -> its interrupted migration's run

    @property
    def exit_code(self) -> int:
        return 1 if self.anomalies else 0

    @property
    def nothing_new(self) -> bool:
        return not any(self.imported.values())

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "users": {name: c.to_json() for name, c in self.users.items()},
            "assistants": {name: c.to_json() for name, c in self.assistants.items()},
            "anomalies": [a.to_json() for a in self.anomalies],
            "receipts": len(self.receipts),
            "imported": self.imported,
        }
        if self.dry_run:
            out["dry_run"] = True
        return out

    def lines(self, blind_spots: bool = True) -> list[str]:
        """The report a person reads; ``blind_spots``: with what an import cannot see (before the
        outcome, which is always the last line)."""
        lines = []
        for name, c in self.users.items():
            lines.append(f"user {name} (lane {name} × {self.lanes.get(name, '?')}): {c.stm} STM, "
                         f"{counted(c.mtm_sessions, 'MTM session')}, {c.pages_text()}, "
                         f"{c.lpm_knowledge} knowledge, profile {c.profile}")
            lines.append("  " + fill_line(c.stm_fill, c.mtm_pages))
        for name, a in self.assistants.items():
            lines.append(f"assistant {name}: {a.lpm_knowledge} knowledge")
        lines.append(f"{counted(len(self.receipts), 'receipt')} derived ({counted(len(self.runs), 'run')})")
        if self.anomalies:
            lines.append(f"{counted(len(self.anomalies), 'anomaly', 'anomalies')}:")
            lines += [f"  {a.kind}  {a.user or '-'}  {a.file}  {a.path}  {a.detail}" for a in self.anomalies]
        else:
            lines.append("no anomalies")
        for user, run in self.at_risk_runs.items():
            lines.append(f"at-risk run of {user}'s interrupted migration: {run} "
                         f"(memory-desk lineage classify {self.workspace})")
        if blind_spots:
            lines.append(CANNOT_SEE)
        lines.append(self.outcome())
        return lines

    def outcome(self) -> str:
        verb = "would write" if self.dry_run else "wrote"
        if self.nothing_new:
            return (f"nothing new: {self.workspace} already holds everything in {self.data_dir}"
                    + (" (dry run)" if self.dry_run else ""))
        written = ", ".join(f"{WRITTEN.get(name, name.replace('_', ' '))} {n}"
                            for name, n in self.imported.items() if n)
        created = " (new workspace)" if self.created else ""
        return f"{verb} into {self.workspace}{created}: {written}"
