"""Personal data in memory text: a person's e-mail address, phone number, national identifier,
home address or date of birth, IBAN and payment card number.

- **E-mail**: an address whose local part names a person; a team's or a role's address
  (``oncall@``, ``noreply@``, ``security@``, ``billing-team@``, …) is not personal data,
  and neither are the documentation domains (``example.com``).
- **Phone numbers**, parsed and validated by phonenumbers: written internationally
  (``+49 30 …``, ``0049 …``) for any country; written nationally (``030 12345678``,
  ``06 12 34 56 78``, ``(11) 98765-4321``) for the countries in ``REGIONS`` when the number
  is written as phone numbers are (grouped, a leading 0 or an area code in brackets, or the
  North-American 3-3-4 form) or a word says it is a phone number. A run of digits alone
  (a build number, a unix time) is not taken for one.
- **National identifiers**, validated by python-stdnum (``identifiers``).
- **Home address and date of birth** (``whereabouts``).
- **IBANs** (country length and mod-97) and **card numbers** (Luhn, 13–19 digits, a card
  network's prefix) by python-stdnum.

Each is returned with its span and a masked form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memorydesk.core.review.identifiers import EXAMPLES as _EXAMPLE_IDS
from memorydesk.core.review.identifiers import find_identifiers, find_passports
from memorydesk.core.review.mask import excerpt, mask_personal
from memorydesk.core.review.whereabouts import find_health, find_whereabouts

EMAIL = re.compile(r"(?<![\w.+:-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24}(?![\w-])")
IBAN_CANDIDATE = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b")
CARD_CANDIDATE = re.compile(r"(?<![\d+-])(?:\d[ -]?){12,18}\d(?![\d-])")
_EXAMPLE_DOMAIN = re.compile(r"(?i)(?:^|\.)(?:example|beispiel|exemple|ejemplo|exemplo|esempio|voorbeeld)\.[a-z.]+$"
                             r"|\.(?:invalid|test|example|localhost|local)$|^localhost$")
#: accounts on a machine (``git@github.com:…``, ``ubuntu@bastion``), not people
_MACHINE_USERS = {"git", "ubuntu", "root", "ec2-user", "centos", "debian", "admin", "deploy", "jenkins", "runner",
                  "pi", "postgres", "www-data", "nobody", "user", "ansible", "vagrant", "core", "azureuser"}
_CARD_PREFIXES = (("4",), ("51", "52", "53", "54", "55"), tuple(str(n) for n in range(2221, 2721)),
                  ("34", "37"), ("6011", "65", "644", "645", "646", "647", "648", "649"),
                  ("35",), ("36", "300", "301", "302", "303", "304", "305", "38"), ("62",))
#: national forms are read as these countries' numbers (international forms: any country)
REGIONS = ("US", "GB", "DE", "FR", "ES", "IT", "NL", "BE", "CH", "AT", "PL", "SE", "NO", "DK", "FI", "PT", "IE",
           "CZ", "GR", "TR", "RU", "UA", "BR", "MX", "AR", "CO", "CL", "JP", "CN", "KR", "IN", "AU", "NZ", "CA",
           "ZA", "IL", "SG", "HK", "TW", "ID", "PH", "VN", "TH", "MY", "NG", "EG", "SA", "AE")
#: local parts that name a team, a role or a machine, not a person
ROLE_LOCAL = re.compile(
    r"(?i)^(?:[a-z]+[._-])?(?:oncall|on-call|noreply|no-reply|donotreply|do-not-reply|security|secops|support|help|"
    r"helpdesk|servicedesk|admin|administrator|root|postmaster|hostmaster|webmaster|abuse|info|contact|team|ops|"
    r"devops|sre|alerts?|alerting|monitoring|billing|invoices?|accounts?|accounting|finance|payments?|payroll|hr|"
    r"people|recruiting|careers|jobs|sales|marketing|press|media|legal|privacy|dpo|compliance|it|dev|developers?|"
    r"engineering|eng|platform|infra|infrastructure|releases?|release-managers?|notifications?|notify|updates?|"
    r"news|newsletter|hello|office|reception|service|feedback|bugs?|issues?|status|pagerduty|incidents?|ci|build|"
    r"builds|bot|robot|automation|deploy|deployments?|backup|reports?|data|analytics|audit|qa|test|tests|mailer|"
    r"mail|list|lists|group|everyone|all|staff|owners?|maintainers?|community|partners?|vendors?|procurement|"
    r"orders?|shipping|returns|customer-?care|customers?|customer-?success|cs|it-?support|tech|noc|soc|cert|psirt|"
    r"escalations?|triage|announce|announcements|bounces?|accounts-?receivable|accounts-?payable|receivables?|payable"
    r"s?|"
    r"buchhaltung|rechnung(?:en)?|datenschutz|kontakt|anfragen|vertrieb|personal|rgpd|gdpr|dsgvo|compta|comptabilite|"
    r"facturation|ventas|contacto|soporte|atendimento|privacidade|faturamento|facturen|klantenservice|boekhouding|"
    r"phishing|spam|postmaster|mailer-daemon|partners?|investors?|ir|events?|talent|wellbeing|benefits|travel|"
    r"facilities|reception|frontdesk|office-?manager)(?:[._-](?:team|group|list|alerts?|desk|[a-z]{2,3}|\d+))*$")
_PHONE_CANDIDATE = re.compile(r"(?<![A-Za-z0-9_+\-:/.#])(?:\+|00)?\(?\d[\d\s().\-/]{5,18}\d(?![\w\-:/]|\.\d)")
_DATE = re.compile(r"^\d{4}[-./]\d{1,2}[-./]\d{1,2}$|^\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}$|^\d{1,2}:\d{2}")
#: a calendar date anywhere in a stretch (ISO 2026-11-03, 03.11.2026, 03/11/2026): a date, never part of a phone number
_HAS_DATE = re.compile(r"(?<!\d)(?:(?:19|20)\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
                       r"|(?:0?[1-9]|[12]\d|3[01])[./](?:0?[1-9]|1[0-2])[./](?:19|20)\d\d)(?!\d)")
_VERSION = re.compile(r"^\d+(?:\.\d+){2,}$")
_ANY_DIGIT = re.compile(r"\d")
_NANP = re.compile(r"^\(?\d{3}\)?[-. ]\d{3}[-. ]\d{4}$")
#: a company's line, not a person's: switchboards, hotlines, offices, press
_BUSINESS_LINE = re.compile(
    r"(?i)\b(?:reception|switchboard|hotline|helpline|office|headquarters|hq|press|imprint|main\s+line|front\s+desk|"
    r"customer\s+(?:service|support|care)|support\s+line|service\s+line|toll[- ]free|freephone|call\s+cent(?:er|re)|"
    r"zentrale|empfang|kundenservice|hotline|standard|accueil|agence|centralita|atención\s+al\s+cliente|"
    r"numero\s+verde|centralino|centrala|biuro|sede|oficina|escritório|kantoor|büro|bureau)\b|代表|受付|总机|客服")
_NOT_PHONE = re.compile(r"(?i)\b(?:run|build|job|pipeline|order|invoice|ticket|case|ref|reference|version|release|"
                        r"tracking|serial|batch|lot|id|no\.?|nr\.?|nip|regon|krs|vat|ust-?idnr|siret|siren|cnpj|cif|"
                        r"nif|"
                        r"ein|abn|kvk|duns|lei|eori|ean|gtin|isbn|imei|sku|part|model|asset|po|account|konto|"
                        r"steuernummer|handelsregister|hrb)\s*[#:]?\s*$|#\s*$")
#: a company's or a product's number, named as such: not a phone number whatever its grouping
_ID_WORD = re.compile(r"(?i)\b(?:nip|regon|krs|vat|ust-?idnr|siret|siren|cnpj|cif|nif|ein|abn|kvk|duns|lei|eori|ean|"
                      r"gtin|"
                      r"isbn|imei|sku|steuernummer|handelsregister|hrb|company\s+(?:number|id|registration))\b")
_TEST_CARD = re.compile(r"(?i)\b(?:test|sandbox|demo|dummy|fake|example|staging|simulat\w*|3-?d\s+secure)\b")
_PHONE_CUES = re.compile(
    r"(?i)\b(?:phone|tel|telephone|call|ring|mobile|cell|fax|sms|text|whatsapp|signal|hotline|reach\s+(?:him|her|them)|"
    r"handy|telefon|telefonnummer|rufnummer|mobil|t[ée]l[ée]phone|t[ée]l|portable|num[ée]ro|tel[ée]fono|m[óo]vil|"
    r"celular|telefone|telemóvel|telefoon|mobiel|bellen|telefonu|komórka|numer|cellulare|numero|puhelin|mobilnummer|"
    r"телефон|тел|n[úu]mero|contacto|contact|contatto|kontakt|emergency)\b|電話|携帯|电话|手机|전화|휴대폰|טלפון|נייד")


@dataclass(frozen=True)
class PersonalHit:
    type: str  # email, phone, national_id, address, birth_date, iban, card
    start: int
    end: int
    masked: str
    excerpt: str
    detail: str = ""  # e.g. the phone number's country, the identifier's name


def _mask_email(address: str) -> str:
    return f"⟦e-mail address · {len(address)} chars⟧"


def is_role_address(address: str) -> bool:
    local, _, domain = address.partition("@")
    return ROLE_LOCAL.match(local) is not None


def find_personal(text: str, regions: tuple[str, ...] = REGIONS) -> list[PersonalHit]:
    if not text:
        return []
    found: list[tuple[str, int, int, str]] = []  # type, start, end, detail
    taken: list[tuple[int, int]] = []

    def add(kind: str, start: int, end: int, detail: str = "") -> None:
        found.append((kind, start, end, detail))
        taken.append((start, end))

    if "@" in text:
        for m in EMAIL.finditer(text):
            address = m.group()
            domain = address.lower().rsplit("@", 1)[1]
            machine = address.split("@", 1)[0].lower() in _MACHINE_USERS
            in_url = re.search(r"://[^\s/]*$", text[max(0, m.start() - 200):m.start()]) is not None  # a URL's user part
            if in_url and re.match(r":[^\s/@]+@", text[m.end():m.end() + 200]):
                in_url = False  # the whole login of scheme://LOGIN:PASSWORD@host is an e-mail address: a person's
            if _EXAMPLE_DOMAIN.search(domain) or is_role_address(address) or machine or in_url:
                taken.append(m.span())
                continue
            add("email", m.start(), m.end())
    for h in [*find_whereabouts(text), *find_health(text)]:
        if not _overlaps((h.start, h.end), taken):
            add(h.type, h.start, h.end)
    if _ANY_DIGIT.search(text):
        for h in [*find_identifiers(text), *find_passports(text)]:
            if not _overlaps((h.start, h.end), taken):
                add("national_id", h.start, h.end, f"{h.label} ({h.country})")
        _ibans(text, taken, add)
        _cards(text, taken, add)
        _phones(text, regions, taken, add)
    spans = [(s, e, _masked(text, k, s, e)) for k, s, e, _d in found]
    return sorted((PersonalHit(k, s, e, shown, excerpt(text, s, e, masks=spans), d)
                   for (k, s, e, d), (_s, _e, shown) in zip(found, spans, strict=True)), key=lambda h: h.start)


def _masked(text: str, kind: str, start: int, end: int) -> str:
    value = text[start:end]
    if kind == "email":
        return _mask_email(value)
    if kind == "address":
        return f"⟦address · {len(value)} chars⟧"
    if kind == "birth_date":
        return "⟦date of birth⟧"
    if kind == "health":
        return "⟦health detail⟧"
    return mask_personal(value)


def _sentence(text: str, start: int, end: int) -> str:
    lo = max(text.rfind(". ", 0, start), text.rfind("\n", 0, start), text.rfind("; ", 0, start))
    his = [i for i in (text.find(". ", end), text.find("\n", end), text.find("; ", end)) if i >= 0]
    return text[lo + 1 if lo >= 0 else 0:min(his) if his else len(text)]


def _overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(span[0] < b and a < span[1] for a, b in taken)


def _ibans(text: str, taken: list[tuple[int, int]], add) -> None:
    from stdnum import iban

    for m in IBAN_CANDIDATE.finditer(text):
        if not _overlaps(m.span(), taken) and iban.is_valid(m.group()):
            add("iban", m.start(), m.end(), m.group()[:2])


def _cards(text: str, taken: list[tuple[int, int]], add) -> None:
    from stdnum import luhn

    for m in CARD_CANDIDATE.finditer(text):
        digits = re.sub(r"\D", "", m.group())
        if _overlaps(m.span(), taken) or not 13 <= len(digits) <= 19 or len(set(digits)) < 3:
            continue
        if _TEST_CARD.search(_sentence(text, m.start(), m.end())):
            continue  # the processors' published test numbers, in a test
        if any(digits.startswith(p) for group in _CARD_PREFIXES for p in group) and luhn.is_valid(digits):
            add("card", m.start(), m.end())


def region_words(code: str) -> str:
    """A phone number's region in words ("Guernsey" for ``GG``), with its code; the code alone
    when phonenumbers does not know it."""
    import phonenumbers
    from phonenumbers import geocoder

    example = phonenumbers.example_number(code) if code and code != "?" else None
    name = geocoder.country_name_for_number(example, "en") if example is not None else ""
    return f"{name}, region code {code}" if name else f"region code {code}"


def _phones(text: str, regions: tuple[str, ...], taken: list[tuple[int, int]], add) -> None:
    """Stretches that look like phone numbers, each parsed by phonenumbers and kept when valid."""
    import phonenumbers

    cue_at = [m.end() for m in _PHONE_CUES.finditer(text)]
    for m in _PHONE_CANDIDATE.finditer(text):
        raw = m.group().strip()
        digits = re.sub(r"\D", "", raw)
        if not 7 <= len(digits) <= 15 or _DATE.match(raw.strip("()")) or _HAS_DATE.search(raw) \
                or _VERSION.match(raw) or _overlaps(m.span(), taken):
            continue
        international = raw.startswith(("+", "00"))
        cued = any(m.start() - 40 <= c <= m.start() + 1 for c in cue_at)
        if re.sub(r"\D", "", raw) in _EXAMPLE_IDS:
            continue
        before = text[max(0, m.start() - 45):m.start()]
        if _BUSINESS_LINE.search(before) or (not cued and _NOT_PHONE.search(before[-20:])) or _ID_WORD.search(before):
            continue  # a company's switchboard, or a run, order or ticket number
        grouped = bool(re.search(r"[\s().\-/]", raw))
        if not international and not cued:
            if not grouped or not (raw.startswith(("0", "(")) or _NANP.match(raw)):
                continue  # a bare run of digits, or a grouping no phone number has without a word saying so
        number = _parse(phonenumbers, raw, regions)
        if number is None:
            continue
        country = phonenumbers.region_code_for_number(number) or "?"
        add("phone", m.start(), m.start() + len(m.group().rstrip()), country)


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
