"""The product's winner rule, recomputed: hand-built pairs checked against weights written
out here (not taken from the code), ties to the newer, unknown veracity read as stated;
and the rule agrees with what the agent's write path decided."""

from __future__ import annotations

import pytest

from memorydesk.core.product.conflict_rule import Side, decide, num
from memorydesk.core.worddiff import word_diff

# docs/product-format.md, "The product's rules", written out independently of core.product.vocab
WEIGHTS = {"stated": 1.0, "inferred": 0.7, "tool": 0.5, "imported": 0.6, "unknown": 0.8}


def expected_winner(a: tuple, b: tuple) -> str:
    """(confidence, veracity, created_at, order) each; the test's own reading of the rule."""
    def strength(side: tuple) -> float:
        weight = WEIGHTS.get((side[1] or "").lower(), 1.0)  # anything unknown reads as stated
        return side[0] * weight

    if strength(a) == strength(b):
        return "b" if (b[2], b[3]) > (a[2], a[3]) else "a"
    return "a" if strength(a) > strength(b) else "b"


PAIRS = [
    ((0.9, "stated", 100, 1), (0.6, "stated", 200, 2)),  # stronger older wins
    ((0.6, "stated", 100, 1), (0.9, "stated", 200, 2)),  # stronger newer wins
    ((0.8, "stated", 100, 1), (0.8, "stated", 200, 2)),  # tie: the newer
    ((0.8, "stated", 200, 1), (0.8, "stated", 100, 2)),  # tie: the newer is A this time
    ((0.8, "stated", 100, 5), (0.8, "stated", 100, 2)),  # tie in the same second: written later wins
    ((1.0, "tool", 100, 1), (0.6, "stated", 200, 2)),  # 0.5 < 0.6
    ((1.0, "imported", 100, 1), (0.6, "stated", 200, 2)),  # 0.6 == 0.6: tie, newer
    ((0.9, "inferred", 100, 1), (0.7, "unknown", 200, 2)),  # 0.63 > 0.56
    ((0.8, "inferred", 100, 1), (0.56, "stated", 200, 2)),  # 0.5599999999999999 < 0.56: exact doubles
    ((0.5, "guess", 100, 1), (0.6, "inferred", 200, 2)),  # unknown string = stated: 0.5 > 0.42
    ((0.5, "", 100, 1), (0.5, None, 200, 2)),  # '' and NULL read as stated: tie, newer
    ((0.9, "TOOL", 100, 1), (0.5, "Inferred", 200, 2)),  # case-insensitive: 0.45 > 0.35
]


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_decide_matches_an_independent_reading_of_the_rule(a: tuple, b: tuple) -> None:
    d = decide(Side(*a), Side(*b))
    assert d.winner == expected_winner(a, b)
    sa, sb = a[0] * WEIGHTS.get((a[1] or "").lower(), 1.0), b[0] * WEIGHTS.get((b[1] or "").lower(), 1.0)
    assert d.tie == (sa == sb)
    assert (d.a.strength, d.b.strength) == (sa, sb)


def test_unknown_veracity_is_explained_as_read_as_stated() -> None:
    d = decide(Side(0.5, "guess", 1), Side(0.6, "inferred", 2))
    assert d.a.veracity_read_as == "stated" and d.a.weight == 1.0
    lines = d.lines()
    assert lines[0] == "A: confidence 0.500 × weight 1.000 [veracity guess (read as stated)] = 0.500"
    assert lines[1] == "B: confidence 0.600 × weight 0.700 [veracity inferred] = 0.420"
    assert lines[2] == "A is stronger, so A wins."


def test_a_near_tie_shows_enough_digits_to_be_honest() -> None:
    d = decide(Side(0.8, "inferred", 1), Side(0.56, "stated", 2))
    assert d.winner == "b" and not d.tie
    assert "0.5599999999999999" in d.lines()[0]  # 0.560 would hide why B won
    assert num(0.5) == "0.500" and num(1 / 3) == repr(1 / 3)


def test_a_tie_names_the_rule() -> None:
    d = decide(Side(0.8, "stated", 100), Side(0.8, "stated", 200))
    assert d.tie and d.winner == "b" and d.newer == "b"
    assert d.lines()[-1] == "Equal strengths: the newer fact wins, so B."


def test_the_rule_agrees_with_what_the_write_path_decided(ws, svc) -> None:
    """Each pair written through the service: the recorded winner is what ``decide`` gives."""
    from memorydesk.browse.conflicts.listing import ConflictQuery, iter_lines

    for i, (a, b) in enumerate(PAIRS):
        if a[2] > b[2] or a[3] > b[3]:
            continue  # the service writes in time order
        topic = f"t{i}"
        svc.propose_fact(domain="d", topic=topic, content="alpha beta gamma delta", confidence=a[0],
                         veracity=a[1] or "stated", now=1000 + a[2])
        svc.propose_fact(domain="d", topic=topic, content="alpha beta gamma epsilon", confidence=b[0],
                         veracity=b[1] or "stated", now=1000 + b[2])
    lines = list(iter_lines(ws, ConflictQuery()))
    assert len(lines) >= 8
    for line in lines:
        assert line.rule_winner == line.recorded_winner, line


def test_word_diff_marks_changed_words_and_keeps_the_text() -> None:
    a = "Staging runs in eu-west-1 on  two nodes"
    b = "Staging runs in eu-central-1 on three nodes and autoscales"
    pa, pb = word_diff(a, b)
    assert "".join(p.text for p in pa) == a and "".join(p.text for p in pb) == b
    assert [p.text for p in pa if p.kind == "removed"] == ["eu-west-1", "two"]
    assert [p.text for p in pb if p.kind == "added"] == ["eu-central-1", "three", "and autoscales"]
    assert {p.kind for p in pa} <= {"same", "removed"} and {p.kind for p in pb} <= {"same", "added"}
    same, _ = word_diff("x y z", "x y z")
    assert [p.kind for p in same] == ["same"]
