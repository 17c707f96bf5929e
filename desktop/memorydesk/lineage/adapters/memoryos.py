"""Receipts written by MemoryOS itself, at the moment each tier boundary is crossed.

``with_receipts(memoryos, sink)`` wraps one ``memoryos.Memoryos`` object (BAI-LAB/MemoryOS,
``memoryos-pypi``) and returns it: the same object, whose own methods and those of its
memories now write a content-free receipt (docs/receipts.md) to ``sink`` after each
boundary. Nothing of MemoryOS's behaviour, arguments, results or files changes; only
instance attributes are set (no class or module of MemoryOS is patched). This module imports
nothing but the standard library and the desk's receipt contract — no Qt, SQLAlchemy, numpy
or embedding model — so a MemoryOS deployment can import it as it is.

One run per QA, the same one the desk's MemoryOS import gives it (:func:`qa_run`, used by
both): ``runId`` ``memoryos:<user>:<version>``, ``userScope`` the user id, ``assistantScope``
the assistant id. The version of a QA is ``qa-`` and 16 hex digits of a hash of what MemoryOS
assigns it — the user id, the QA's timestamp and, for QAs stored in the same second, their
order — never of its text. Page and session ids, once MemoryOS assigns them, name the MTM
receipt (``receiptId``); every other receipt gets an id of its own.

The boundaries and their receipts (times are the adapter's clock, UTC, when the boundary
was crossed):

* ``short_term_memory.add_qa_pair`` saved the QA: ``stm committed``, ``sourcePresent:
  true``, ``waitingUntil`` = now + ``waiting_for`` (MemoryOS promises no time; the QA waits
  until short-term memory is full);
* ``short_term_memory.pop_oldest`` saved the shorter file: ``stm committed``,
  ``sourcePresent: false`` — from here until the page is saved, only the process holds it;
* ``mid_term_memory.insert_pages_into_session`` inserted and saved the page: ``mtm
  committed`` (``receiptId`` names the session and page); when MemoryOS fell back to its
  "General conversation segment" because the LLM gave no summaries, ``sourceVersion`` ends in
  ``degraded:llm-fallback``;
* when MemoryOS used its fallback summary, an ``mtm failed`` beside that ``mtm committed``
  (the page is in mid-term memory, its summary is not): the run is never healthy;
* the profile/knowledge update marked pages analyzed and saved profile, knowledge and
  mid-term memory: ``lpm committed`` for each QA whose page it analyzed — ``lpm failed``
  when the profile it wrote is the LLM's error string (MemoryOS marks the pages analyzed
  though nothing was extracted);
* ``get_response``: at its end, in the run of the QA it stored, a ``retrieval committed`` for
  each page the retriever returned (``expectedVersion`` the same: MemoryOS keeps one version
  of a QA) and a ``generation`` receipt — ``dependsOnVersion`` the first page returned,
  ``outcomeReceipt`` what ``outcome(response)`` gives (when given), ``failed`` when MemoryOS
  answered with its LLM error text;
* a boundary that raises writes ``failed`` for what it was doing, and the error goes on up.

``sourceVersion`` pins the implementation and the settings that change capacity, heat and
retrieval: MemoryOS's package version (or a hash of its source files when it is not
installed as a package), ``short_term_capacity``, ``mid_term_capacity``, the knowledge and
retrieval queue capacities, the heat and similarity thresholds, the LLM and embedding model
names, and this adapter's version.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from importlib import metadata
from pathlib import Path
from typing import Any

from memorydesk.core.receipts import Receipt

__all__ = ["DEFAULT_WAITING_FOR", "MemoryOSReceipts", "qa_run", "qa_version", "source_version", "with_receipts"]

DEFAULT_WAITING_FOR = timedelta(hours=24)
FALLBACK_SUMMARY = "General conversation segment from short-term memory."  # MemoryOS's own fallback text
LLM_ERROR = "Error: Could not get response from LLM."  # what MemoryOS's OpenAIClient returns on failure


def qa_version(user: str, timestamp: str, order: int = 1) -> str:
    """The version of a QA: what MemoryOS assigns it — its user (whose ``short_term.json`` holds it),
    its timestamp as MemoryOS wrote it, its order among that user's QAs with that timestamp —
    never its text. ``import memoryos`` gives a QA it finds in the files the same one."""
    key = "\x1f".join((user, timestamp, str(order)))
    return "qa-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def qa_run(user: str, timestamp: str, order: int = 1) -> tuple[str, str]:
    """``(runId, version)`` of a QA: one run per QA, ``memoryos:<user>:<version>`` — the same
    whether the adapter saw it happen or ``import memoryos`` found it in the files."""
    version = qa_version(user, timestamp, order)
    return f"memoryos:{user}:{version}", version


def _memoryos_release(memoryos: Any) -> str:
    module = type(memoryos).__module__.split(".")[0]
    for name in ("memoryos", "MemoryOS", "memoryos-pypi"):
        try:
            return f"{module} {metadata.version(name)}"
        except metadata.PackageNotFoundError:
            continue
    import sys

    source = getattr(sys.modules.get(module), "__file__", None)
    if source is None:
        return f"{module} (version unknown)"
    digest = hashlib.sha256()
    for path in sorted(Path(source).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return f"{module} src-{digest.hexdigest()[:12]}"


def source_version(memoryos: Any) -> str:
    """The implementation and the settings that decide where a QA goes, as one label."""
    from memorydesk import __version__

    stm, mtm, retriever = memoryos.short_term_memory, memoryos.mid_term_memory, memoryos.retriever
    settings = [
        f"stm={stm.max_capacity}", f"mtm={mtm.max_capacity}",
        f"lpm={getattr(memoryos.user_long_term_memory, 'knowledge_capacity', '?')}",
        f"queue={getattr(retriever, 'retrieval_queue_capacity', getattr(retriever, 'queue_capacity', '?'))}",
        f"heat={memoryos.mid_term_heat_threshold:g}", f"similarity={memoryos.mid_term_similarity_threshold:g}",
        f"llm={memoryos.llm_model}", f"embedding={memoryos.embedding_model_name}",
    ]
    return f"{_memoryos_release(memoryos)} {' '.join(settings)}; receipts memorydesk {__version__}"


class MemoryOSReceipts:
    """The receipts of one wrapped ``Memoryos`` (made by :func:`with_receipts`)."""

    def __init__(self, memoryos: Any, sink: Any, *, waiting_for: timedelta = DEFAULT_WAITING_FOR,
                 outcome: Callable[[str], str | None] | None = None,
                 clock: Callable[[], datetime] | None = None) -> None:
        self.memoryos, self.sink, self.waiting_for, self.outcome = memoryos, sink, waiting_for, outcome
        self.clock = clock or (lambda: datetime.now(UTC))
        self.user, self.assistant = str(memoryos.user_id), str(memoryos.assistant_id)
        self.source = source_version(memoryos)
        self._lock = threading.RLock()
        self._versions: dict[int, tuple[dict, str]] = {}  # id(QA dict) -> (the dict, its version), until popped
        self._seconds: dict[str, int] = {}  # QA timestamp -> QAs seen with it
        self._pages: dict[str, str] = {}  # page id -> version
        self._popped: list[tuple[str, str]] = []  # (timestamp, version) popped, not yet in mid-term
        self._local = threading.local()
        # a restart: the QAs MemoryOS holds already are counted in the order its files list them
        # (pages session by session, then short-term memory), as ``import memoryos`` counts them
        for session in (getattr(memoryos.mid_term_memory, "sessions", {}) or {}).values():
            for page in session.get("details", []):
                if isinstance(page, dict) and str(page.get("page_id") or "") not in self._pages:
                    timestamp = str(page.get("timestamp") or "")
                    order = self._seconds[timestamp] = self._seconds.get(timestamp, 0) + 1
                    self._pages[str(page.get("page_id") or "")] = self._digest_version(timestamp, order)
        for qa in list(memoryos.short_term_memory.memory):
            self._version(qa)

    # -- identities --------------------------------------------------------------------------

    def _digest_version(self, timestamp: str, order: int) -> str:
        return qa_version(self.user, timestamp, order)

    def _version(self, qa: dict) -> str:
        with self._lock:
            known = self._versions.get(id(qa))
            if known is not None and known[0] is qa:
                return known[1]
            timestamp = str(qa.get("timestamp") or "")
            order = self._seconds[timestamp] = self._seconds.get(timestamp, 0) + 1
            version = self._digest_version(timestamp, order)
            self._versions[id(qa)] = (qa, version)
            return version

    def _page_version(self, page: dict) -> str:
        page_id = str(page.get("page_id") or "")
        with self._lock:
            if page_id in self._pages:
                return self._pages[page_id]
            timestamp = str(page.get("timestamp") or "")
            for k, (popped_at, version) in enumerate(self._popped):
                if popped_at == timestamp:
                    del self._popped[k]
                    self._pages[page_id] = version
                    return version
            version = self._pages[page_id] = self._digest_version(timestamp, 1)  # from before a restart
            return version

    def run_id(self, version: str) -> str:
        return f"memoryos:{self.user}:{version}"  # as ``qa_run`` gives it

    # -- writing -----------------------------------------------------------------------------

    def emit(self, tier: str, status: str, version: str, *, source: str | None = None, run: str | None = None,
             receipt_id: str | None = None, at: datetime | None = None, **fields: Any) -> Receipt:
        run = run or self.run_id(version)
        receipt = Receipt(run_id=run, user_scope=self.user, assistant_scope=self.assistant,
                          tier=tier, status=status, version=version, at_utc=at or self.clock(),
                          source_version=source or self.source,
                          receipt_id=receipt_id or f"{run}/{tier}/{status}/{secrets.token_hex(6)}", **fields)
        self.sink.write(receipt)
        return receipt

    # -- the wrappers ------------------------------------------------------------------------

    def install(self) -> None:
        mos = self.memoryos
        stm, mtm = mos.short_term_memory, mos.mid_term_memory
        stm.add_qa_pair = self._add_qa_pair(stm.add_qa_pair)
        stm.pop_oldest = self._pop_oldest(stm.pop_oldest)
        mtm.insert_pages_into_session = self._insert_pages(mtm.insert_pages_into_session)
        mos.updater.process_short_term_to_mid_term = self._migrate(mos.updater.process_short_term_to_mid_term)
        mos._trigger_profile_and_knowledge_update_if_needed = self._promote(
            mos._trigger_profile_and_knowledge_update_if_needed)
        mos.retriever.retrieve_context = self._retrieve(mos.retriever.retrieve_context)
        mos.get_response = self._respond(mos.get_response)

    def _add_qa_pair(self, original: Callable) -> Callable:
        def add_qa_pair(qa_pair, *args, **kwargs):
            try:
                result = original(qa_pair, *args, **kwargs)
            except BaseException:
                self.emit("stm", "failed", self._version(qa_pair))
                raise
            version = self._version(qa_pair)
            now = self.clock()
            self.emit("stm", "committed", version, at=now, source_present=True, waiting_until=now + self.waiting_for)
            self._local.stored = version
            return result
        return add_qa_pair

    def _pop_oldest(self, original: Callable) -> Callable:
        def pop_oldest(*args, **kwargs):
            qa = original(*args, **kwargs)  # MemoryOS saved the shorter file before returning
            if isinstance(qa, dict):
                version = self._version(qa)
                with self._lock:
                    self._popped.append((str(qa.get("timestamp") or ""), version))
                    self._versions.pop(id(qa), None)
                self.emit("stm", "committed", version, source_present=False)
            return qa
        return pop_oldest

    def _insert_pages(self, original: Callable) -> Callable:
        def insert_pages_into_session(summary_for_new_pages, keywords_for_new_pages, pages_to_insert,
                                      *args, **kwargs):
            versions = [(page, self._page_version(page)) for page in pages_to_insert]
            try:
                session = original(summary_for_new_pages, keywords_for_new_pages, pages_to_insert, *args, **kwargs)
            except BaseException:
                for _page, version in versions:
                    self.emit("mtm", "failed", version)
                raise
            degraded = summary_for_new_pages == FALLBACK_SUMMARY and not keywords_for_new_pages
            source = f"{self.source} degraded:llm-fallback" if degraded else None
            for page, version in versions:
                self.emit("mtm", "committed", version, source=source,
                          receipt_id=f"{self.run_id(version)}/mtm/{session}/{page.get('page_id')}")
                if degraded:  # the page is there; its summary is not: the LLM failed in this move
                    self.emit("mtm", "failed", version, source=source,
                              receipt_id=f"{self.run_id(version)}/mtm-llm-error/{session}/{page.get('page_id')}")
            return session
        return insert_pages_into_session

    def _migrate(self, original: Callable) -> Callable:
        def process_short_term_to_mid_term(*args, **kwargs):
            try:
                return original(*args, **kwargs)
            except BaseException:
                with self._lock:
                    lost, self._popped = list(self._popped), []
                for _timestamp, version in lost:  # popped, never inserted
                    self.emit("mtm", "failed", version)
                raise
        return process_short_term_to_mid_term

    def _unanalyzed(self) -> dict[str, dict]:
        sessions = getattr(self.memoryos.mid_term_memory, "sessions", {}) or {}
        return {str(p.get("page_id")): p for s in sessions.values() for p in s.get("details", [])
                if not p.get("analyzed", False)}

    def _profile(self) -> str:
        try:
            return str(self.memoryos.user_long_term_memory.get_raw_user_profile(self.user) or "")
        except Exception:  # noqa: BLE001 - reading it is only for the receipt; MemoryOS goes on
            return ""

    def _promote(self, original: Callable) -> Callable:
        def trigger(*args, **kwargs):
            before, profile = self._unanalyzed(), self._profile()
            try:
                result = original(*args, **kwargs)
            except BaseException:
                for page in before.values():
                    if page.get("analyzed"):
                        self.emit("lpm", "failed", self._page_version(page))
                raise
            # MemoryOS marks the pages analysed even when its LLM failed and the profile it wrote is
            # the LLM's error string: nothing was extracted, so that is no commit
            now = self._profile()
            status = "failed" if now != profile and now.strip().startswith(LLM_ERROR.rstrip(".")) else "committed"
            for page_id, page in before.items():
                if page.get("analyzed"):
                    version = self._page_version(page)
                    self.emit("lpm", status, version, receipt_id=None
                              if not page_id else f"{self.run_id(version)}/lpm/{page_id}")
            return result
        return trigger

    def _retrieve(self, original: Callable) -> Callable:
        def retrieve_context(*args, **kwargs):
            result = original(*args, **kwargs)
            pages = result.get("retrieved_pages", []) if isinstance(result, dict) else []
            self._local.retrieved = (self.clock(), [self._page_version(p) for p in pages if isinstance(p, dict)])
            return result
        return retrieve_context

    def _respond(self, original: Callable) -> Callable:
        def get_response(*args, **kwargs):
            self._local.retrieved, self._local.stored = None, None
            try:
                response = original(*args, **kwargs)
            except BaseException:
                stored = self._local.stored
                if stored is not None:
                    self.emit("generation", "failed", stored)
                raise
            stored, retrieved = self._local.stored, self._local.retrieved
            if stored is None:
                return response
            run = self.run_id(stored)
            at, versions = retrieved if retrieved is not None else (self.clock(), [])
            for version in dict.fromkeys(versions):
                self.emit("retrieval", "committed", version, run=run, at=at, expected_version=version)
            failed = isinstance(response, str) and response.strip() == LLM_ERROR
            proof = self.outcome(response) if self.outcome is not None and not failed else None
            self.emit("generation", "failed" if failed else "committed", stored, run=run,
                      depends_on_version=versions[0] if versions else None, outcome_receipt=proof or None)
            return response
        return get_response


def with_receipts(memoryos: Any, sink: Any, *, waiting_for: timedelta = DEFAULT_WAITING_FOR,
                  outcome: Callable[[str], str | None] | None = None,
                  clock: Callable[[], datetime] | None = None) -> Any:
    """Make ``memoryos`` write a receipt to ``sink`` at every tier boundary; returns ``memoryos``.

    ``sink``: a path (receipts appended to that JSON Lines file, fsynced each), an OTLP/HTTP
    traces URL (``http://…/v1/traces``: an :class:`OtelSink`, needs the ``otlp`` extra) or anything with
    ``write(receipt)`` — :class:`~memorydesk.lineage.adapters.sinks.JsonlSink`
    or :class:`~memorydesk.lineage.adapters.sinks.OtelSink`. ``outcome(response)`` may return a
    deterministic proof for a generation (a hash, a row id, a test result), or None.
    ``memoryos.receipts`` is the adapter afterwards (wrapping twice is refused).
    """
    if getattr(memoryos, "receipts", None) is not None:
        raise ValueError("this Memoryos already writes receipts")
    if isinstance(sink, str) and sink.startswith(("http://", "https://")):
        from memorydesk.lineage.adapters.sinks import OtelSink

        sink = OtelSink(sink)
    elif isinstance(sink, (str, os.PathLike)):
        from memorydesk.lineage.adapters.sinks import JsonlSink

        sink = JsonlSink(sink)
    adapter = MemoryOSReceipts(memoryos, sink, waiting_for=waiting_for, outcome=outcome, clock=clock)
    adapter.install()
    memoryos.receipts = adapter
    return memoryos
