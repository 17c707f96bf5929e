"""The review's kinds of finding, in one typed list (as ``core.changes.Kind`` is the changes'):
each kind's name (the ``--kind`` value and the JSON's ``kind``), its title in lists, what it
needs to be found, what a person may do about it, and why it matters (the detail pane).

Adding a kind is one entry here, in the order lists show them, and the finder that makes its
findings (CONTRIBUTING.md, "A new review check"); every list, filter, ``--kind`` choice, the
actions' rules and the detail's sentence follow from the entry. A name that is no kind is
refused where it is named (``ReviewKind.named``).
"""

from __future__ import annotations

from enum import StrEnum


class Needs(StrEnum):
    """What the scan reads to find a kind."""

    ITEM = "item"  # one item's text and fields (a fact, a policy, a note, a working-memory item)
    PAIRS = "pairs"  # the close pairs of the facts' vectors, and recall checks


class ReviewKind(StrEnum):
    words: str
    needs: Needs
    quarantine: bool  # the item can be quarantined for it
    purge: bool  # its text can be purged for it (not a policy's)
    why: str

    def __new__(cls, value: str, words: str, needs: Needs, quarantine: bool, purge: bool, why: str) -> ReviewKind:
        kind = str.__new__(cls, value)
        kind._value_ = value
        kind.words, kind.needs, kind.quarantine, kind.purge, kind.why = words, needs, quarantine, purge, why
        return kind

    SECRET = ("secret", "Secrets", Needs.ITEM, True, True,
              "A secret in memory is handed to agents and copied into their prompts and logs.")
    PERSONAL_DATA = ("personal_data", "Personal data", Needs.ITEM, True, True,
                     "Personal data in memory reaches every agent that recalls it.")
    INJECTION = ("injection", "Injected instructions", Needs.ITEM, True, False,
                 "Text in memory is read by agents as instructions: an active policy goes into every dispatch, "
                 "and facts matched by keyword go into the preamble unasked.")
    DUPLICATE = ("duplicate", "Near-duplicates", Needs.PAIRS, False, False,
                 "Near-duplicates crowd each other out of recall (MMR picks one) and drift apart when one is edited.")
    LOSING_CORRECTION = ("losing_correction", "Corrections that lose", Needs.PAIRS, True, False,
                         "The agent may act on the older statement although a newer one corrects it.")
    UNREACHABLE = ("unreachable", "Unreachable facts", Needs.ITEM, True, False,
                   "The agent's keyword search and the dispatch preamble can never return this fact.")
    FADING = ("fading", "Fading facts", Needs.ITEM, True, False,
              "Its memory type decays fast, so the agent loses a fact that reads as lasting.")

    @classmethod
    def named(cls, name: str | ReviewKind) -> ReviewKind:
        """``name`` as a kind; a name that is no kind is refused, saying which kinds there are."""
        try:
            return cls(name)
        except ValueError:
            raise ValueError(f"{name!r} is not a kind of review finding; choose from "
                             f"{', '.join(cls)}") from None

    @classmethod
    def needing(cls, needs: Needs) -> frozenset[ReviewKind]:
        return frozenset(k for k in cls if k.needs is needs)
