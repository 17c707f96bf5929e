"""What an import changes: the difference between a MemoryOS directory and what earlier
imports left in the workspace (``State``). Pure: nothing here touches the database.

The workspace mirrors MemoryOS's tiers: a new QA becomes a hot item, a QA that left
``short_term.json`` leaves the hot tier, sessions and pages are added or brought up to
date (heat terms, links, ``analyzed``), a session MemoryOS dropped leaves the MTM tier
(and is reported), and LPM facts are added — never removed; a changed profile
supersedes the previous one. Everything is keyed by stable ids, so importing the same
directory again changes nothing, and a directory that grew adds only what is new.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from memorydesk.core.errors import BadInput
from memorydesk.core.receipts import Receipt
from memorydesk.lineage.memoryos import rows
from memorydesk.lineage.memoryos.anomalies import Anomaly
from memorydesk.lineage.memoryos.files import MID_TERM
from memorydesk.lineage.memoryos.lineage import (
    QaLife,
    assign_runs,
    gone_receipt,
    lives,
    lost_receipts,
    lost_run_id,
    receipts_for,
)
from memorydesk.lineage.memoryos.llm import failed_promotions
from memorydesk.lineage.memoryos.records import Directory, UserFiles
from memorydesk.lineage.memoryos.state import State
from memorydesk.lineage.memoryos.timing import lost_interval, move_times

COUNTS = ("agents", "stm_items", "stm_items_removed", "mtm_sessions", "mtm_sessions_updated",
          "mtm_sessions_removed", "mtm_pages", "mtm_pages_updated", "mtm_pages_removed", "facts",
          "facts_superseded", "receipts")


class TimezoneChanged(BadInput):
    """A user imported before in one zone would be read in another."""


@dataclass
class Plan:
    lanes_by_user: dict[str, str] = field(default_factory=dict)
    agents: list[dict[str, Any]] = field(default_factory=list)
    users: list[dict[str, Any]] = field(default_factory=list)
    lanes: list[dict[str, Any]] = field(default_factory=list)
    ledger: list[dict[str, Any]] = field(default_factory=list)
    versions: list[dict[str, Any]] = field(default_factory=list)
    hot_items: list[dict[str, Any]] = field(default_factory=list)
    hot_items_removed: list[str] = field(default_factory=list)
    segments: dict[str, dict[str, Any]] = field(default_factory=dict)
    segments_updated: dict[str, dict[str, Any]] = field(default_factory=dict)
    segments_removed: list[str] = field(default_factory=list)
    pages: dict[str, dict[str, Any]] = field(default_factory=dict)
    pages_updated: dict[str, dict[str, Any]] = field(default_factory=dict)
    pages_removed: list[str] = field(default_factory=list)
    facts: list[dict[str, Any]] = field(default_factory=list)
    superseded: list[tuple[str, str]] = field(default_factory=list)  # (old fact, the fact replacing it)
    receipts: list[Receipt] = field(default_factory=list)  # new ones only
    derived: list[Receipt] = field(default_factory=list)  # every receipt the files prove
    anomalies: list[Anomaly] = field(default_factory=list)
    at_risk_runs: dict[str, str] = field(default_factory=dict)  # user -> the run of its interrupted migration

    def counts(self) -> dict[str, int]:
        sizes = {"agents": self.agents, "stm_items": self.hot_items, "stm_items_removed": self.hot_items_removed,
                 "mtm_sessions": self.segments, "mtm_sessions_updated": self.segments_updated,
                 "mtm_sessions_removed": self.segments_removed, "mtm_pages": self.pages,
                 "mtm_pages_updated": self.pages_updated, "mtm_pages_removed": self.pages_removed,
                 "facts": self.facts, "facts_superseded": self.superseded, "receipts": self.receipts}
        return {name: len(sizes[name]) for name in COUNTS}

    @property
    def changes_nothing(self) -> bool:
        return not any(self.counts().values())


def default_assistant(directory: Directory) -> str:
    assistants = directory.layout.assistants
    return assistants[0] if len(assistants) == 1 else rows.FALLBACK_ASSISTANT


def _lane(plan: Plan, state: State, user: str, directory: Directory, zone: ZoneInfo) -> str:
    known = state.users.get(user)
    if known is not None:
        assistant, timezone = known
        if timezone != zone.key:
            raise TimezoneChanged(
                f"{user} was imported with --timezone {timezone} before; reading it in {zone.key} now would file "
                f"the same QAs at other times — import it with --timezone {timezone}")
        return assistant
    assistant = default_assistant(directory)
    plan.users.append({"user_scope": user, "assistant_scope": assistant, "timezone": zone.key})
    return assistant


class _Builder:
    def __init__(self, directory: Directory, state: State, workspace_id: str, now: datetime,
                 capacity: int | None) -> None:
        self.directory, self.state, self.workspace_id, self.now = directory, state, workspace_id, now
        self.capacity = capacity
        self.plan = Plan()

    def record(self, item_id: str, kind: str, owner: str) -> bool:
        """True (and ledgered) when ``item_id`` was never written by an import before."""
        if item_id in self.state.ledger:
            return False
        self.state.ledger[item_id] = (kind, owner)
        self.plan.ledger.append({"id": item_id, "kind": kind, "owner": owner})
        return True

    def receipts(self, made: list[Receipt]) -> None:
        for receipt in made:
            self.plan.derived.append(receipt)
            if receipt.receipt_id not in self.state.receipt_ids:
                self.state.receipt_ids.add(receipt.receipt_id or "")
                self.plan.receipts.append(receipt)

    def user(self, files: UserFiles, assistant: str) -> None:
        plan, state = self.plan, self.state
        if (files.user, assistant) not in state.lanes:
            plan.lanes.append({"user_scope": files.user, "assistant_scope": assistant, "last_version": 0})
        user_lives = lives(files)
        assign_runs(user_lives, state.registry)
        resident_at = max((qa.at.utc for qa in files.stm), default=None)
        moves = move_times(files, user_lives, self.capacity)
        failed = failed_promotions(files, {page.page_id: life.item_id for life in user_lives
                                           for page, _session in life.copies}, moves)
        for life in user_lives:
            if not life.known:
                plan.versions.append(rows.version_row(life, assistant))
                state.registry[life.item_id] = (life.run_id, life.version)
            self.receipts(receipts_for(life, assistant, resident_at, moves.get(life.item_id), self.capacity,
                                       failed.get(life.item_id)))
            if life.in_stm and self.record(life.item_id, "stm", files.user):
                plan.hot_items.append(rows.hot_item(life, assistant, self.workspace_id))
        lost = lost_interval(files, self.capacity)
        if lost is not None:
            self.receipts(lost_receipts(lost, assistant, self.now))
            plan.at_risk_runs[files.user] = lost_run_id(lost)
        self.departed(files, assistant, user_lives)
        self.mid_term(files, assistant, user_lives)
        self.long_term(files, assistant)

    def departed(self, files: UserFiles, assistant: str, user_lives: list[QaLife]) -> None:
        """Hot items whose QA left ``short_term.json``; a receipt for those now in neither file."""
        if files.stm_written_at is None:
            return
        in_stm = {life.item_id for life in user_lives if life.in_stm}
        anywhere = {life.item_id for life in user_lives}
        for item_id in self.state.owned(files.user, "stm"):
            if item_id not in in_stm and item_id in self.state.hot_items:
                self.plan.hot_items_removed.append(item_id)
            if item_id not in anywhere and item_id in self.state.registry:
                run_id, version = self.state.registry[item_id]
                self.receipts([gone_receipt(run_id, version, files.user, assistant, files.stm_written_at,
                                            self.capacity)])

    def mid_term(self, files: UserFiles, assistant: str, user_lives: list[QaLife]) -> None:
        plan, state = self.plan, self.state
        life_of = {page.page_id: life for life in user_lives for page, _ in life.copies}
        present: set[str] = set()
        for session in files.sessions:
            seg = rows.segment_id(files.user, session)
            present.add(seg)
            values = rows.segment_values(files.user, assistant, session, files.access_frequency)
            if self.record(seg, "segment", files.user):
                plan.segments[seg] = values
            elif seg in state.segments and _changed(state.segments[seg], values):
                plan.segments_updated[seg] = values
            for page, row_id in zip(session.pages, rows.page_row_ids(files.user, session), strict=True):
                present.add(row_id)
                values = rows.page_values(seg, page, life_of[page.page_id])
                if self.record(row_id, "page", files.user):
                    plan.pages[row_id] = values
                elif row_id in state.pages and _changed(state.pages[row_id], values):
                    plan.pages_updated[row_id] = values
        if not files.has_mid_term:
            return
        for seg in state.owned(files.user, "segment"):
            if seg not in present and seg in state.segments:
                plan.segments_removed.append(seg)
                session_id = state.segments[seg]["session_id"]
                pages = sum(1 for p in state.pages.values() if p["segment_id"] == seg)
                plan.anomalies.append(Anomaly(
                    "session_evicted", files.user, files.file(MID_TERM), f"sessions.{session_id}",
                    f"{session_id} was imported before and is no longer in mid_term.json (MemoryOS evicted it); "
                    f"its {'1 page' if pages == 1 else f'{pages} pages'} left the MTM tier"))
        plan.pages_removed += [p for p in state.owned(files.user, "page") if p not in present and p in state.pages]

    def facts(self, candidates: list[dict[str, Any]], kind: str, owner: str) -> None:
        for fact in candidates:
            if self.record(fact["id"], kind, owner):
                self.plan.facts.append(fact)

    def long_term(self, files: UserFiles, assistant: str) -> None:
        if files.profile is not None:
            fact = rows.profile_fact(files.user, assistant, files.profile, self.workspace_id, _unix(self.now))
            active = [f for f in self.state.owned(files.user, "profile") if f in self.state.active_profiles]
            unchanged = any(self.state.active_profiles[f] == fact["content"] for f in active)
            if not unchanged and self.record(fact["id"], "profile", files.user):
                self.plan.facts.append(fact)
                self.plan.superseded += [(old, fact["id"]) for old in active]
        self.facts(rows.knowledge_facts(files.user, assistant, "user", files.knowledge, self.workspace_id),
                   "knowledge", files.user)
        self.facts(rows.knowledge_facts(assistant, assistant, "assistant", files.assistant_knowledge,
                                        self.workspace_id), "knowledge", assistant)


def _changed(stored: dict[str, Any], values: dict[str, Any]) -> bool:
    return any(stored.get(key) != value for key, value in values.items())


def _unix(moment: datetime) -> int:
    return int(moment.timestamp())


def build_plan(directory: Directory, state: State, workspace_id: str, now: datetime | None = None,
               capacity: int | None = None) -> Plan:
    """Everything this import would write into a workspace holding ``state``; ``capacity``:
    MemoryOS's ``short_term_capacity`` (it dates the moves, ``timing``).

    Raises :class:`TimezoneChanged` when a user imported before would be read in another zone.
    """
    builder = _Builder(directory, state, workspace_id, now or datetime.now(UTC), capacity)
    plan, zone = builder.plan, directory.zone
    for name, files in directory.users.items():
        plan.lanes_by_user[name] = _lane(plan, state, name, directory, zone)
    for name, files in directory.users.items():
        builder.user(files, plan.lanes_by_user[name])
    for name, files in directory.assistants.items():
        builder.facts(rows.knowledge_facts(name, name, "assistant", files.knowledge, workspace_id), "knowledge", name)
    scopes = sorted(set(plan.lanes_by_user.values()) | set(directory.assistants))
    for scope in scopes:
        if scope not in state.agent_ids and scope not in state.agent_names and builder.record(scope, "agent", scope):
            plan.agents.append(rows.agent_row(scope, workspace_id, _unix(builder.now)))
    return plan
