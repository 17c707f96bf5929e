"""Times a person types (``core.moments``): RFC 3339 UTC or unix seconds, one sentence otherwise."""

from __future__ import annotations

import pytest

from memorydesk.core.errors import BadInput
from memorydesk.core.moments import check_range, parse_moment, utc_text


def test_both_forms_read_to_the_same_second() -> None:
    assert parse_moment("2026-11-12T14:00:00Z") == 1794492000
    assert parse_moment("1794492000") == 1794492000
    assert parse_moment(" 2026-11-12T14:00:00.75Z ") == 1794492000
    assert utc_text(1794492000) == "2026-11-12T14:00:00Z"


@pytest.mark.parametrize("text, words", [
    ("yesterday", "not an RFC 3339 time"), ("2026-11-12T14:00:00+01:00", "not in UTC"),
    ("2026-13-12T14:00:00Z", "not a valid date"), ("", "no time given"), ("999999999999", "after the year 9999"),
])
def test_bad_times_are_one_sentence(text: str, words: str) -> None:
    with pytest.raises(BadInput, match=words) as caught:
        parse_moment(text, "--since")
    assert str(caught.value).startswith("--since") and "\n" not in str(caught.value)


def test_a_range_that_ends_before_it_starts() -> None:
    check_range(1, 1)
    with pytest.raises(BadInput, match="is after --until"):
        check_range(2, 1)
