"""A person's home address or date of birth, written in a sentence (several languages).

- **Home address**: a street address (a house number beside a street word — Street, Road,
  -straße, rue, calle, rua, via, -straat, ul. …) or a postcode with a town, in a text that
  says it is where someone lives (``lives at``, ``home address``, ``wohnt``, ``habite``,
  ``vive en``, ``mora``, ``woont``, ``mieszka``, …) or names a person beside it. An office,
  a data centre or a shop (``office``, ``HQ``, ``Büro``, …) with no such word is not a
  person's address.
- **Date of birth**: a date with its day (``1984-03-12``, ``12.03.1984``, ``March 12,
  1984``, ``12. März 1984``) right after a word that says it is a birth date (``born``,
  ``DOB``, ``geboren``, ``né le``, ``nacido``, ``生年月日``, …).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memorydesk.core.review.gate import Gate, Pieces, any_matches


@dataclass(frozen=True)
class WhereHit:
    type: str  # address, birth_date
    start: int
    end: int


_CAP = r"[A-ZÀ-ÖØ-Þ][\w'’.-]*"
STREET = re.compile(
    r"\b\d{1,5}[a-zA-Z]?,?\s+(?:" + _CAP + r"\s+){1,4}(?:Street|St\.?|Avenue|Ave\.?|Road|Rd\.?|Lane|Ln\.?|Drive|Dr\.?"
    r"|Boulevard|Blvd\.?|Way|Court|Ct\.?|Place|Pl\.?|Terrace|Close|Crescent|Gardens|Row|Mews|Square|Sq\.?)\b"
    r"|\b" + _CAP + r"(?:straße|strasse|str\.|weg|gasse|allee|platz|ring|damm|ufer|steig)\s+\d{1,4}\s?[a-zA-Z]?\b"
    r"|\b\d{1,4}(?:\s?(?:bis|ter))?,?\s+(?:rue|avenue|av\.|boulevard|bd|chemin|allée|place|impasse|quai|route)\s+"
    r"(?:(?:de\s+la|de\s+l'|du|des|de|d')\s*)?[\w'’-]+"
    r"|\b(?:calle|c/|avenida|avda\.|av\.|paseo|plaza|rua|travessa|avenida|via|viale|piazza|corso|largo)\s+"
    r"(?:[\w'’.-]+\s+){0,4}?(?:n[º°o.]\s*)?\d{1,4}\b"
    r"|\b" + _CAP + r"(?:straat|laan|weg|gracht|plein|kade|singel|dijk)\s+\d{1,4}[a-zA-Z]?\b"
    r"|\bul\.\s*" + _CAP + r"(?:\s+" + _CAP + r")?\s+\d{1,4}(?:/\d{1,4})?\b"
    # a postcode and a town: the town capitalised whatever the flags (``2593 fixed``, ``PR #5310 approved`` are not),
    # the number not a ticket's or a pull request's (``#4104``, ``ACME-2593``)
    r"|(?<![#\w-])\d{4,5}\s+(?-i:[A-ZÄÖÜ][a-zäöüßéèàç-]+)(?:\s+(?:am|an|im|sur|en)\s+[A-Z][\w-]+)?\b"
    r"(?=\s*(?:[,.;)]|$|\n))"
    r"|\b[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}\b"
    r"|(?:רחוב|רח'|שדרות)\s+\S+(?:\s+\S+)?\s+\d{1,4}|(?:улица|ул\.|проспект|пр\.)\s+\S+(?:\s+\S+)?,?\s+(?:д\.\s*)?\d{"
    r"1,4}",
    re.IGNORECASE | re.MULTILINE)
_PERSONAL = re.compile(
    r"(?i)\b(?:lives?\s+(?:at|in|on)|living\s+at|home\s+(?:address|is)|(?:his|her|their|my)\s+(?:home|address|house|f"
    r"lat|"
    r"apartment)|private\s+address|residential|resides|moved\s+to|wohnt|wohnhaft|privatadresse|heimadresse|"
    r"anschrift|habite|domicile|adresse\s+(?:perso|priv)|vive\s+en|domicilio|mora\s+(?:na|em|no)|morada|"
    r"resid[eê]ncia|woont|woonadres|thuisadres|mieszka|adres\s+zamieszkania|abita|residente|indirizzo\s+di\s+casa|"
    r"bor\s+på|asuu|проживает|живёт|живет)\b|\bגר(?:ה)?\s|מתגורר")
_WEAK = re.compile(r"(?i)\b(?:address|adresse|adres|anschrift|dirección|direccion|endereço|indirizzo)\b")
_NOT_PERSONAL = re.compile(r"(?i)\b(?:office|offices|hq|headquarters|head\s+office|warehouse|data\s*cent(?:er|re)|"
                           r"fiscal|registered|gmbh|ltd|inc|llc|s\.?l\.?|s\.?a\.?|sas|sarl|b\.?v\.?|ag|plc|"
                           r"demo|example|sample|placeholder|fictional|fiction|simpsons|santa|north\s+pole|test\s+data|"
                           r"datacenter|shop|store|branch|campus|factory|plant|büro|bureau|siège|sede|oficina|"
                           r"kantoor|biuro|company|registered\s+address|ship\s+to\s+the\s+office)\b")
#: a story's address, not a person's: the word for fiction, or one of the addresses every reader knows from one
_FICTION = re.compile(r"(?i)\b(?:fictional|fiction|fictitious|imaginary|made-up|story|stories|novel|cartoon|sitcom|"
                      r"character|characters|film|movie|tv\s+show|series|comic|fairy\s+tale|game|persona|roman|"
                      r"personnage|personaje|personagem|personaggio|figur|персонаж)\b|221b\s+baker\s+street|"
                      r"742\s+evergreen\s+terrace|4\s+privet\s+drive|12\s+grimmauld\s+place|1313\s+mockingbird\s+lane|"
                      r"124\s+conch\s+street|31\s+spooner\s+street|177a\s+bleecker\s+street|10880\s+malibu\s+point|"
                      r"32\s+windsor\s+gardens|62\s+west\s+wallaby\s+street|2311\s+north\s+los\s+robles")
_NAME = re.compile(r"\b[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ]{1,20}\s+(?:(?:van|von|de|da|del|di|le|la)\s+)?[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ'-]{"
                   r"1,25}\b")

_MONTHS = (r"enero|febrero|marzo|mayo|junio|julio|septiembre|octubre|noviembre|"
           r"jan(?:uary|uar|vier|eiro)?|feb(?:ruary|ruar)?|f[ée]vrier|mar(?:ch|s|zo|ço)?|märz|apr(?:il|ile)?|avril|"
           r"abril|may|mai|mayo|maio|maggio|jun(?:e|i|io|ho)?|juin|jul(?:y|i|io|ho)?|juillet|aug(?:ust)?|ao[uû]t|"
           r"agosto|sep(?:t|tember|tembre|tiembre)?|settembre|oct(?:ober|obre|ubre)?|okt(?:ober)?|ottobre|outubro|"
           r"nov(?:ember|embre)?|dec(?:ember)?|dez(?:ember)?|d[ée]cembre|diciembre|dicembre|dezembro")
_DATE = (r"(?:\d{1,2}\s+de\s+(?:" + _MONTHS + r")\s+de\s+\d{4}|\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[./-]\d{1,2}[./-](?:\d{4}"
                                              r"|\d{2})|\d{1,2}\.?\s+(?:" + _MONTHS + r")\.?\s+\d{4}"
         r"|(?:" + _MONTHS + r")\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\d{4}\s*年\s*\d{1,2}\s*月\s*\d{1,2}\s*日"
         r"|\d{4}/\d{1,2}/\d{1,2}|\d{4}\.\s?\d{1,2}\.\s?\d{1,2}\.?)")
BIRTH = re.compile(
    r"(?i)(?:\bborn(?:\s+on)?|\bdate\s+of\s+birth|\bd\.?o\.?b\.?|\bbirth\s*(?:day|date)|\bgeboren(?:\s+am)?|\bgeb\.|"
    r"\bgeburtsdatum|\bgeburtstag|\bn[ée]e?\s+le|\bdate\s+de\s+naissance|\bnacid[oa](?:\s+el)?|\bfecha\s+de\s+nacimie"
    r"nto|"
    r"\bnaci[óo](?:\s+el)?|\bnascid[oa](?:\s+em)?|\bdata\s+de\s+nascimento|\bnat[oa]\s+il|\bdata\s+di\s+nascita|\bgeb"
    r"oren\s+op|"
    r"\bgeboortedatum|\burodzon[ya]|\bdata\s+urodzenia|\bfödd|\bsyntynyt|\bdoğum\s+tarihi|生年月日|出生日期|"
    r"생년월일|дата\s+рождения|родил[ас][сь]я?)"
    r"[^\n.;\d]{0,40}?[\s:,(]{1,4}(?:(?:on|am|le|el|em|il|op|в)\s+)?(?P<date>" + _DATE + r")")
_NAMED_AFTER = re.compile(r"(?i)named\s+after|benannt\s+nach|nomm[ée]\s+d'après|porte\s+le\s+nom|lleva\s+el\s+nombre|"
                          r"in\s+memory\s+of|historic|historical")


#: cheap tests first: the long patterns run only on text that holds one of their words
_BIRTH_CUES = ("born", "birth", "dob", "d.o.b", "geb", "naiss", "né ", "née ", "nacid", "nació", "nacio", "nasc",
               "nato ", "nata ", "urodz", "född", "synty", "doğum", "生", "出生", "생년", "рожд", "родил")
_STREET_CUE_PARTS = (
    r"street", r"\bst\.", r"avenue", r"\bave\b", r"road", r"\brd\b", r"lane", r"drive", r"blvd", r"boulevard",
    r"\bway\b", r"court", r"place", r"terrace", r"close", r"crescent", r"gardens", r"\brow\b", r"mews", r"square",
    r"stra(?:ß|ss)e", r"str\.", r"weg\b", r"gasse", r"allee", r"platz", r"ring\b", r"damm", r"ufer", r"steig",
    r"\brue\b", r"\bav\.", r"chemin", r"allée", r"impasse", r"quai", r"route", r"calle", r"c/", r"avda", r"paseo",
    r"plaza", r"\brua\b", r"travessa", r"\bvia\b", r"viale", r"piazza", r"corso", r"largo", r"straat", r"laan",
    r"gracht", r"plein", r"kade", r"singel", r"dijk", r"\bul\.", r"רחוב", r"שדרות", r"улиц", r"\bул\.", r"проспект",
    r"\d{4,5}\s+[A-ZÄÖÜ]", r"[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}")
_STREET_CUE = re.compile("(?i)" + "|".join(_STREET_CUE_PARTS))
#: … the same words apart, behind one pass over an ASCII text for the words they need (on other text
#: lower-casing is not the pattern's case-folding, so the whole pattern is run)
_STREET_CUE_EACH = {str(k): re.compile("(?i)" + p) for k, p in enumerate(_STREET_CUE_PARTS)}
_STREET_GATE = Gate(_STREET_CUE_EACH)
_BIRTH_PIECES = Pieces(_BIRTH_CUES)


def _street_cue(text: str) -> bool:
    if text.isascii():
        return any_matches(_STREET_GATE, _STREET_CUE_EACH, text)
    return _STREET_CUE.search(text) is not None


_DIGIT = re.compile(r"\d")


def find_whereabouts(text: str) -> list[WhereHit]:
    out: list[WhereHit] = []
    lowered = text.lower()
    births = BIRTH.finditer(text) if _BIRTH_PIECES.any_in(lowered) else ()
    for m in births:
        year = re.findall(r"\d{4}", m.group("date"))
        if (year and int(year[0]) < 1920) or _NAMED_AFTER.search(text):
            continue  # a historical figure's birthday, not a living person's
        out.append(WhereHit("birth_date", m.start("date"), m.end("date")))
    if _DIGIT.search(text) and _street_cue(text):
        for m in STREET.finditer(text):
            sentence = _sentence(text, m.start(), m.end())
            before = text[_sentence_start(text, m.start()):m.start()]
            if _FICTION.search(sentence):
                continue  # an address in a story
            strong = _PERSONAL.search(sentence) is not None
            business = _NOT_PERSONAL.search(sentence) is not None
            named = _NAME.search(before) is not None
            if strong or (not business and (_WEAK.search(sentence) is not None or named)):
                out.append(WhereHit("address", m.start(), m.end()))
    return sorted(out, key=lambda h: h.start)


def _sentence_start(text: str, at: int) -> int:
    cut = max(text.rfind(". ", 0, at), text.rfind("\n", 0, at), text.rfind("; ", 0, at))
    return 0 if cut < 0 else cut + 1


def _sentence(text: str, start: int, end: int) -> str:
    lo = _sentence_start(text, start)
    hi_candidates = [i for i in (text.find(". ", end), text.find("\n", end), text.find("; ", end)) if i >= 0]
    hi = min(hi_candidates) if hi_candidates else len(text)
    return text[lo:hi]


#: a named person's health: a condition, a treatment or sick leave, said of someone named
HEALTH = re.compile(
    r"(?i)\b(?:surgery|chemotherapy|chemo|cancer|tumou?r|diabetes|diabetic|pregnan\w*|miscarriage|depression|"
    r"burn-?out|anxiety\s+disorder|adhd|autism|epilep\w*|hiv|dialysis|stroke|heart\s+attack|herniated\s+disc|"
    r"sick\s+leave|on\s+medical\s+leave|therapy\s+for|diagnosed\s+with|krankgeschrieben|krankheit|schwanger|"
    r"operation|chemotherapie|krebs|arrêt\s+maladie|enceinte|malad\w+|embarazada|baja\s+m[ée]dica|quimioterapia|"
    r"grávida|gravidez|doença|incinta|malattia|zwanger|ziekteverlof|ciąż\w*|chorob\w*|беременн\w*|болезн\w*|"
    r"больничн\w*|химиотерап\w*|怀孕|癌|病假|妊娠|病気|בהריון|מחלה|כימותרפיה)\b")
_PERSON = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|Frau|Herr|Mme|M\.|Sr|Sra|Signor\w*|Pan|Pani)\.?\s+[A-ZÀ-Ö]"
                     r"|\b[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ]{1,20}\s+(?:(?:van|von|de|da|del|di|le|la)\s+)?[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ'"
                     r"-]{1,25}\b"
                     r"|\b(?:his|her|he|she|er|sie|il|elle|él|ella|ele|ela)\b")


_HEALTH_CUES = ("surg", "chemo", "cancer", "tumo", "diabet", "pregnan", "miscarr", "depress", "burn", "anxiety",
                "adhd", "autis", "epilep", "hiv", "dialys", "stroke", "heart", "hernia", "sick", "medical", "therapy",
                "diagnos", "krank", "schwanger", "operation", "chemo", "krebs", "maladie", "enceinte", "malad",
                "embarazada", "baja", "quimio", "grávida", "gravidez", "doença", "incinta", "malattia", "zwanger",
                "ziekte", "ciąż", "chorob", "беремен", "болезн", "больнич", "химио", "怀孕", "癌", "病", "妊娠",
                "בהריון", "מחלה", "כימו")
_HEALTH_PIECES = Pieces(_HEALTH_CUES)


def find_health(text: str) -> list[WhereHit]:
    out = []
    lowered = text.lower()
    if not _HEALTH_PIECES.any_in(lowered):
        return out
    for m in HEALTH.finditer(text):
        if _PERSON.search(_sentence(text, m.start(), m.end())):
            out.append(WhereHit("health", m.start(), m.end()))
    return out
