"""Episodic-link scoring on fact write (DESIGN §3, product ``episodic_graph.dart``)."""

from __future__ import annotations

import pytest

from memorydesk.core.product.relatedness import (
    LINK_STOPWORDS,
    LINK_THRESHOLD,
    entity_overlap,
    extract_entities,
    propose_links,
    relatedness,
    relatedness_score,
    significant_tokens,
)


def test_significant_tokens() -> None:
    assert significant_tokens("The deploy target IS prod-eu, it will move to us-east!") == {
        "deploy", "target", "prod", "move", "east",
    }  # fmt: skip
    # non-ASCII letters are separators; short pieces drop out
    assert significant_tokens("Löschfrist für Verträge") == {"schfrist", "vertr"}
    assert significant_tokens("שלום עולם") == frozenset()


def test_link_stopwords_differ_from_keyword_search() -> None:
    assert {"will", "would", "can", "could", "its"} <= LINK_STOPWORDS
    assert "what" not in LINK_STOPWORDS and "how" not in LINK_STOPWORDS
    assert significant_tokens("what how why") == {"what", "how", "why"}


def test_extract_entities() -> None:
    text = "Auth Service talks to Deploy Target via the API gateway, says Bob."
    assert extract_entities(text) == {"auth service", "deploy target", "bob"}
    # ASCII word boundaries as in ECMAScript: 'é' is not a word character there
    assert extract_entities("éAlpha and Betaé") == {"alpha", "beta"}
    assert extract_entities("API NASA iPhone") == frozenset()
    assert extract_entities("Auth\u00a0Service") == {"auth\u00a0service"}


def test_entity_overlap_by_hand() -> None:
    a = frozenset({"auth service", "bob"})
    b = frozenset({"bob", "alice", "carol"})
    assert entity_overlap(a, b) == 1 / 3
    assert entity_overlap(a, frozenset()) == 0.0


def test_lexical_component_by_hand() -> None:
    # {deploy, target, prod, region} vs {deploy, target, staging}: 2 / 5
    r = relatedness("deploy target prod region", "deploy target staging")
    assert r.lexical == pytest.approx(2 / 5)
    assert r.entity == 0.0 and r.temporal == 0.0
    assert r.score == pytest.approx(0.4)


def test_entity_component_can_win() -> None:
    r = relatedness("billing: Carol Smith approves", "Carol Smith owns invoices")
    # lexical {billing, carol, smith, approves} vs {carol, smith, owns, invoices}: 2/6
    assert r.lexical == pytest.approx(2 / 6)
    assert r.entity == 1.0
    assert r.score == 1.0


def test_capitalised_words_glue_into_one_entity() -> None:
    # A sentence-initial capital joins the name: no entity overlap here.
    assert extract_entities("Ask Carol Smith first.") == {"ask carol smith"}
    assert relatedness("Ask Carol Smith first.", "Carol Smith owns it.").entity == 0.0


def test_temporal_match_is_opt_in() -> None:
    assert relatedness_score("alpha", "omega") == 0.0
    assert relatedness_score("alpha", "omega", temporal_match=True) == 1.0


def test_propose_links_threshold_limit_and_order() -> None:
    new = "deploy target prod region"  # {deploy, target, prod, region}
    pool = [
        ("new", new),  # the new fact itself is skipped
        ("p33", "deploy target staging canary"),  # 2/6, below 0.35
        ("p40", "deploy target staging"),  # 2/5
        ("p75", "deploy target prod"),  # 3/4
        ("p100", "Region prod target deploy!"),  # 4/4
        ("p60", "deploy target prod zone"),  # 3/5
        ("p50", "deploy target eu"),  # 2/4 ('eu' is too short)
        ("p40b", "deploy target beta"),  # 2/5, ties p40 and is cut
    ]
    links = propose_links("new", new, pool)
    assert [(link.target_id, link.weight) for link in links] == [
        ("p100", 1.0),
        ("p75", 0.75),
        ("p60", 0.6),
        ("p50", 0.5),
        ("p40", 0.4),
    ]


def test_propose_links_stops_collecting_at_fifty() -> None:
    new = "alpha beta gamma"
    weak = [(f"w{i}", "alpha beta delta") for i in range(50)]  # 2/4 each
    strong = [("s", "alpha beta gamma!")]  # identical tokens, but read after the cap
    links = propose_links("n", new, weak + strong)
    assert "s" not in {link.target_id for link in links}
    # 50 equal scores go through Dart's unstable quicksort; this order was computed
    # with a direct transliteration of the SDK's sort.dart.
    assert [link.target_id for link in links] == ["w16", "w1", "w2", "w3", "w4"]
    assert propose_links("n", new, strong + weak)[0].target_id == "s"


def test_threshold_is_inclusive() -> None:
    # Jaccard exactly 0.35 is impossible with small sets; entity overlap 1/2 is not.
    assert LINK_THRESHOLD == 0.35
    links = propose_links("n", "Alpha Beta met Gamma", [("x", "Gamma said hi to Delta")])
    # entities {alpha beta, gamma} vs {gamma, delta}: 1/2
    assert [(link.target_id, link.weight) for link in links] == [("x", 0.5)]
