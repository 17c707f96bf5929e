"""What MemoryOS leaves in its files when its LLM fails, and which of its steps that undid.

MemoryOS's LLM client returns the string ``Error: Could not get response from LLM.`` when the
endpoint fails, and MemoryOS stores it as data: as a page's ``meta_info`` (the migration's
continuity and summary calls failed), as the user profile (the profile analysis of a
promotion "succeeded" with it: the quality check only wants 30 characters), as an
``agent_response`` (``get_response`` answered with it). When the topic summary of a migration
cannot be parsed, the page lands in a session with MemoryOS's fallback summary and no keywords.

A promotion marks every page of its session ``analyzed`` whether or not anything was
extracted, so an ``analyzed`` flag is no evidence of a promotion where the LLM failed. The
promotion that wrote an error-string profile (or knowledge line) happened at that text's
time; it analysed the session MemoryOS found hottest — one whose every page that had reached
it by then is ``analyzed`` (a promotion marks them all). Its pages get a failed promotion
instead of a committed one (:func:`failed_promotions`). Where two sessions could have been
the one, both are taken: a commit that may not have happened is never shown as one.
"""

from __future__ import annotations

from datetime import datetime

from memorydesk.lineage.memoryos.records import Page, Session, UserFiles
from memorydesk.lineage.memoryos.timing import Move

#: What MemoryOS's LLM client returns, and MemoryOS then stores, when the endpoint fails.
LLM_ERROR_TEXTS = ("Error: Could not get response from LLM.",)
#: The summary MemoryOS gives a session when the multi-summary reply could not be parsed.
FALLBACK_SUMMARY = "General conversation segment from short-term memory."


def is_llm_error(text: str | None) -> bool:
    stripped = (text or "").strip()
    return any(stripped.startswith(error.rstrip(".")) for error in LLM_ERROR_TEXTS)


def is_fallback(session: Session) -> bool:
    return session.summary.strip() == FALLBACK_SUMMARY and not session.keywords


def degraded_move(page: Page, session: Session) -> bool:
    """The LLM failed while this page was moved to mid-term memory: its ``meta_info`` is the error
    string, or it opened a session that has the fallback summary."""
    return is_llm_error(page.meta_info) or (is_fallback(session) and session.pages[0].page_id == page.page_id)


def failed_promotion_times(user: UserFiles) -> list[datetime]:
    """When a promotion's LLM calls failed: the error-string profile's and knowledge lines' times."""
    times = []
    if user.profile is not None and user.profile.updated is not None and is_llm_error(user.profile.text):
        times.append(user.profile.updated.utc)
    times += [k.at.utc for k in user.knowledge if is_llm_error(k.text.lstrip("- "))]
    return sorted(set(times))


def failed_promotions(user: UserFiles, item_of_page: dict[str, str], moves: dict[str, Move]) -> dict[str, datetime]:
    """Per QA (``item_id``): when a promotion whose LLM failed may have "analysed" its page.

    A page reached its session at its move: exactly then with the capacity, else at some time
    between the QA's own time and the move's upper bound. A session was not the one promoted
    at a failed promotion's time when a page certainly there by then is not ``analyzed``;
    otherwise every ``analyzed`` page that may have been there by then may have been analysed
    by it, and its promotion is not taken as a commit."""
    failed: dict[str, datetime] = {}

    def move_of(page: Page) -> Move | None:
        return moves.get(item_of_page.get(page.page_id, ""))

    for moment in failed_promotion_times(user):
        for session in user.sessions:
            timed = [(page, move) for page in session.pages if (move := move_of(page)) is not None]
            certainly = [page for page, move in timed if move.at <= moment]
            if any(not page.analyzed for page in certainly):
                continue
            maybe = [page for page, move in timed if page.analyzed
                     and (move.at if move.exact else page.qa.at.utc) <= moment]
            for page in maybe:
                failed.setdefault(item_of_page[page.page_id], moment)
    return failed
