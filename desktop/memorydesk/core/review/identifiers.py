"""National identifiers of people, validated by python-stdnum (its check digits, dates and ranges).

Two ways a number counts:

- **written in its country's own form** (``123-45-6789`` for a US SSN, ``123.456.789-09``
  for a Brazilian CPF, ``850709-1234`` for a Swedish personnummer, ``12345678Z`` for a
  Spanish DNI, …) and valid for that country: the form and the check together are rare
  enough by chance;
- **a bare run of digits** (``44051401359``) that is valid for some country *and* has a
  word naming an identifier near it (``PESEL``, ``BSN``, ``Steuer-ID``, ``social security``,
  ``national id``, ``numéro de sécurité sociale``, …) — a bare run alone could be an order
  number that happens to pass a check digit.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class IdHit:
    country: str
    label: str
    start: int
    end: int


# (stdnum module, country, label, the country's written form)
FORMS: tuple[tuple[str, str, str, str], ...] = (
    ("us.ssn", "US", "US Social Security number", r"\d{3}-\d{2}-\d{4}"),
    ("br.cpf", "BR", "Brazilian CPF", r"\d{3}\.\d{3}\.\d{3}-\d{2}"),
    ("fr.nir", "FR", "French social security number (NIR)",
     r"[12] ?\d{2} ?\d{2} ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}"),
    ("es.dni", "ES", "Spanish DNI", r"\d{8}-?[A-Z]"),
    ("es.nie", "ES", "Spanish NIE", r"[XYZ]-?\d{7}-?[A-Z]"),
    ("it.codicefiscale", "IT", "Italian codice fiscale", r"[A-Z]{6}\d{2}[A-Z]\d{2}[A-Z]\d{3}[A-Z]"),
    ("se.personnummer", "SE", "Swedish personnummer", r"(?:19|20)?\d{6}[-+]\d{4}"),
    ("fi.hetu", "FI", "Finnish personal identity code", r"\d{6}[-+A-FU-Y]\d{3}[0-9A-Y]"),
    ("dk.cpr", "DK", "Danish CPR number", r"\d{6}-\d{4}"),
    ("mx.curp", "MX", "Mexican CURP", r"[A-Z]{4}\d{6}[HM][A-Z]{5}[0-9A-Z]\d"),
    ("cn.ric", "CN", "Chinese resident identity card", r"\d{17}X"),
    ("kr.rrn", "KR", "Korean resident registration number", r"\d{6}-\d{7}"),
    ("in_.aadhaar", "IN", "Indian Aadhaar", r"[2-9]\d{3} \d{4} \d{4}"),
    ("ch.ssn", "CH", "Swiss AHV number", r"756\.\d{4}\.\d{4}\.\d{2}"),
    ("nl.bsn", "NL", "Dutch BSN", r"\d{4}\.\d{2}\.\d{3}"),
    ("be.nn", "BE", "Belgian national number", r"\d{2}\.\d{2}\.\d{2}-\d{3}\.\d{2}"),
)
#: bare digit runs are tried as these (valid + a word naming an identifier near it)
BARE: tuple[tuple[str, str, str], ...] = (
    ("us.ssn", "US", "US Social Security number"), ("de.idnr", "DE", "German tax id (Steuer-ID)"),
    ("nl.bsn", "NL", "Dutch BSN"), ("br.cpf", "BR", "Brazilian CPF"), ("pl.pesel", "PL", "Polish PESEL"),
    ("fr.nir", "FR", "French social security number (NIR)"), ("no.fodselsnummer", "NO", "Norwegian national identity "
                                                                                        "number"),
    ("dk.cpr", "DK", "Danish CPR number"), ("se.personnummer", "SE", "Swedish personnummer"),
    ("be.nn", "BE", "Belgian national number"), ("tr.tckimlik", "TR", "Turkish identity number"),
    ("ro.cnp", "RO", "Romanian CNP"), ("bg.egn", "BG", "Bulgarian EGN"), ("gr.amka", "GR", "Greek AMKA"),
    ("il.idnr", "IL", "Israeli identity number"), ("ca.sin", "CA", "Canadian SIN"), ("at.vnr", "AT", "Austrian social"
                                                                                                     " insurance numb"
                                                                                                     "er"),
    ("za.idnr", "ZA", "South African ID number"), ("cn.ric", "CN", "Chinese resident identity card"),
    ("in_.aadhaar", "IN", "Indian Aadhaar"), ("jp.in_", "JP", "Japanese My Number"), ("kr.rrn", "KR", "Korean residen"
                                                                                                      "t registration"
                                                                                                      " number"),
    ("cz.rc", "CZ", "Czech birth number"), ("ee.ik", "EE", "Estonian personal cod"
                                                           "e"), ("lt.asmens", "LT", "Lithuanian personal code"),
    ("hr.oib", "HR", "Croatian OIB"), ("is_.kennitala", "IS", "Icelandic kennitala"), ("pt.nif", "PT", "Portuguese NI"
                                                                                                       "F"),
    ("ie.pps", "IE", "Irish PPS number"), ("gb.nhs", "GB", "NHS number"), ("au.tfn", "AU", "Australian tax file numbe"
                                                                                           "r"),
    ("cl.rut", "CL", "Chilean RUT"), ("ar.dni", "AR", "Argentine DNI"), ("it.codicefiscale", "IT", "Italian codice fi"
                                                                                                   "scale"),
)
CUES = re.compile(
    r"(?i)\b(?:ssn|social\s+security|national\s+(?:id|identity|insurance|number)|id\s*(?:number|no|nr|#)|identity|"
    r"identification|personal\s+(?:number|code|id)|tax\s*(?:id|payer|file|number)|citizen|passport|"
    r"steuer[\s-]*(?:id|nummer|identifikationsnummer)|identifikationsnummer|idnr|personalausweis|sozialversicherung|"
    r"bsn|burgerservicenummer|sofinummer|cpf|pesel|nir|insee|s[ée]curit[ée]\s+sociale|num[ée]ro\s+de\s+s[ée]cu|"
    r"dni|nie|nif|documento|c[ée]dula|codice\s+fiscale|personnummer|personnr|henkil[öo]tunnus|hetu|cpr|"
    r"f[øo]dselsnummer|rijksregister|registre\s+national|ahv|avs|sin|aadhaar|curp|rut|pps|amka|cnp|egn|"
    r"rodn[ée]\s+[čc][íi]slo|kimlik|oib|kennitala|my\s+number|tfn|ird|nhs|"
    r"versicherungsnummer|teudat\s+zehut)\b|ת\.ז|תעודת\s+זהות|מספר\s+זהות|マイナンバー|個人番号|身份证|身分證|주민등록번호|паспорт|СНИЛС|ИНН")
_DIGITS = re.compile(r"(?<![A-Za-z0-9_.\-/])\d(?:[ .\-]?\d){7,16}(?![\w\-/]|\.\d)")
_NEAR = 60  # characters before (or after) a bare number in which a word naming an identifier counts


_NO_DIGITS = str.maketrans("", "", "0123456789")


@lru_cache(maxsize=None)
def _module(name: str):
    return importlib.import_module(f"stdnum.{name}")


#: published test and example identifiers (the Woolworth SSN, the Dutch test BSN, …)
EXAMPLES = frozenset({"078051120", "0780511200", "219099999", "111222333", "123456782", "12345678Z"})


def _valid(name: str, value: str) -> bool:
    digits = re.sub(r"\W", "", value)
    if digits in EXAMPLES or len(set(re.sub(r"\D", "", value))) <= 2:
        return False  # a published example, or repeated digits that pass a check by construction
    try:
        return bool(_module(name).is_valid(value))
    except Exception:  # noqa: BLE001 - a validator that cannot read the value says no
        return False


@lru_cache(maxsize=1)
def _form_pattern() -> re.Pattern[str]:
    return re.compile("|".join(f"(?P<f{i}>(?<![\\w.\\-/])(?<!\\d\\s){form}(?![\\w\\-/]|\\.\\d|\\s\\d))"
                               for i, (_m, _c, _l, form) in enumerate(FORMS)))


def find_identifiers(text: str) -> list[IdHit]:
    if len(text) - len(text.translate(_NO_DIGITS)) < 6:
        return []  # every identifier has six digits or more
    out: list[IdHit] = []
    taken: list[tuple[int, int]] = []
    for m in _form_pattern().finditer(text):
        i = int(m.lastgroup[1:])
        module, country, label, _form = FORMS[i]
        if _valid(module, m.group()):
            out.append(IdHit(country, label, m.start(), m.end()))
            taken.append(m.span())
    cues = [c.span() for c in CUES.finditer(text)]
    if cues:
        for m in _DIGITS.finditer(text):
            if any(m.start() < b and a < m.end() for a, b in taken):
                continue
            if not any(m.start() - _NEAR <= b <= m.start() + 1 or m.end() <= a <= m.end() + 25 for a, b in cues):
                continue
            digits = re.sub(r"\D", "", m.group())
            for module, country, label in BARE:
                if _valid(module, digits):
                    out.append(IdHit(country, label, m.start(), m.end()))
                    taken.append(m.span())
                    break
    return sorted(out, key=lambda h: h.start)


#: a passport number: a word for passport, then a number of letters and digits
PASSPORT = re.compile(r"(?i)(?:passport|passeport|reisepass\w*|pasaporte|passaporto|passaporte|paspoort|paszport|"
                      r"паспорт\w*|护照|パスポート|דרכון)[^\n\d]{0,40}?(?<![A-Za-z0-9])(?P<value>(?=[A-Z0-9]*\d)[A-Z0-9]{6,1"
                      r"0})"
                      r"(?![A-Za-z0-9])")


_PASSPORT_CUES = ("passport", "passeport", "reisepass", "pasaporte", "passaport", "paspoort", "paszport", "паспорт",
                  "护照", "パスポート", "דרכון")


def find_passports(text: str) -> list[IdHit]:
    lowered = text.lower()
    if not any(c in lowered for c in _PASSPORT_CUES):
        return []
    return [IdHit("", "passport number", m.start("value"), m.end("value")) for m in PASSPORT.finditer(text)]
