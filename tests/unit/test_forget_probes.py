"""The forget check's pure rules (``core.forget``): what counts as holding a fact's text, the
task that names it, how the index splits it, and the receipt's round trip."""

from __future__ import annotations

import json

from memorydesk.core.forget import probes
from memorydesk.core.forget.receipt import CANNOT_TELL, GONE, STILL, Answer, Found, Receipt
from memorydesk.core.product.fts_query import keyword_terms


def test_a_secret_in_a_sentence_is_looked_for_on_its_own() -> None:
    content = "The staging Stripe key is sk_live_51Hq8ZtKw2YjDarjT1zdp7dc and rotates weekly"
    spans = probes.detected_spans(content)
    assert "sk_live_51Hq8ZtKw2YjDarjT1zdp7dc" in spans
    # the whole content holds the key: looking for the key alone finds every place the content is in
    assert probes.fact_needles(content, spans, parts=False) == ["sk_live_51hq8ztkw2yjdarjt1zdp7dc"]
    # and its parts, five words in a row, each that does not hold the key (a place quoting them holds it)
    assert probes.fact_needles(content, spans) == ["the staging stripe key is", "sk_live_51hq8ztkw2yjdarjt1zdp7dc"]


def test_identifier_words_and_the_whole_content() -> None:
    assert probes.identifier_words("ask (jane.doe@acme.io) about build 7f3a9c2e1, not foo") == \
        ["jane.doe@acme.io", "7f3a9c2e1"]
    assert probes.fact_needles("Deploys go out on weekdays") == ["deploys go out on weekdays"]
    assert probes.fact_needles("Be kind") == []  # too short to look for without matching by chance
    assert probes.minimal(["ABC-123-XYZ", "abc-123-xyz and more", "other"]) == ["other", "abc-123-xyz"]


def test_holding_folds_ascii_letters_only_as_sqlite_lower_does() -> None:
    assert probes.holds("Mail JANE.DOE@ACME.IO now", ["jane.doe@acme.io"])
    assert probes.fold("ÄRGER Straße") == "Ärger straße"  # SQLite's lower() leaves non-ASCII letters alone
    assert not probes.holds("ärger", [probes.fold("ÄRGER")])


def test_the_task_naming_it_adds_no_keyword_term() -> None:
    task = probes.task_naming("stripe staging key")
    assert len(task) >= 20 and keyword_terms(task) == keyword_terms("stripe staging key")


def test_the_rarest_terms_come_first_and_unknown_terms_count_as_rarest() -> None:
    assert probes.rarest(["stripe", "key", "staging", "sk"], {"stripe": 40, "key": 900, "staging": 12}, 3) == \
        ["sk", "staging", "stripe"]


def test_index_tokens_follow_unicode61() -> None:
    assert probes.index_tokens("sk_live_51Hq8 Löschfrist—Müller") == ["sk", "live", "51hq8", "loschfrist", "muller"]


def test_byte_needles_of_a_typed_text_cover_its_cases() -> None:
    assert probes.byte_needles([], ["Jane Doe"]) == [b"Jane Doe", b"JANE DOE", b"jane doe"]


def test_a_receipt_round_trips_and_its_markdown_holds_no_text() -> None:
    answers = (Answer("search.keyword.topic", "keyword search for its topic", "agent", STILL,
                      (Found("fact", ("f-2",)),), "returns 1 fact(s)"),
               Answer("wal", "the write-ahead log", "file", GONE, why="the log is empty"),
               Answer("notes", "agents' notes", "file", CANNOT_TELL, why="its text is not known here"))
    receipt = Receipt("fc-1", 1_796_000_000.0, "ws-1", "team.db", "1.2/3", {"fact_ids": ["f-1"]}, answers,
                      versions=("f-1", "f-0"), neighbours=("f-9",), elapsed_ms=812.0, desk_version="0.9")
    doc = receipt.to_json()
    assert Receipt.from_json(json.loads(json.dumps(doc))).to_json() == doc
    assert doc["verdict"] == STILL and not doc["gone_everywhere"]
    assert receipt.summary() == "fact f-1: still returned by 1 of 3 paths; 1 path could not tell"
    md = receipt.to_markdown()
    assert "| keyword search for its topic | still returns it | fact f-2 | returns 1 fact(s) |" in md
    assert "| agents' notes | cannot tell | — | its text is not known here |" in md
    text = Receipt("fc-2", 0.0, "ws", "f.db", "", {"text_chars": 20}, answers[1:2])
    assert text.gone_everywhere and text.summary() == "the typed text (20 characters): gone from all 1 paths"
