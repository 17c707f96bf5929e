"""Personal data in memory text: e-mail addresses, phone numbers (parsed and validated by
phonenumbers), IBANs and payment card numbers (checksums by python-stdnum).

Phone numbers: written internationally (``+49 30 …``) they are found for any country;
written nationally they are read as the ``regions`` given (default US and GB), and only
numbers phonenumbers calls *valid* count. Card numbers must pass the Luhn check, have
13–19 digits and start as a card network's numbers do; IBANs must pass their country's
length and the mod-97 check. Each is returned masked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memorydesk.core.review.mask import excerpt, mask

EMAIL = re.compile(r"(?<![\w.+:/-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24}(?![\w-])")
IBAN_CANDIDATE = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b")
CARD_CANDIDATE = re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])")
_DIGITS7 = re.compile(r"\d(?:[\s().\-/]*\d){6,}")
_EXAMPLE_DOMAINS = ("example.com", "example.org", "example.net")
_CARD_PREFIXES = (("4",), ("51", "52", "53", "54", "55"), tuple(str(n) for n in range(2221, 2721)),
                  ("34", "37"), ("6011", "65", "644", "645", "646", "647", "648", "649"),
                  ("35",), ("36", "300", "301", "302", "303", "304", "305", "38"), ("62",))
REGIONS = ("US", "GB")


@dataclass(frozen=True)
class PersonalHit:
    type: str  # email, phone, iban, card
    start: int
    end: int
    masked: str
    excerpt: str
    detail: str = ""  # e.g. the phone number's country


def _hit(text: str, kind: str, start: int, end: int, detail: str = "") -> PersonalHit:
    shown = mask(text[start:end]) if kind != "email" else _mask_email(text[start:end])
    return PersonalHit(kind, start, end, shown, excerpt(text, start, end, replace=(start, end, shown)), detail)


def _mask_email(address: str) -> str:
    local, _, domain = address.partition("@")
    return f"{local[:1]}•••@{domain}"


def find_personal(text: str, regions: tuple[str, ...] = REGIONS) -> list[PersonalHit]:
    if not text:
        return []
    out: list[PersonalHit] = []
    taken: list[tuple[int, int]] = []
    if "@" in text:
        for m in EMAIL.finditer(text):
            if m.group().lower().rsplit("@", 1)[1].endswith(_EXAMPLE_DOMAINS):
                continue
            out.append(_hit(text, "email", m.start(), m.end()))
            taken.append(m.span())
    if not _DIGITS7.search(text):
        return out
    out += _ibans(text, taken)
    out += _cards(text, taken)
    out += _phones(text, regions, taken)
    return sorted(out, key=lambda h: h.start)


def _overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(span[0] < b and a < span[1] for a, b in taken)


def _ibans(text: str, taken: list[tuple[int, int]]) -> list[PersonalHit]:
    from stdnum import iban

    out = []
    for m in IBAN_CANDIDATE.finditer(text):
        if _overlaps(m.span(), taken) or not iban.is_valid(m.group()):
            continue
        out.append(_hit(text, "iban", m.start(), m.end(), m.group()[:2]))
        taken.append(m.span())
    return out


def _cards(text: str, taken: list[tuple[int, int]]) -> list[PersonalHit]:
    from stdnum import luhn

    out = []
    for m in CARD_CANDIDATE.finditer(text):
        digits = re.sub(r"\D", "", m.group())
        if _overlaps(m.span(), taken) or not 13 <= len(digits) <= 19 or len(set(digits)) < 3:
            continue
        if not any(digits.startswith(p) for group in _CARD_PREFIXES for p in group):
            continue
        if not luhn.is_valid(digits):
            continue
        out.append(_hit(text, "card", m.start(), m.end()))
        taken.append(m.span())
    return out


_PHONE_CANDIDATE = re.compile(r"(?<![\w+\-:/.#])(?:\+|00)?\(?\d[\d\s().\-/]{5,18}\d(?![\w\-:/])")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$|^\d{1,2}/\d{1,2}/\d{2,4}$")


def _phones(text: str, regions: tuple[str, ...], taken: list[tuple[int, int]]) -> list[PersonalHit]:
    """Stretches that look like phone numbers, each parsed by phonenumbers (international
    form for any country, else as each of ``regions``) and kept when it is a valid number."""
    import phonenumbers

    out = []
    for m in _PHONE_CANDIDATE.finditer(text):
        raw = m.group().strip()
        digits = re.sub(r"\D", "", raw)
        if not 7 <= len(digits) <= 15 or _DATE.match(raw) or _overlaps(m.span(), taken):
            continue
        number = _parse(phonenumbers, raw, regions)
        if number is None:
            continue
        country = phonenumbers.region_code_for_number(number) or "?"
        out.append(_hit(text, "phone", m.start(), m.start() + len(m.group().rstrip()), country))
        taken.append(m.span())
    return out


def _parse(phonenumbers, raw: str, regions: tuple[str, ...]):
    tries = [None] if raw.startswith(("+", "00")) else list(regions)
    for region in tries:
        try:
            number = phonenumbers.parse(raw if region or raw.startswith("+") else "+" + raw[2:], region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_valid_number(number):
            return number
    return None
