"""The review's kinds are one typed list (``core.review.kinds.ReviewKind``): the scan's options,
the command line's ``--kind`` and the Review tab's rules all read it, and a name that is no kind
is refused where it is named."""

from __future__ import annotations

import pytest

from memorydesk.browse.review.scan import PAIRED, PER_ITEM, Options
from memorydesk.cli import _subcommand_parser
from memorydesk.core.errors import BadInput
from memorydesk.core.review.finding import KINDS
from memorydesk.core.review.kinds import Needs, ReviewKind


def test_every_kind_is_named_worded_and_scanned_one_way() -> None:
    assert KINDS == tuple(ReviewKind) and len(set(KINDS)) == len(KINDS)
    assert all(k.words and k.why.endswith(".") for k in ReviewKind)
    assert PER_ITEM | PAIRED == set(ReviewKind) and not PER_ITEM & PAIRED
    assert PAIRED == ReviewKind.needing(Needs.PAIRS) == {ReviewKind.DUPLICATE, ReviewKind.LOSING_CORRECTION}
    assert {k for k in ReviewKind if k.purge} == {ReviewKind.SECRET, ReviewKind.PERSONAL_DATA}
    assert ReviewKind.named("fading") is ReviewKind.FADING and ReviewKind.FADING == "fading"
    with pytest.raises(ValueError, match="'fade' is not a kind of review finding; choose from secret, "):
        ReviewKind.named("fade")


def test_the_scan_and_the_command_line_take_the_kinds_of_the_list() -> None:
    with pytest.raises(BadInput, match="unknown kind 'fade'"):
        Options(kinds=("fade",))
    review = _subcommand_parser(("review",))._subparsers._group_actions[0].choices["review"]
    kind = next(a for a in review._actions if a.dest == "kind")
    assert list(kind.choices) == [k.value for k in ReviewKind]
