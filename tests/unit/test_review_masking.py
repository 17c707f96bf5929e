"""No secret is shown in full or in part outside the fact itself: one masking rule
(``core.review.mask``) for the review's excerpts and evidence, the history's summaries and
everything printed from them. Measured on the evaluation corpus's dev split, whose spans say
which characters must be hidden (the held-out split is never read by a test)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memorydesk.browse.history.event import snippet
from memorydesk.browse.review.items import Item
from memorydesk.browse.review.text import text_findings
from memorydesk.core.review.mask import excerpt, masked
from memorydesk.core.review.secrets import find_secrets, mask_secrets

DEV = Path(__file__).resolve().parents[1] / "fixtures" / "review_eval" / "dev.jsonl"
ITEMS = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines() if line.strip()]
SECRETS = [it for it in ITEMS if "secret" in it["labels"]]


def _pieces(value: str) -> set[str]:
    """Every run of eight characters of a value (one of ten or fewer: the value itself) — a shorter run
    may be an ordinary word of the sentence ("ournis" of a password beside "fournisseur")."""
    n = 8 if len(value) > 10 else len(value)
    return {value[i:i + n] for i in range(len(value) - n + 1)}


def _shows_part(shown: str, values: list[str]) -> list[str]:
    return [v for v in values if any(p in shown for p in _pieces(v))]


def test_excerpts_mask_every_secret_of_the_text_whole_even_when_the_window_cuts_through_one() -> None:
    text = "a AKIAZ3MSJV4WQ5RXB7NE b " + "x" * 50 + " c sk_live_51Hx9Kq2Lm8Np4Rt6Vw3Yz7B"
    spans = [(h.start, h.end, h.masked) for h in find_secrets(text)]
    assert len(spans) == 2
    cut = excerpt(text, 60, 70, around=12, masks=spans)  # the window starts inside neither, ends inside one
    assert "Yz7B" not in cut and "sk_l" not in cut
    assert "AKIA" not in masked(text, spans) and "sk_live" not in masked(text, spans)


@pytest.mark.parametrize("it", SECRETS, ids=lambda it: it["id"])
def test_what_the_review_shows_of_a_secret_fact_hides_every_spanned_value(it) -> None:
    content = it["content"]
    values = [content[s:e] for s, e in it["spans"]]
    found = text_findings(Item("fact", it["id"], it["domain"], (("topic", it["topic"]), ("content", content)),
                               True, False, "fp"))
    assert any(f.kind == "secret" for f in found), it["id"]
    for f in found:
        shown = json.dumps(f.evidence, ensure_ascii=False) + f.title
        assert not _shows_part(shown, values), (it["id"], f.kind, shown)


@pytest.mark.parametrize("it", [it for it in SECRETS if it["labels"] == ["secret"]], ids=lambda it: it["id"])
def test_history_summaries_and_masked_text_hide_every_spanned_secret(it) -> None:
    values = [it["content"][s:e] for s, e in it["spans"]]
    assert not _shows_part(mask_secrets(it["content"]), values)
    assert not _shows_part(snippet(it["topic"], it["content"], it["domain"]), values)


def test_a_conflict_trail_for_a_ticket_masks_the_secrets_in_its_facts() -> None:
    from memorydesk.browse.conflicts.export import to_json, trail_document

    key = "sk_live_51Hx9Kq2Lm8Np4Rt6Vw3Yz7B"
    trail = {"facts": [{"id": "a", "topic": "stripe", "content": f"Payments use {key}."}],
             "lines": [f"fact a said: Payments use {key}."], "decision": {"reason": "kept"}}
    doc = trail_document(trail, exported_by="rita", now=1_700_000_000)
    assert doc["facts"][0]["content"].startswith("Payments use ⟦Stripe Access") and key not in str(doc)
    assert "Yz7B" not in to_json(doc) and "Yz7B" not in " ".join(doc["lines"])
