"""A MemoryOS data directory read into records, every time converted to UTC.

Reading is strict about what the import needs (ids, texts, times) and lenient about
what MemoryOS may leave out (heat terms, keywords, flags get MemoryOS's own
defaults). A shape it cannot use is :class:`~memorydesk.core.errors.BadInput` naming
the file and the JSON path. Two things are not refused but reported while reading:
a wall-clock time the zone skips or repeats (``ambiguous_local_time``) and an
embedding that is not 384 finite floats of unit length (``embedding_invalid``; such
an embedding is left out, never recomputed).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

from memorydesk.core.errors import BadInput
from memorydesk.lineage.memoryos.anomalies import Anomaly
from memorydesk.lineage.memoryos.files import (
    LONG_TERM_USER,
    MID_TERM,
    SHORT_TERM,
    Layout,
    find_layout,
    read_json,
)
from memorydesk.lineage.memoryos.localtime import Reading, read_local

EMBEDDING_DIM = 384
UNIT_TOLERANCE = 1e-3


@dataclass(frozen=True)
class QA:
    """One question/answer pair as MemoryOS stores it (an STM entry, or the QA of a page)."""

    user_input: str
    agent_response: str
    at: Reading
    path: str

    @property
    def identity(self) -> str:
        """What makes a QA the same one in STM and, later, as a page (its text and its time)."""
        return f"{self.at.local}\x1f{self.user_input}\x1f{self.agent_response}"


@dataclass(frozen=True)
class Page:
    qa: QA
    page_id: str
    session_id: str
    preloaded: bool
    analyzed: bool
    pre_page: str | None
    next_page: str | None
    meta_info: str | None
    keywords: tuple[str, ...]
    embedding: bytes | None
    path: str


@dataclass(frozen=True)
class Session:
    session_id: str
    summary: str
    keywords: tuple[str, ...]
    embedding: bytes | None
    pages: tuple[Page, ...]
    l_interaction: int
    r_recency: float | None
    n_visit: int
    h_segment: float | None
    created: Reading
    last_visit: Reading
    access_count_lfu: int
    path: str


@dataclass(frozen=True)
class Knowledge:
    text: str
    at: Reading
    embedding: bytes | None
    path: str


@dataclass(frozen=True)
class Profile:
    text: str
    updated: Reading | None
    path: str


@dataclass
class UserFiles:
    user: str
    stm: list[QA] = field(default_factory=list)
    stm_written_at: datetime | None = None  # short_term.json's modification time (UTC), when it exists
    sessions: list[Session] = field(default_factory=list)
    access_frequency: dict[str, int] | None = None  # None: mid_term.json has none (or does not exist)
    has_mid_term: bool = False
    profile: Profile | None = None
    knowledge: list[Knowledge] = field(default_factory=list)
    assistant_knowledge: list[Knowledge] = field(default_factory=list)  # MemoryOS leaves this list empty

    def file(self, name: str) -> str:
        return f"users/{self.user}/{name}"


@dataclass
class AssistantFiles:
    assistant: str
    knowledge: list[Knowledge] = field(default_factory=list)
    present: bool = False

    @property
    def file(self) -> str:
        return f"assistants/{self.assistant}/long_term_assistant.json"


@dataclass
class Directory:
    layout: Layout
    zone: ZoneInfo
    users: dict[str, UserFiles]
    assistants: dict[str, AssistantFiles]
    anomalies: list[Anomaly]  # found while reading: ambiguous times, invalid embeddings


class _Reader:
    """Reads one file's JSON into records, collecting the anomalies reading finds."""

    def __init__(self, zone: ZoneInfo, user: str | None, file: str, anomalies: list[Anomaly]) -> None:
        self.zone, self.user, self.file, self.anomalies = zone, user, file, anomalies

    def where(self, path: str) -> str:
        return f"{self.file} {path}" if path else self.file

    def fail(self, path: str, what: str) -> BadInput:
        return BadInput(f"{self.where(path)}: {what}")

    def obj(self, value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected a JSON object, got {_kind(value)}")
        return value

    def array(self, value: Any, path: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(path, f"expected a JSON list, got {_kind(value)}")
        return value

    def text(self, obj: dict[str, Any], key: str, path: str, *, default: str | None = None) -> str:
        value = obj.get(key, default)
        if not isinstance(value, str):
            missing = key not in obj
            raise self.fail(_join(path, key), "missing" if missing else f"expected a string, got {_kind(value)}")
        return value

    def optional_text(self, obj: dict[str, Any], key: str, path: str) -> str | None:
        value = obj.get(key)
        if value is not None and not isinstance(value, str):
            raise self.fail(_join(path, key), f"expected a string or null, got {_kind(value)}")
        return value

    def integer(self, obj: dict[str, Any], key: str, path: str, default: int = 0) -> int:
        value = obj.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise self.fail(_join(path, key), f"expected a number, got {_kind(value)}")
        if not -(2**63) <= value < 2**63:  # what SQLite stores as an integer
            raise self.fail(_join(path, key), f"the number {value:g} is out of range (at most 2^63 - 1)")
        return int(value)

    def real(self, obj: dict[str, Any], key: str, path: str, default: float | None) -> float | None:
        value = obj.get(key, default)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(_join(path, key), f"expected a number, got {_kind(value)}")
        return float(value) if math.isfinite(value) else None

    def flag(self, obj: dict[str, Any], key: str, path: str) -> bool:
        value = obj.get(key, False)
        if not isinstance(value, bool) and value is not None:
            raise self.fail(_join(path, key), f"expected true or false, got {_kind(value)}")
        return bool(value)

    def words(self, obj: dict[str, Any], key: str, path: str) -> tuple[str, ...]:
        value = obj.get(key) or []
        if not isinstance(value, list) or not all(isinstance(w, str) for w in value):
            raise self.fail(_join(path, key), "expected a list of strings")
        return tuple(value)

    def time(self, obj: dict[str, Any], key: str, path: str) -> Reading:
        where = _join(path, key)
        value = obj.get(key)
        if value is None:
            raise self.fail(where, "missing")
        reading = read_local(value, self.zone, self.where(where))
        if reading.choice:
            self.anomalies.append(Anomaly("ambiguous_local_time", self.user, self.file, where, reading.choice))
        return reading

    def embedding(self, obj: dict[str, Any], key: str, path: str) -> bytes | None:
        """MemoryOS's vector as float32 bytes, checked; ``None`` (and an anomaly) when unusable."""
        value = obj.get(key)
        problem = _embedding_problem(value)
        if problem is None:
            return np.asarray(value, dtype="<f4").tobytes()
        self.anomalies.append(Anomaly("embedding_invalid", self.user, self.file, _join(path, key),
                                      f"{problem}; stored without an embedding (not recomputed)"))
        return None

    def qa(self, obj: dict[str, Any], path: str) -> QA:
        return QA(self.text(obj, "user_input", path), self.text(obj, "agent_response", path),
                  self.time(obj, "timestamp", path), path)

    def knowledge(self, raw: Any, path: str) -> Knowledge:
        entry = self.obj(raw, path)
        return Knowledge(self.text(entry, "knowledge", path), self.time(entry, "timestamp", path),
                         self.embedding(entry, "knowledge_embedding", path), path)

    def knowledge_list(self, doc: dict[str, Any], key: str) -> list[Knowledge]:
        return [self.knowledge(raw, f"{key}[{i}]") for i, raw in enumerate(self.array(doc.get(key) or [], key))]


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list",
            dict: "an object"}.get(type(value), type(value).__name__)


def _embedding_problem(value: Any) -> str | None:
    if value is None or value == []:
        return "no embedding"
    if not isinstance(value, list) or len(value) != EMBEDDING_DIM:
        size = len(value) if isinstance(value, list) else _kind(value)
        return f"expected {EMBEDDING_DIM} numbers, got {size}"
    try:
        vector = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        return "not all numbers"
    if vector.shape != (EMBEDDING_DIM,):
        return "not a flat list of numbers"
    if not np.isfinite(vector).all():
        return "not all finite"
    norm = float(np.linalg.norm(vector))
    if abs(norm - 1.0) > UNIT_TOLERANCE:
        return f"length {norm:.4f}, not 1 (within {UNIT_TOLERANCE})"
    return None


def _short_term(reader: _Reader, doc: Any, user: UserFiles) -> None:
    user.stm = [reader.qa(reader.obj(raw, f"[{i}]"), f"[{i}]") for i, raw in enumerate(reader.array(doc, ""))]


def _page_ids(reader: _Reader, details: list[Any], session_path: str) -> list[str]:
    ids = []
    for index, raw in enumerate(details):
        page_id = reader.obj(raw, f"{session_path}.details[{index}]").get("page_id")
        if not isinstance(page_id, str) or not page_id:
            raise reader.fail(f"{session_path}.details[{index}].page_id", "missing")
        ids.append(page_id)
    return ids


def _page(reader: _Reader, loose: dict[str, Any], session_id: str, page_id: str, path: str) -> Page:
    return Page(reader.qa(loose, path), page_id, session_id, reader.flag(loose, "preloaded", path),
                reader.flag(loose, "analyzed", path), reader.optional_text(loose, "pre_page", path),
                reader.optional_text(loose, "next_page", path), reader.optional_text(loose, "meta_info", path),
                reader.words(loose, "page_keywords", path), reader.embedding(loose, "page_embedding", path), path)


def _session(reader: _Reader, session_id: str, raw: Any) -> Session:
    path = f"sessions.{session_id}"
    doc = reader.obj(raw, path)
    details = reader.array(doc.get("details") or [], f"{path}.details")
    ids = _page_ids(reader, details, path)
    # a page is named by its id, or by its position where its id repeats within the session
    paths = [f"{path}.details[page_id={p}]" if ids.count(p) == 1 else f"{path}.details[{i}]" for i, p in enumerate(ids)]
    created = reader.time(doc, "timestamp", path)
    return Session(
        session_id=session_id, summary=reader.text(doc, "summary", path, default=""),
        keywords=reader.words(doc, "summary_keywords", path),
        embedding=reader.embedding(doc, "summary_embedding", path),
        pages=tuple(_page(reader, raw, session_id, page_id, where)
                    for raw, page_id, where in zip(details, ids, paths, strict=True)),
        l_interaction=reader.integer(doc, "L_interaction", path), r_recency=reader.real(doc, "R_recency", path, 1.0),
        n_visit=reader.integer(doc, "N_visit", path), h_segment=reader.real(doc, "H_segment", path, None),
        created=created,
        last_visit=reader.time(doc, "last_visit_time", path) if doc.get("last_visit_time") is not None else created,
        access_count_lfu=reader.integer(doc, "access_count_lfu", path), path=path)


def _mid_term(reader: _Reader, doc: Any, user: UserFiles) -> None:
    doc = reader.obj(doc, "")
    sessions = reader.obj(doc.get("sessions") or {}, "sessions")
    user.sessions = [_session(reader, sid, raw) for sid, raw in sessions.items()]
    frequency = doc.get("access_frequency")
    if frequency is not None:
        frequency = reader.obj(frequency, "access_frequency")
        user.access_frequency = {k: reader.integer(frequency, k, "access_frequency") for k in frequency}
    user.has_mid_term = True


def _long_term_user(reader: _Reader, doc: Any, user: UserFiles) -> None:
    doc = reader.obj(doc, "")
    profiles = reader.obj(doc.get("user_profiles") or {}, "user_profiles")
    entry = profiles.get(user.user)
    path = f"user_profiles.{user.user}"
    if isinstance(entry, str):
        entry = {"data": entry}
    if entry is not None:
        entry = reader.obj(entry, path)
        text = reader.text(entry, "data", path, default="")
        updated = reader.time(entry, "last_updated", path) if entry.get("last_updated") is not None else None
        if text.strip() and text.strip().lower() != "none":
            user.profile = Profile(text, updated, f"{path}.data")
    user.knowledge = reader.knowledge_list(doc, "knowledge_base")
    user.assistant_knowledge = reader.knowledge_list(doc, "assistant_knowledge")


def _written_at(path) -> datetime | None:
    """When the file was last written, to the next whole second (a time the write happened by)."""
    try:
        return datetime.fromtimestamp(math.ceil(path.stat().st_mtime), UTC)
    except OSError:
        return None


def read_directory(data_dir, zone: ZoneInfo, *, attempts: int = 3, pause: float = 0.1,
                   on_file: Callable[[str], None] | None = None) -> Directory:
    """Read every MemoryOS file under ``data_dir``; :class:`BadInput` if any is unusable.

    ``on_file(relative_path)`` is told before each file is read (progress; it may raise to stop).
    """
    layout = find_layout(data_dir)
    tell = on_file or (lambda _relative: None)
    anomalies: list[Anomaly] = []
    users: dict[str, UserFiles] = {}
    readers = ((SHORT_TERM, _short_term), (MID_TERM, _mid_term), (LONG_TERM_USER, _long_term_user))
    for name in layout.users:
        user = UserFiles(name)
        for file_name, parse in readers:
            path = layout.user_file(name, file_name)
            if path.is_file():
                tell(user.file(file_name))
            doc = read_json(path, user.file(file_name), attempts=attempts, pause=pause)
            if doc is None:
                continue
            parse(_Reader(zone, name, user.file(file_name), anomalies), doc, user)
            if file_name == SHORT_TERM:
                user.stm_written_at = _written_at(path)
        users[name] = user
    assistants: dict[str, AssistantFiles] = {}
    for name in layout.assistants:
        files = AssistantFiles(name)
        if layout.assistant_file(name).is_file():
            tell(files.file)
        doc = read_json(layout.assistant_file(name), files.file, attempts=attempts, pause=pause)
        if doc is not None:
            reader = _Reader(zone, None, files.file, anomalies)
            doc = reader.obj(doc, "")
            files.knowledge = reader.knowledge_list(doc, "assistant_knowledge") + reader.knowledge_list(
                doc, "knowledge_base")
            files.present = True
        assistants[name] = files
    return Directory(layout, zone, users, assistants, anomalies)
