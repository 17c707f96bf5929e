"""The per-text kinds for one item: secrets, personal data, injected instructions and hidden text.

An item's fields are scanned as one text (topic, a line break, content), each hit given
back to the field it lies in, so every rule runs once per item.
"""

from __future__ import annotations

from memorydesk.browse.review.items import Item
from memorydesk.core.review.finding import Finding
from memorydesk.core.review.injection import find_injection
from memorydesk.core.review.mask import excerpt
from memorydesk.core.review.personal import find_personal, region_words
from memorydesk.core.review.secrets import find_secrets

MAX_SCANNED = 1_000_000  # characters of one item; the rest is noted, not scanned
PERSONAL_WORDS = {"email": "an e-mail address", "phone": "a phone number", "iban": "an IBAN", "card": "a card number",
                  "national_id": "a national identifier", "address": "a home address", "birth_date": "a date of birth",
                  "health": "a person's health"}


def _detector(plugin: str) -> str:
    if plugin == "Provider rules":
        return "the provider rule set (Kingfisher)"
    if plugin == "Prose rules":
        return "the desk's rules for secrets written in prose"
    return f"detect-secrets ({plugin})"


def _state(item: Item) -> str:
    return "quarantined" if item.quarantined else "open"


def _joined(item: Item) -> tuple[str, list[tuple[int, str]]]:
    parts, starts, at = [], [], 0
    for name, text in item.fields:
        starts.append((at, name))
        parts.append(text)
        at += len(text) + 1
    return "\n".join(parts), starts


def _field(starts: list[tuple[int, str]], offset: int) -> str:
    name = starts[0][1]
    for at, field in starts:
        if offset >= at:
            name = field
    return name


def text_findings(item: Item) -> list[Finding]:
    text, starts = _joined(item)
    if not text.strip():
        return []
    note: dict[str, str] = {}
    if len(text) > MAX_SCANNED:
        note = {"note": f"only the first {MAX_SCANNED:,} of {len(text):,} characters were scanned"}
        text = text[:MAX_SCANNED]
    if "\ufffd" in text:
        note["encoding"] = "the stored text is not valid UTF-8 (shown with U+FFFD where bytes are invalid)"
    reaches_all = item.item_kind == "policy" and item.active
    state = _state(item)
    out: list[Finding] = []
    secrets = find_secrets(text)
    personal = [h for h in find_personal(text) if not any(h.start < s.end and s.start < h.end for s in secrets)]
    # every excerpt masks every secret in the text, whole, and the personal data beside it
    masks = [(h.start, h.end, h.masked) for h in secrets] + [(h.start, h.end, h.masked) for h in personal]
    for hit in secrets:
        out.append(Finding(
            "secret", "critical" if reaches_all else "high", item.item_kind, item.id, _field(starts, hit.start),
            {"rule": hit.plugin, "type": hit.type, "masked": hit.masked,
             "excerpt": excerpt(text, hit.start, hit.end, masks=masks),
             "explanation": f"{_detector(hit.plugin)} reads this as {hit.type}", **note},
            state, item.domain, f"{hit.type}: {hit.masked}", item.fingerprint))
    for hit in personal:  # digits inside a secret are the secret's, not a phone number
        what = PERSONAL_WORDS[hit.type]
        shown = excerpt(text, hit.start, hit.end, masks=masks)
        out.append(Finding(
            "personal_data", "medium", item.item_kind, item.id, _field(starts, hit.start),
            {"rule": hit.type, "type": hit.type, "masked": hit.masked, "excerpt": shown,
             "country": hit.detail, "explanation": what + (f" ({region_words(hit.detail)})" if hit.type == "phone"
                                                            else f" ({hit.detail})" if hit.detail else ""), **note},
            state, item.domain, f"{what}: {hit.masked}", item.fingerprint))
    for hit in find_injection(text):
        shown = excerpt(text, hit.start, hit.end, masks=masks)
        evidence = {"rule": hit.rule, "explanation": hit.explanation, "excerpt": shown, **note}
        if hit.shown:
            evidence["characters"] = hit.shown
        out.append(Finding(
            "injection", "critical" if reaches_all else "high", item.item_kind, item.id, _field(starts, hit.start),
            evidence, state, item.domain, f"{hit.rule.replace('_', ' ')}: {shown[:80]}", item.fingerprint))
    return out
