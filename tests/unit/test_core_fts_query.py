"""The product's FTS5 keyword query builder (CC_SCHEMA §5)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memorydesk.core.product.fts_query import FTS_STOPWORDS, build_fts_query, keyword_terms, scoped_match

WS_ID = "3f2b9c1e-7d4a-4b8e-9a61-0c5d2e8f4a17"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("deploy target", "deploy* OR target*"),
        ("What's my name?", "name*"),  # what, s, my dropped
        ("Deploy the DEPLOY target, deploy!", "deploy* OR target*"),  # dedupe, order kept
        ('"release notes" AND NOT draft*', "release* OR notes* OR not* OR draft*"),
        ("topic:deploy NEAR(a b) ^start", "topic* OR deploy* OR near* OR start*"),
        ("x y 7 z9", "z9*"),  # tokens shorter than 2 dropped
        ("Löschfrist", "schfrist*"),  # ö is a separator, then 'l' is too short
        ("Löschfrist für Verträge", "schfrist* OR vertr* OR ge*"),
        ("über", "ber*"),
        ("C++ and C#", None),
        ("deploy_target", "deploy* OR target*"),
        ("v2.1-beta", "v2* OR beta*"),
    ],
)
def test_build_fts_query(query: str, expected: str | None) -> None:
    assert build_fts_query(query) == expected


@pytest.mark.parametrize(
    "query",
    ["מדיניות שמירת נתונים", "データ保持", "", "   ", "the and of", "?!", "I'm"],
)
def test_queries_without_terms(query: str) -> None:
    assert build_fts_query(query) is None
    assert keyword_terms(query) == []
    assert scoped_match(query, WS_ID) is None


def test_stopword_list_is_the_products() -> None:
    assert len(FTS_STOPWORDS) == 63
    assert {"what", "whose", "mine", "ll", "ve", "been"} <= FTS_STOPWORDS
    # words one might expect but the product keeps
    assert not {"not", "will", "would", "can", "its", "about"} & FTS_STOPWORDS
    assert build_fts_query("it will not be done") == "will* OR not* OR done*"


def test_dotted_capital_i_lowercases_like_the_dart_vm() -> None:
    assert build_fts_query("İstanbul office") == "istanbul* OR office*"


def test_scoped_match() -> None:
    assert scoped_match("deploy target", WS_ID) == (
        "({topic content} : (deploy* OR target*)) "
        'AND (workspace_id : "3f2b9c1e-7d4a-4b8e-9a61-0c5d2e8f4a17")'
    )


def test_scoped_match_strips_quotes_and_handles_odd_ids() -> None:
    assert scoped_match("deploy", 'ab"c') == '({topic content} : (deploy*)) AND (workspace_id : "abc")'
    assert scoped_match("deploy", "---") == "{topic content} : (deploy*)"
    assert scoped_match("deploy", "") == "{topic content} : (deploy*)"


_TERM = re.compile(r"[a-z0-9]{2,}\*")


@given(st.text())
def test_query_has_no_fts_syntax_but_star_and_or(text: str) -> None:
    query = build_fts_query(text)
    if query is None:
        assert keyword_terms(text) == []
        return
    parts = query.split(" OR ")
    assert all(_TERM.fullmatch(p) for p in parts)
    terms = [p[:-1] for p in parts]
    assert len(set(terms)) == len(terms)
    assert not set(terms) & FTS_STOPWORDS


@given(st.text(alphabet=st.characters(codec="ascii")))
def test_every_long_ascii_word_survives(text: str) -> None:
    words = re.sub(r"[^a-z0-9]", " ", text.lower()).split()
    expected = list(dict.fromkeys(w for w in words if len(w) >= 2 and w not in FTS_STOPWORDS))
    assert keyword_terms(text) == expected
