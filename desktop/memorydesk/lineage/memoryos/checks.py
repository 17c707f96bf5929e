"""The anomalies a MemoryOS directory shows by itself (see ``anomalies.KINDS``).

Each detector looks at the records of one user (or one assistant's file) and returns
one anomaly per offending place; nothing here needs the workspace.
"""

from __future__ import annotations

from collections import defaultdict

from memorydesk.lineage.memoryos.anomalies import Anomaly, ordered
from memorydesk.lineage.memoryos.files import LONG_TERM_USER, MID_TERM, SHORT_TERM
from memorydesk.lineage.memoryos.fill import interrupted_migration
from memorydesk.lineage.memoryos.llm import is_fallback, is_llm_error
from memorydesk.lineage.memoryos.records import Directory, Knowledge, UserFiles


def _duplicate_pages(user: UserFiles) -> list[Anomaly]:
    rows = defaultdict(list)
    for session in user.sessions:
        for page in session.pages:
            rows[page.page_id].append(page)
    found = []
    for page_id, copies in rows.items():
        if len(copies) > 1:
            where = ", ".join(p.session_id for p in copies)
            found.append(Anomaly("duplicate_page_id", user.user, user.file(MID_TERM), copies[1].path,
                                 f"page {page_id} is stored {len(copies)} times (in {where})"))
    return found


def _dangling_links(user: UserFiles) -> list[Anomaly]:
    known = {page.page_id for session in user.sessions for page in session.pages}
    found = []
    for session in user.sessions:
        for page in session.pages:
            for key, target in (("pre_page", page.pre_page), ("next_page", page.next_page)):
                if target and target not in known:
                    found.append(Anomaly("dangling_page_link", user.user, user.file(MID_TERM), f"{page.path}.{key}",
                                         f"{key} names {target}, which is in no session of {user.user}"))
    return found


def _error(user: str | None, file: str, path: str, what: str) -> Anomaly:
    return Anomaly("llm_error_text", user, file, path, f"the LLM's error string is stored as {what}")


def _llm_errors(user: UserFiles) -> list[Anomaly]:
    found = [_error(user.user, user.file(SHORT_TERM), f"{qa.path}.agent_response", "the agent_response")
             for qa in user.stm if is_llm_error(qa.agent_response)]
    for session in user.sessions:
        if is_llm_error(session.summary):
            found.append(_error(user.user, user.file(MID_TERM), f"{session.path}.summary", "the session summary"))
        for page in session.pages:
            for key, value in (("agent_response", page.qa.agent_response), ("meta_info", page.meta_info)):
                if is_llm_error(value):
                    found.append(_error(user.user, user.file(MID_TERM), f"{page.path}.{key}", f"the page's {key}"))
    if user.profile and is_llm_error(user.profile.text):
        found.append(_error(user.user, user.file(LONG_TERM_USER), user.profile.path, "the user profile"))
    for entry in user.knowledge + user.assistant_knowledge:
        if is_llm_error(entry.text.lstrip("- ")):
            found.append(_error(user.user, user.file(LONG_TERM_USER), f"{entry.path}.knowledge", "knowledge"))
    return found


def _fallback_sessions(user: UserFiles) -> list[Anomaly]:
    return [Anomaly("fallback_session", user.user, user.file(MID_TERM), f"{s.path}.summary",
                    f"{s.session_id} has MemoryOS's fallback summary and no keywords (the topic summary failed); "
                    f"{len(s.pages)} page{'' if len(s.pages) == 1 else 's'}")
            for s in user.sessions if is_fallback(s)]


def duplicate_knowledge(user: str | None, file: str, entries: list[Knowledge]) -> list[Anomaly]:
    seen = defaultdict(list)
    for entry in entries:
        seen[entry.text.strip()].append(entry)
    return [Anomaly("duplicate_knowledge", user, file, f"{copies[1].path}.knowledge",
                    f"stored {len(copies)} times ({', '.join(c.path for c in copies)}): {text}")
            for text, copies in seen.items() if len(copies) > 1]


def _access_frequency(user: UserFiles) -> list[Anomaly]:
    if not user.has_mid_term:
        return []
    counted = user.access_frequency or {}
    sessions = {s.session_id for s in user.sessions}
    file = user.file(MID_TERM)
    found = [Anomaly("access_frequency_mismatch", user.user, file, f"access_frequency.{key}",
                     f"access_frequency counts {key}, which is not in sessions")
             for key in counted if key not in sessions]
    found += [Anomaly("access_frequency_mismatch", user.user, file, s.path,
                      f"{s.session_id} has no access_frequency entry (MemoryOS's LFU eviction cannot weigh it)")
              for s in user.sessions if s.session_id not in counted]
    return found


def find_anomalies(directory: Directory, stm_capacity: int | None = None) -> list[Anomaly]:
    """Every anomaly the files show, reading's own (times, embeddings) included, ordered by kind;
    with ``stm_capacity`` (MemoryOS's ``short_term_capacity``) also an interrupted migration."""
    found = list(directory.anomalies)
    for user in directory.users.values():
        interrupted = interrupted_migration(user, stm_capacity, directory.zone)
        if interrupted is not None:
            found.append(interrupted)
        for detector in (_duplicate_pages, _dangling_links, _llm_errors, _fallback_sessions, _access_frequency):
            found += detector(user)
        file = user.file(LONG_TERM_USER)
        found += duplicate_knowledge(user.user, file, user.knowledge)
        found += duplicate_knowledge(user.user, file, user.assistant_knowledge)
    for assistant in directory.assistants.values():
        found += duplicate_knowledge(None, assistant.file, assistant.knowledge)
        found += [_error(None, assistant.file, f"{k.path}.knowledge", "knowledge")
                  for k in assistant.knowledge if is_llm_error(k.text.lstrip("- "))]
    return ordered(found)
