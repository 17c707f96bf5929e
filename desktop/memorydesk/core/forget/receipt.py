"""A forget receipt: what each way back to a fact (or a typed text) answered, content-free.

Each *path* an agent could still get something back through (a search, the dispatch
preamble, the graph voice, a table, a file beside the workspace) answers one of three
verdicts: ``gone``, ``still`` (with what: ids, table and file names, never the text) or
``cannot_tell`` (with why). The receipt gathers them with the ids that were checked, when,
on which file (its name and the workspace's data stamp), and nothing of the text itself: a
typed text is named by its length only. It is what the check returns, what the command
prints (``--json``, ``--markdown``), what the window shows and exports, and what is kept in
the history (``memory.actions.forget``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

GONE, STILL, CANNOT_TELL = "gone", "still", "cannot_tell"
VERDICTS = (GONE, STILL, CANNOT_TELL)
WORDS = {GONE: "gone", STILL: "still returns it", CANNOT_TELL: "cannot tell"}
FORMAT = 1  # the receipt's JSON format


@dataclass(frozen=True)
class Found:
    """What a path still holds: ``kind`` (fact, policy, note, working_item, conflict, agent,
    history, table, file, rowid, …) and the ids (or names) of that kind."""

    kind: str
    ids: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "ids": list(self.ids)}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Found:
        return cls(str(d["kind"]), tuple(str(i) for i in d.get("ids", ())))

    def words(self, most: int = 6) -> str:
        shown = ", ".join(self.ids[:most]) + (f" and {len(self.ids) - most} more" if len(self.ids) > most else "")
        return f"{self.kind} {shown}" if len(self.ids) == 1 else f"{len(self.ids)} {self.kind}s: {shown}"


@dataclass(frozen=True)
class Answer:
    """One path's verdict. ``key`` is stable (``search.hybrid.topic``, ``wal``); ``label`` says
    it for a person; ``why`` is a content-free sentence; ``ms`` how long asking it took."""

    key: str
    label: str
    group: str  # "agent" (what an agent is handed) or "file" (what the file and its neighbours keep)
    verdict: str
    found: tuple[Found, ...] = ()
    why: str = ""
    ms: float = 0.0

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"not a verdict: {self.verdict!r}")

    def to_json(self) -> dict[str, Any]:
        return {"path": self.key, "label": self.label, "group": self.group, "verdict": self.verdict,
                "found": [f.to_json() for f in self.found], "why": self.why, "ms": round(self.ms, 1)}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Answer:
        return cls(str(d["path"]), str(d.get("label", d["path"])), str(d.get("group", "file")), str(d["verdict"]),
                   tuple(Found.from_json(f) for f in d.get("found", ())), str(d.get("why", "")),
                   float(d.get("ms", 0.0)))

    def ids_of(self, kind: str) -> set[str]:
        return {i for f in self.found if f.kind == kind for i in f.ids}


@dataclass(frozen=True)
class Receipt:
    """The whole check. ``subject`` is ``{"fact_ids": [...]}`` or ``{"text_chars": N}``."""

    receipt_id: str
    at: float  # unix seconds
    workspace_id: str
    file: str  # the workspace file's name
    data_stamp: str
    subject: dict[str, Any]
    answers: tuple[Answer, ...]
    versions: tuple[str, ...] = ()  # every version of the facts that was looked for
    neighbours: tuple[str, ...] = ()  # the facts they were linked to (the graph voice's start next time)
    notes: tuple[str, ...] = ()  # content-free sentences (a soft delete, a text that could not be found)
    elapsed_ms: float = 0.0
    desk_version: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    # -- the verdict ----------------------------------------------------------------------------------
    @property
    def still(self) -> list[Answer]:
        return [a for a in self.answers if a.verdict == STILL]

    @property
    def unknown(self) -> list[Answer]:
        return [a for a in self.answers if a.verdict == CANNOT_TELL]

    @property
    def gone_everywhere(self) -> bool:
        """Every path answered gone (a path that could not tell is not gone)."""
        return all(a.verdict == GONE for a in self.answers)

    @property
    def verdict(self) -> str:
        return STILL if self.still else CANNOT_TELL if self.unknown else GONE

    def summary(self) -> str:
        """One line: gone from every path, or how many still return it and how many could not tell
        (the paths themselves are listed with their answers)."""
        what = _subject_words(self.subject)
        if self.gone_everywhere:
            return f"{what}: gone from all {len(self.answers)} paths"
        parts = []
        if self.still:
            parts.append(f"still returned by {len(self.still)} of {len(self.answers)} paths")
        if self.unknown:
            parts.append(f"{len(self.unknown)} path{'s' if len(self.unknown) != 1 else ''} could not tell")
        return f"{what}: " + "; ".join(parts)

    # -- as JSON and Markdown -------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "receipt_id": self.receipt_id, "at": self.at, "at_utc": utc(self.at),
                "workspace_id": self.workspace_id, "file": self.file, "data_stamp": self.data_stamp,
                "subject": dict(self.subject), "verdict": self.verdict,
                "gone_everywhere": self.gone_everywhere, "summary": self.summary(),
                "paths": [a.to_json() for a in self.answers], "versions": list(self.versions),
                "neighbours": list(self.neighbours), "notes": list(self.notes),
                "elapsed_ms": round(self.elapsed_ms, 1), "desk_version": self.desk_version, **self.extra}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Receipt:
        known = {"format", "receipt_id", "at", "at_utc", "workspace_id", "file", "data_stamp", "subject", "verdict",
                 "gone_everywhere", "summary", "paths", "versions", "neighbours", "notes", "elapsed_ms",
                 "desk_version"}
        return cls(str(d["receipt_id"]), float(d["at"]), str(d.get("workspace_id", "")), str(d.get("file", "")),
                   str(d.get("data_stamp", "")), dict(d.get("subject", {})),
                   tuple(Answer.from_json(a) for a in d.get("paths", ())), tuple(d.get("versions", ())),
                   tuple(d.get("neighbours", ())), tuple(d.get("notes", ())), float(d.get("elapsed_ms", 0.0)),
                   str(d.get("desk_version", "")), {k: v for k, v in d.items() if k not in known})

    def to_markdown(self) -> str:
        """For the ticket that asked for the deletion: the verdict, then a row per path."""
        lines = [f"# Forget check {self.receipt_id}", "",
                 f"- **Verdict:** {self.summary()}",
                 f"- **Checked:** {utc(self.at)} on `{self.file}` (workspace `{self.workspace_id}`, data stamp "
                 f"`{self.data_stamp}`) in {self.elapsed_ms / 1000:.2f} s",
                 f"- **Subject:** {_subject_words(self.subject)}"]
        if self.versions:
            lines.append(f"- **Versions looked for:** {', '.join(f'`{v}`' for v in self.versions)}")
        lines += [f"- {n}" for n in self.notes]
        lines += ["", "| path | verdict | what | why |", "|---|---|---|---|"]
        for a in self.answers:
            what = "; ".join(f.words() for f in a.found) or "—"
            lines.append(f"| {_cell(a.label)} | {WORDS[a.verdict]} | {_cell(what)} | {_cell(a.why) or '—'} |")
        lines += ["", "Content-free: ids, paths, verdicts and times only; no text of the memory is in this receipt."]
        return "\n".join(lines) + "\n"


def utc(at: float) -> str:
    return dt.datetime.fromtimestamp(at, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _subject_words(subject: dict[str, Any]) -> str:
    if "fact_ids" in subject:
        ids = subject["fact_ids"]
        return f"fact {ids[0]}" if len(ids) == 1 else f"{len(ids)} facts"
    if "item_ids" in subject:
        ids = subject["item_ids"]
        kind = str(subject.get("item_kind", "item")).replace("_", "-")
        return f"{kind} {ids[0]}" if len(ids) == 1 else f"{len(ids)} {kind}s"
    return f"the typed text ({subject.get('text_chars', 0)} characters)"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


__all__ = ["CANNOT_TELL", "GONE", "STILL", "VERDICTS", "WORDS", "Answer", "Found", "Receipt", "utc"]
