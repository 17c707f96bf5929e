"""Query intent classification and biases (DESIGN §3 "Hybrid details")."""

from __future__ import annotations

import pytest

from memorydesk.core.product.intent import INTENT_BIASES, IntentCategory, classify_intent, intent_score

T, F, E, P, R, G = (
    IntentCategory.TEMPORAL,
    IntentCategory.FACTUAL,
    IntentCategory.ENTITY,
    IntentCategory.PREFERENCE,
    IntentCategory.PROCEDURAL,
    IntentCategory.GENERAL,
)


@pytest.mark.parametrize(
    ("query", "category", "count"),
    [
        ("what changed yesterday", T, 1),
        ("deploys on Friday", T, 1),
        ("release in March", T, 1),
        ("incident 2024-03-15", T, 1),
        ("notes from next month", T, 1),
        ("outage 3 days ago", T, 2),  # 'ago' word + '<n> days ago'
        ("rollout 2 weeks from now", T, 1),
        ("what is the deploy target", F, 1),
        ("who  is on call", F, 1),
        ("define idempotency", F, 1),
        ("how many replicas", F, 1),
        ("tell me about Kafka", E, 2),  # the phrase, and 'about kafka'
        ("anything regarding billing", E, 1),
        ("which editor do I prefer", P, 1),
        ("should i pick postgres", P, 2),
        ("do you recommend a choice", P, 2),
        ("how to rotate keys", R, 1),
        ("deploy workflow steps", R, 2),  # 'workflow' and 'deploy'; 'steps' is not 'step'
        ("database schema", G, 0),
        ("", G, 0),
    ],
)
def test_each_category(query: str, category: IntentCategory, count: int) -> None:
    intent = classify_intent(query)
    assert intent.category is category
    if category is G:
        assert intent.confidence == 0.0
    else:
        assert intent.match_counts[category] == count
        assert intent.confidence == min(1.0, 0.3 + count * 0.15)


def test_a_pattern_counts_once() -> None:
    intent = classify_intent("when when when before after")  # one pattern, many hits
    assert intent.match_counts[T] == 1
    assert intent.confidence == 0.3 + 0.15


def test_whole_words_only() -> None:
    assert classify_intent("lastly the snowdays").category is G  # no 'last', no 'day'
    assert classify_intent("unlike the others").category is G
    assert classify_intent("rerun").category is G


def test_tie_keeps_earlier_category() -> None:
    # temporal 1 ('last') vs procedural 1 ('deploy'): temporal is listed first.
    assert classify_intent("last deploy").category is T
    # factual 1 vs preference 1: factual first.
    assert classify_intent("what is best").category is F
    # entity 1 vs procedural 1: entity first.
    assert classify_intent("regarding install").category is E
    # preference 1 vs procedural 1: preference first.
    assert classify_intent("prefer deploy").category is P


def test_higher_count_beats_order() -> None:
    # temporal 1 ('today') vs procedural 2 ('how to', 'deploy').
    intent = classify_intent("how to deploy today")
    assert intent.category is R
    assert intent.match_counts == {T: 1, F: 0, E: 0, P: 0, R: 2}


def test_score_saturates_at_one() -> None:
    assert intent_score(0) == 0.3
    assert intent_score(4) == 0.3 + 4 * 0.15
    assert intent_score(5) == 1.0
    assert intent_score(6) == 1.0
    query = "when last week on monday in may 2024-01-02, 3 days ago"
    intent = classify_intent(query)
    assert intent.match_counts[T] == 6
    assert intent.confidence == 1.0


def test_case_insensitive_and_unicode_whitespace() -> None:
    assert classify_intent("WHAT IS this").category is F
    assert classify_intent("what\u00a0is this").category is F  # JS \s includes NBSP


def test_unicode_digits_are_not_dates() -> None:
    # ECMAScript \d is ASCII only: Arabic-Indic digits are no date.
    assert classify_intent("٢٠٢٤-٠١-٠٥").category is G


def test_bias_table() -> None:
    table = {c: tuple(b) for c, b in INTENT_BIASES.items()}
    assert table == {
        T: (0.6, 1.5, 0.8),
        F: (1.0, 1.2, 0.9),
        E: (1.1, 1.0, 1.3),
        P: (0.9, 0.8, 1.5),
        R: (1.3, 0.9, 0.7),
        G: (1.0, 1.0, 1.0),
    }
    assert classify_intent("how to deploy").bias == (1.3, 0.9, 0.7)
    assert classify_intent("hello").bias == (1.0, 1.0, 1.0)
