"""Text helpers that behave like the product's Dart string operations."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memorydesk.core.product.text import (
    candidate_text,
    dart_lower,
    dart_trim,
    format_confidence,
    is_remention,
    jaccard,
    remention_key,
    snippet,
    split_whitespace,
    token_jaccard,
    utf16_len,
    whitespace_tokens,
)


def test_whitespace_tokens_lowercase_and_dedupe() -> None:
    assert whitespace_tokens("  Deploy target is PROD\tdeploy\n") == {
        "deploy",
        "target",
        "is",
        "prod",
    }
    assert whitespace_tokens("") == frozenset()
    assert whitespace_tokens(" \u3000 ") == frozenset()


def test_split_uses_ecmascript_whitespace() -> None:
    # U+FEFF separates in the product; U+001C and U+0085 do not (Python's split disagrees).
    assert split_whitespace("a\ufeffb") == ["a", "b"]
    assert split_whitespace("a\x1cb\x85c") == ["a\x1cb\x85c"]
    assert split_whitespace("a\u00a0b\u2003c") == ["a", "b", "c"]


def test_token_jaccard_by_hand() -> None:
    # {deploy, target, is, prod} vs {deploy, target, is, staging}: 3 shared of 5.
    assert token_jaccard("Deploy target is prod", "deploy target is staging") == 3 / 5
    assert token_jaccard("a b", "c d") == 0.0
    assert token_jaccard("", "anything") == 0.0
    assert token_jaccard("same words", "WORDS same") == 1.0
    # punctuation stays part of the token
    assert token_jaccard("prod.", "prod") == 0.0


def test_jaccard_of_sets() -> None:
    assert jaccard({"a", "b", "c"}, {"b", "c", "d", "e"}) == 2 / 5
    assert jaccard(set(), {"a"}) == 0.0


def test_dart_lower_is_per_character() -> None:
    assert dart_lower("İstanbul") == "istanbul"  # Python's str.lower gives 'i̇stanbul'
    assert dart_lower("ΟΔΟΣ") == "οδοσ"  # no final-sigma rule on the Dart VM
    assert dart_lower("Löschfrist") == "löschfrist"


def test_dart_trim() -> None:
    assert dart_trim("\ufeff\u3000 x y \x85\t") == "x y"
    assert dart_trim("\x1cx\x1c") == "\x1cx\x1c"  # not whitespace for Dart


def test_remention_normalisation() -> None:
    assert remention_key("  Deploy Target is PROD \n") == "deploy target is prod"
    assert is_remention("Deploy target is prod", "  deploy TARGET is prod ")
    assert not is_remention("deploy target is prod", "deploy  target is prod")


def test_candidate_text() -> None:
    assert candidate_text("deploy", "target is prod") == "deploy target is prod"


def test_utf16_length() -> None:
    assert utf16_len("abc") == 3
    assert utf16_len("שלום") == 4
    assert utf16_len("😀") == 2
    assert utf16_len("e\u0301") == 2


def test_snippet_short_content_is_trimmed_only() -> None:
    assert snippet("  hello  ") == "hello"
    body = "x" * 200
    assert snippet(body) == body


def test_snippet_cuts_at_200_units() -> None:
    body = "y" * 201
    assert snippet(f"\n{body}\n") == "y" * 200 + "…"


def test_snippet_counts_utf16_units() -> None:
    # 99 emoji = 198 units, then 'ab' → 200 units exactly: no cut.
    assert snippet("😀" * 99 + "ab") == "😀" * 99 + "ab"
    # 100 emoji + 'a' = 201 units: cut after 100 emoji (200 units).
    assert snippet("😀" * 100 + "a") == "😀" * 100 + "…"


def test_snippet_split_surrogate_becomes_replacement_char() -> None:
    out = snippet("a" * 199 + "😀tail")
    assert out == "a" * 199 + "\ufffd…"
    assert utf16_len(out) == 201


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.25, "0.3"),  # exact tie → away from zero
        (0.75, "0.8"),  # exact tie
        (0.35, "0.3"),  # the double is 0.34999999999999997779…
        (0.15, "0.1"),  # 0.14999999999999999445…
        (0.45, "0.5"),  # 0.45000000000000001110…
        (0.55, "0.6"),  # 0.55000000000000004441…
        (0.05, "0.1"),  # 0.05000000000000000277…
        (0.85, "0.8"),
        (0.95, "0.9"),
        (0.9, "0.9"),
        (1.0, "1.0"),
        (0.0, "0.0"),
        (0.04999, "0.0"),
        (0.96, "1.0"),
    ],
)
def test_format_confidence_like_dart(value: float, text: str) -> None:
    assert format_confidence(value) == text


def test_exact_ties_differ_from_python_format() -> None:
    assert f"{0.25:.1f}" == "0.2"
    assert format_confidence(0.25) == "0.3"


def _reference_one_decimal(value: float) -> str:
    exact = Fraction(value) * 10
    floor = exact.numerator // exact.denominator
    rest = exact - floor
    tenths = floor + (1 if rest >= Fraction(1, 2) else 0)
    return f"{tenths // 10}.{tenths % 10}"


@given(st.floats(min_value=0.0, max_value=1.0))
def test_format_confidence_rounds_exact_binary_value(value: float) -> None:
    assert format_confidence(value) == _reference_one_decimal(value)
