"""The Review tab's actions on the selected finding: each asks a reason (prefilled with the
finding), runs one reviewer call through the session, and the scan follows the change."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QWidget

from memorydesk.browse.forget.subject import remembered_facts, remembered_items
from memorydesk.browse.naming import FactName, fact_names, policy_names
from memorydesk.browse.purge_scope import purge_scope
from memorydesk.core.review.finding import Finding
from memorydesk.core.review.kinds import ReviewKind
from memorydesk.memory.actions.purge import backups_holding
from memorydesk.memory.actions.purge_items import backups_holding_items
from memorydesk.memory.reviewer import Reviewer
from memorydesk.ui.actions import WriteActions
from memorydesk.ui.facts.dialogs import PurgeDialog
from memorydesk.ui.forget.dialog import CheckRequest
from memorydesk.ui.forget.offer import ForgetOffer
from memorydesk.ui.operations import dialog_result
from memorydesk.ui.review.dialogs import ReviewDialog
from memorydesk.ui.review.model import ITEM_WORDS
from memorydesk.ui.session import DeskSession

QUARANTINE_WORDS = {
    "fact": "soft-deleted (agents stop recalling it; it stays in the file)",
    "policy": "deactivated (it stops going into every dispatch)",
    "note": "emptied (it stops going into the agent's preamble; its text is kept in the history)",
    "working_item": "taken out of the hot tier (the agent stops getting it and it is not consolidated into a fact; "
                    "its row is kept in the history)",
}

PURGE_WORDS = {
    "note": "Purging erases the whole text of this agent's note for good (the note is left empty; the agent "
            "writes a new one as it goes), and the copies of it the history kept (a quarantine keeps the text "
            "there). The history keeps only ids, who, when and why. This cannot be undone.",
    "working_item": "Purging deletes this working-memory item for good, and the copies of its text the "
                    "history kept (a quarantine keeps its row there). The history keeps only ids, who, when and "
                    "why. This cannot be undone.",
    "policy": "Purging deletes this policy for good, and the copies of its rule the history kept (an edit or a "
              "delete keeps them there). The history keeps only ids, who, when and why. This cannot be undone.",
}


def described(f: Finding) -> str:
    """The finding by its kind, rule and item, never its excerpt: what goes into the permanent history
    (a reason, a step's record), which a purge does not empty of the item's text."""
    rule = f.evidence.get("type") or f.evidence.get("rule") or ""
    rule = f" ({str(rule).replace('_', ' ')})" if rule else ""
    return f"{ReviewKind(f.kind).words.lower()}{rule} in {ITEM_WORDS[f.item_kind]} {f.item_id}"


def prefill(verb: str, f: Finding) -> str:
    """The reason a dialog offers for ``verb`` on ``f`` (``described``)."""
    return f"{verb}: {described(f)}"


def as_dict(f: Finding) -> dict[str, Any]:
    return {"key": f.key, "kind": f.kind, "item_kind": f.item_kind, "item_id": f.item_id,
            "fingerprint": f.fingerprint, "title": described(f)}


#: what Purge erases: the item any finding is about (a quarantined injected fact too)
PURGE_ITEMS = ("fact", "policy", "note", "working_item")

#: what Redact removes (``memory.actions.redact``)
REDACTABLE = (ReviewKind.SECRET, ReviewKind.PERSONAL_DATA, ReviewKind.INJECTION)


class ReviewActions:
    """The actions on the finding ``selected()`` returns; ``owner`` (the tab) holds them and
    parents their dialogs; ``forget`` offers the check that a purged text is forgotten."""

    def __init__(self, owner: QWidget, selected: Callable[[], Finding | None], forget: ForgetOffer) -> None:
        self.owner, self.selected, self.forget = owner, selected, forget
        self.session: DeskSession | None = None
        self.dialog: Any = None
        self.acts = WriteActions(owner, "review")
        a = self.acts.add
        self.quarantine = a("Quarantine…", self.quarantine_selected, name="quarantine", key="Ctrl+Shift+Q")
        self.release = a("Release…", self.release_selected, name="release", key="Ctrl+Shift+L")
        self.redact = a("Redact…", self.redact_selected, name="redact", key="Ctrl+Shift+X")
        self.retype = a("Change Type…", self.retype_selected, name="retype", key="Ctrl+Shift+E")
        self.purge = a("Purge…", self.purge_selected, name="purge", key="Shift+Del")
        self.merge = a("Merge…", self.merge_selected, name="merge", key="Ctrl+M")
        self.supersede = a("Supersede older…", self.supersede_selected, name="supersede", key="Ctrl+Shift+S")
        self.reviewed = a("Mark reviewed…", lambda: self.dismiss_selected(reviewed=True), name="reviewed",
                          key="Ctrl+Shift+M")
        self.dismiss = a("Dismiss…", self.dismiss_selected, name="dismiss", key="Ctrl+D")

    def bind(self, session: DeskSession) -> None:
        self.session = session
        self.acts.bind(session)

    def update(self, f: Finding | None) -> None:
        kind = ReviewKind(f.kind) if f is not None else None
        open_ = kind is not None and f.state == "open"
        self.acts.update({
            self.quarantine: (open_ and kind.quarantine, "select an open finding"),
            self.release: (f is not None and f.state == "quarantined", "select a quarantined finding"),
            self.redact: self._can_redact(f, open_, kind),
            self.retype: (open_ and kind is ReviewKind.FADING and f.item_kind == "fact"
                          and bool(f.evidence.get("suggested_type")), "select an open fading fact"),
            self.purge: (f is not None and f.item_kind in PURGE_ITEMS,
                         "select a finding about a fact, a policy, a note or a working-memory item"),
            self.merge: (open_ and kind is ReviewKind.DUPLICATE, "select an open duplicate cluster"),
            self.supersede: (open_ and kind is ReviewKind.LOSING_CORRECTION, "select an open losing correction"),
            self.reviewed: (open_ and kind is ReviewKind.LOSING_CORRECTION, "select an open losing correction"),
            self.dismiss: (open_, "select an open finding"),
        })

    @staticmethod
    def _can_redact(f: Finding | None, open_: bool, kind: ReviewKind | None) -> tuple[bool, str]:
        """Redact removes a secret, a piece of personal data or an injected instruction's line from a
        fact, a note or a working-memory item; where it cannot, why (said when its key is pressed)."""
        if f is not None and open_ and kind in REDACTABLE and f.item_kind == "policy":
            return False, ("a policy's rule cannot be redacted: Quarantine deactivates the policy, Purge erases it, "
                           "and the Policies tab edits its rule")
        if f is not None and open_ and kind in REDACTABLE and f.item_kind in ("fact", "note", "working_item"):
            return True, ""
        return False, ("select an open secret, personal data or injected instruction in a fact, a note or a "
                       "working-memory item")

    async def _ask(self, title: str, text: str, reason: str, *, keepers=None, ok_text: str = "OK",
                   about: Finding | None = None):
        dialog = ReviewDialog(title, text, reason, self.owner, keepers=keepers, ok_text=ok_text,
                              about=about_finding(about) if about is not None else "")
        self.dialog = dialog
        accepted = await dialog_result(dialog)
        values = dialog.values()
        dialog.deleteLater()
        self.dialog = None
        return values if accepted else None

    def _target(self, action) -> Finding | None:
        f = self.selected()
        if f is None or self.session is None or not self.acts.allowed(action):
            return None
        return f

    async def quarantine_selected(self) -> None:
        f = self._target(self.quarantine)
        if f is None:
            return
        what = QUARANTINE_WORDS[f.item_kind]
        got = await self._ask("Quarantine", f"The {ITEM_WORDS[f.item_kind]} is {what}. Release or Undo puts it back.",
                              prefill("quarantine", f), ok_text="Quarantine", about=f)
        if got:
            await self.session.write("quarantining", Reviewer.quarantine, as_dict(f), got[0])

    async def release_selected(self) -> None:
        f = self._target(self.release)
        if f is None:
            return
        after = (" Its kept text goes back before whatever the agent wrote in the note since: nothing is lost."
                 if f.item_kind == "note" else "")
        got = await self._ask("Release", f"The {ITEM_WORDS[f.item_kind]} reaches agents again.{after}",
                              prefill("release", f), ok_text="Release",
                              about=f)
        if got:
            await self.session.write("releasing", Reviewer.release, f.item_kind, f.item_id, got[0])

    async def purge_selected(self) -> None:
        f = self._target(self.purge)
        if f is None:
            return
        ids, kind = [f.item_id], f.item_kind
        if kind == "fact":
            holding = await self.session.read(lambda ws: backups_holding(ws, ids), label="looking at the backups")
            names = await self.session.read(lambda ws: fact_names(ws, ids), label="naming the fact")
            scope = await self.session.read(lambda ws: purge_scope(ws, ids), label="counting what goes with it")
            if not names:
                self.session.status.emit("That fact is no longer in the workspace.")
                return
        else:
            holding = await self.session.read(lambda ws: backups_holding_items(ws, kind, ids),
                                                  label="looking at the backups")
        if kind == "policy":  # its rule's words and its id: a domain is shared by other policies
            names = await self.session.read(lambda ws: policy_names(ws, ids), label="naming the policy")
            if not names:
                self.session.status.emit("That policy is no longer in the workspace.")
                return
        remembered = await self.session.read(  # kept in memory for the check after the purge, never stored
            lambda ws: remembered_facts(ws, ids) if kind == "fact" else remembered_items(ws, kind, ids))
        if kind == "fact":
            dialog = PurgeDialog(names, [h.path.name for h in holding], self.owner,  # its name and its real id
                                 also=scope.words())
        else:
            dialog = PurgeDialog(names if kind == "policy" else [FactName(f.item_id, f.domain, f.domain, 1)],
                                 [h.path.name for h in holding],
                                 self.owner, noun=ITEM_WORDS[kind], erases=PURGE_WORDS[kind])
        dialog.reason.setText(prefill("purge", f))
        self.dialog = dialog
        accepted = await dialog_result(dialog)
        reason, backups = dialog.reason.text().strip(), dialog.backup_action()
        dialog.deleteLater()
        self.dialog = None
        if not accepted:
            return
        if kind == "fact":
            await self.session.write("purging", Reviewer.purge_facts, ids, reason=reason, backups=backups)
            request = CheckRequest(fact_ids=tuple(ids), remembered=remembered)
        else:
            await self.session.write("purging", Reviewer.purge_items, kind, ids, reason, backups=backups)
            request = CheckRequest(item_kind=kind, item_ids=tuple(ids), remembered=remembered)
        self.forget.offer(self.session, request, f"Purged the {ITEM_WORDS[kind]}.")

    async def redact_selected(self) -> None:
        f = self._target(self.redact)
        if f is None:
            return
        what = {"secret": "each secret", "personal_data": "this piece of personal data",
                "injection": "this instruction's sentence (its whole line when the line says nothing else)"}[f.kind]
        where = (f"The fact is superseded by a new version with {what} replaced by [redacted: …]: a new row, "
                 "created now, its embedding made again from the redacted text (none if it had none), every other "
                 "field kept; its earlier versions are redacted too." if f.item_kind == "fact" else
                 f"The {ITEM_WORDS[f.item_kind]} is redacted in place: {what} replaced by [redacted: …], the rest "
                 "kept as the agent wrote it.")
        got = await self._ask("Redact", where + " The text removed is kept only in the history row, so Undo can "
                              "put it back; the index and the write-ahead log are emptied of it.",
                              prefill("redact", f), ok_text="Redact", about=f)
        if got:
            finding = {**as_dict(f), "evidence": f.evidence}
            await self.session.write("redacting", Reviewer.redact, f.item_kind, f.item_id, got[0], f.key, finding)

    async def retype_selected(self) -> None:
        f = self._target(self.retype)
        if f is None:
            return
        now, to = f.evidence.get("memory_type", "?"), f.evidence["suggested_type"]
        got = await self._ask("Change memory type", f"The fact becomes a new version typed {to!r} instead of {now!r} "
                              "(its text, domain and confidence unchanged), so it decays as what it says.",
                              prefill(f"memory type {now} → {to}", f), ok_text="Change Type", about=f)
        if got:
            await self.session.write("changing the type", Reviewer.set_fact_type, f.item_id, to, got[0])

    async def merge_selected(self) -> None:
        f = self._target(self.merge)
        if f is None:
            return
        members = f.evidence.get("members", [])
        # no keeper is chosen for the person: each may say something the others do not
        keepers = [("— choose the fact to keep —", None)] + [
            (f"{m['id'][:8]} · {m['domain']} / {m['topic']} · {m['content'][:60]}", m["id"]) for m in members]
        got = await self._ask("Merge duplicates", f"The {len(f.evidence['cluster'])} facts become one: the others "
                              "are superseded by the one you keep (nothing new is written).",
                              prefill("merge", f), keepers=keepers, ok_text="Merge", about=f)
        if got:
            await self.session.write("merging", Reviewer.merge_facts, got[1], list(f.evidence["cluster"]), got[0],
                                         f.key)

    async def supersede_selected(self) -> None:
        f = self._target(self.supersede)
        if f is None:
            return
        older, newer, key = f.evidence["older"]["id"], f.item_id, f.key
        got = await self._ask("Supersede the older fact", "The older fact is superseded by the newer one, as the "
                              "product does when it settles a conflict.", prefill("correction", f),
                              ok_text="Supersede", about=f)
        if got:
            await self.session.write("superseding", Reviewer.merge_facts, newer, [older], got[0], key)

    async def dismiss_selected(self, reviewed: bool = False) -> None:
        f = self._target(self.reviewed if reviewed else self.dismiss)
        if f is None:
            return
        item = ITEM_WORDS[f.item_kind]
        report = getattr(self.owner, "report", None)  # the tab's last scan: the findings on the same item
        found = report.findings if report is not None else []
        others = sum(1 for g in found if g.item_id == f.item_id and g.key != f.key)
        same = max(sum(1 for g in found if g.key == f.key) - 1, 0)
        covers = (f"This finding alone leaves the open queue, until the {item} changes"
                  + (f" (with {same} other{'s' if same != 1 else ''} reading exactly the same there)" if same > 0
                     else "") + ". "
                  + (f"The {others:,} other finding{'s' if others != 1 else ''} on this {item} "
                     f"stay{'s' if others == 1 else ''} open, and so does any found there later." if others else
                     f"A finding found on this {item} later stays open."))
        got = await self._ask("Mark reviewed" if reviewed else "Dismiss", covers,
                              prefill("reviewed" if reviewed else "dismiss", f),
                              ok_text="Mark reviewed" if reviewed else "Dismiss", about=f)
        if got:
            await self.session.write("dismissing", Reviewer.dismiss_finding, as_dict(f), got[0], reviewed=reviewed)


def about_finding(f: Finding) -> str:
    """The finding and its item in one or two lines, as the list shows them: what the dialog acts on."""
    where = f" in {f.domain}" if f.domain else ""
    return f"Finding: {f.title}\nItem: {ITEM_WORDS[f.item_kind]} {f.item_id}{where} ({f.field})"
