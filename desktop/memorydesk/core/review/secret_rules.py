"""What the maintained detectors (detect-secrets, the provider rule set) leave to us: the
ways people and agents write secrets in prose rather than in configuration.

- **a password said in a sentence** — "the staging password is hunter2", "Passwort: …",
  "le mot de passe est …" (keywords in several languages), the value a token that is not a
  plain word (it has a digit, a symbol or mixed case, or is quoted);
- **credentials in a connection string** — ``scheme://user:password@host``, the user
  possibly empty (``redis://:pw@…``), the password holding any character but ``@``, ``/``
  and white space;
- **a key beside its name** — a keyword (token, secret, key, …) followed within a few
  words by a long token that is high-entropy (an auth token beside an account id);
- **a key alone** — a 40-character base64 run with upper and lower case and digits (an
  AWS secret access key needs no keyword), or any run of 32 or more such characters whose
  entropy is that of a random key.

Each returns (start, end, type) of the value itself. Placeholders are dropped later, by
``secrets.is_placeholder``, for every detector alike.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from memorydesk.core.review.gate import Gate

_PW_WORDS = (r"passwords?|passwd|pass\s?phrase|passcode|kennwort|passwort|mot\s+de\s+passe|contrase[ñn]a|senha|"
             r"wachtwoord|has[łl]o|пароль|parola\s+d'ordine|password|lösenord|salasana|adgangskode|heslo|jelszó|"
             r"şifre|パスワード|密码|密碼|비밀번호|كلمة\s+المرور|סיסמה")
_SHORT_WORDS = r"pwd|pw|pin|pass|clave|login"
_FOR = (r"(?:\s+(?:for|of|to|on|für|pour|de|del|da|van|voor|dla|для|на)\s+"
        r"(?:(?:the|den|dem|der|die|das|le|la|les|el|los|het|de|o|a)\s+)?[\w.@/:-]+){0,2}")
_VERB = (r"\s+(?:is|was|is\s+now|now\s+is|set\s+to|changed\s+to|reset\s+to|ist|lautet|est|es|é|era|jest|är|on|"
         r"er|je|это|è|は|是|为|는|هي|to)\s+")
_SIGN = r"\s*[:=：]\s*|\s*(?:は|是|为|為|는|은)\s*"
_VALUE = r"[\"'`«“‘]?(?P<value>[^\s\"'`»”’,;、。\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]{4,80})"
PROSE_PASSWORD = re.compile(r"(?i)(?<![\w-])(?:(?:" + _PW_WORDS + r")" + _FOR + r"(?:" + _VERB + r"|" + _SIGN + r")"
                            r"|(?:" + _SHORT_WORDS + r")" + _FOR + _SIGN + r")" + _VALUE)
URL_CREDENTIALS = re.compile(r"(?i)\b[a-z][a-z0-9+.\-]{1,20}://(?P<user>[^\s:/\"'<>]*):(?P<value>[^\s@/\"'<>]{3,200})@"
                             r"(?=[\w\[])")
_KEY_WORDS = (r"token|secret|api[\s_-]?key|access[\s_-]?key|auth[\s_-]?key|private[\s_-]?key|key|credentials?|"
              r"bearer|signing[\s_-]?key|client[\s_-]?secret|webhook[\s_-]?secret|schlüssel|clé|clave|chave|sleutel|"
              r"klucz|ключ|токен|トークン|密钥|令牌|טוקן|מפתח|סיסמה")
KEYWORD_NEAR = re.compile(r"(?i)(?:(?<![A-Za-z0-9-])|(?<=[הוש]))(?:" + _KEY_WORDS + r")(?![A-Za-z0-9-])[^\n]{0,40}?(?"
                                                                                    r"<![\w/+-])"
                          r"(?P<value>[A-Za-z0-9_\-+/=.~]{16,200})(?![\w/+=-])")
LONE_TOKEN = re.compile(r"(?<![\w/+=.-])(?P<value>[A-Za-z0-9+/]{32,200}={0,2}|[A-Za-z0-9_\-]{32,200}"
                        r"|[a-z]{2,6}\.[A-Za-z0-9_\-]{24,200})(?![\w/+=.-])")
_HAS_DIGIT, _HAS_UPPER, _HAS_LOWER = re.compile(r"\d"), re.compile(r"[A-Z]"), re.compile(r"[a-z]")
_PLAIN_WORD = re.compile(r"^[A-Za-zÀ-ÿ]+[.!?]?$")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    if not value:
        return 0.0
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _random_looking(value: str, *, hex_ok: bool) -> bool:
    """A token that reads as a random key: long, high-entropy, not a UUID, not one word or a path of words."""
    if _UUID.match(value) or len(value) < 16:
        return False
    kinds = bool(_HAS_DIGIT.search(value)) + bool(_HAS_UPPER.search(value)) + bool(_HAS_LOWER.search(value))
    if re.fullmatch(r"[0-9a-f]+", value):  # hex: an auth token, or a commit or content hash
        return hex_ok and len(value) >= 24 and kinds == 2 and entropy(value) >= 3.2
    if kinds < 2:
        return False
    parts = [p for p in re.split(r"[-_./+=~]", value) if p]
    if parts and all(re.fullmatch(r"[a-z]{1,15}|[A-Z][a-z]{1,14}|[A-Z]{1,6}|\d{1,4}", p) for p in parts):
        return False  # words joined (a slug, a path)
    return entropy(value) >= (3.7 if kinds == 3 else 3.9 if len(value) < 40 else 3.6)


def example_of_a_kind(text: str, start: int, end: int) -> bool:
    """A value given as an example of a kind ("'Password1!' style passwords", "such as 'hunter2'")."""
    after = text[end:end + 12].lower()
    before = text[max(0, start - 16):start]
    return re.match(r"['\"”’]?\s*(?:style|like|-style|type|kind|or\s+similar)\b", after) is not None or \
        re.search(r"(?i)(?:e\.g\.|like|such\s+as|for\s+example|for\s+instance|z\.\s?b\.|par\s+exemple|por\s+ejemplo)"
                  r"\s*['\"“‘]?$", before) is not None


def prose_passwords(text: str) -> list[tuple[int, int, str]]:
    out = []
    for m in PROSE_PASSWORD.finditer(text):
        value = m.group("value").rstrip(".!?)")
        start = m.start("value")
        if example_of_a_kind(text, start, start + len(value)):
            continue
        quoted = start > 0 and text[start - 1] in "\"'`«“‘"
        if not quoted and (_PLAIN_WORD.match(value) or value.lower() in _NOT_VALUES):
            continue  # "the password is stored in Vault", "password: required"
        if value.lower() in _NOT_VALUES or len(value) < 4:
            continue
        out.append((start, start + len(value), "Password"))
    return out


def url_credentials(text: str) -> list[tuple[int, int, str]]:
    if "://" not in text:
        return []
    return [(m.start("value"), m.end("value"), "Password in a connection strin"
                                               "g") for m in URL_CREDENTIALS.finditer(text)]


#: "key" in a sense that is no secret: a message's, a table's, a cache's key
_OTHER_KEY = re.compile(r"(?i)\b(?:message|primary|partition|sort|sorting|cache|idempotency|object|foreign|routing|"
                        r"dedup\w*|"
                        r"lookup|row|hash|map|composite|unique|natural|surrogate|s3|redis|kafka|shard|i18n|translation|"
                        r"join|index|dictionary|json|yaml|config|registry|public|site|publishable)[\s_-]+key\b")


def _readable_base64(value: str) -> bool:
    """Base64 of plain text (an id, a name): an encoding, not a key."""
    import base64
    import binascii

    if not re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", value) or len(value) % 4:
        return False
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return bool(raw) and all(32 <= b < 127 for b in raw) and b":" not in raw


def keyword_tokens(text: str) -> list[tuple[int, int, str]]:
    out = []
    for m in KEYWORD_NEAR.finditer(text):
        value = m.group("value").rstrip(".")
        keyword = text[m.start():m.start("value")]
        if _OTHER_KEY.search(text[max(0, m.start() - 20):m.start() + 4]) and re.match(r"(?i)key\b", keyword):
            continue
        if _readable_base64(value):
            continue
        if _random_looking(value, hex_ok=True):
            out.append((m.start("value"), m.start("value") + len(value), "Key beside a keyword"))
    return out


#: every lone token holds a run this long of these characters (a cheap test before ``LONE_TOKEN``)
_LONE_RUN = re.compile(r"[A-Za-z0-9_\-+/]{24}")


def lone_tokens(text: str) -> list[tuple[int, int, str]]:
    out = []
    if _LONE_RUN.search(text) is None:
        return out
    for m in LONE_TOKEN.finditer(text):
        value = m.group("value")
        if len(value) == 40 and re.fullmatch(r"[A-Za-z0-9+/]{40}", value) and _HAS_UPPER.search(value) \
                and _HAS_LOWER.search(value) and _HAS_DIGIT.search(value) and entropy(value) >= 4.0:
            out.append((m.start("value"), m.end("value"), "AWS Secret Access Key (by its form)"))
        elif len(value) >= 32 and _random_looking(value, hex_ok=False) and entropy(value) >= 4.3:
            out.append((m.start("value"), m.end("value"), "High-entropy key"))
    return out


_NOT_VALUES = {
    "required", "optional", "stored", "kept", "managed", "rotated", "expired", "unknown", "none", "null", "empty",
    "hidden", "masked", "redacted", "reset", "changed", "set", "the", "same", "different", "secret", "secure",
    "strong", "weak", "needed", "missing", "correct", "wrong", "invalid", "valid", "protected", "encrypted",
    "policy", "policies", "manager", "vault", "length", "rotation", "field", "prompt", "login", "never", "always",
    "must", "should", "will", "was", "is", "not", "in", "on", "at", "via", "from", "with", "for", "and", "or",
}


#: a value that reads as a chosen password: letters with a digit and a symbol, or mixed case and a digit
_STRONG = (r"(?=[^\s\"'`]*\d)(?=[^\s\"'`]*[A-Za-zÀ-ÿ])(?:(?=[^\s\"'`]*[^\w\s\"'`])|(?=[^\s\"'`]*[A-Z])(?=[^\s\"'`]*[a"
           r"-z]))"
           r"[^\s\"'`,;()<>]{6,64}")
LOOSE_PASSWORD = re.compile(
    r"(?i)(?<![\w-])(?:" + _PW_WORDS + r"|pass|mdp|pwd|pw|clave|login|root|passcode|pin)(?![\w-])[^\n.]{0,80}?"
    r"(?<=[\s:=：\"'])(?P<value>" + _STRONG + r")")
QUOTED_PASSPHRASE = re.compile(r"(?i)(?:pass\s?phrase|passwort|password|mot\s+de\s+passe|contraseña|senha)[^\n\"“]{0,"
                               r"60}"
                               r"[\"“](?P<value>[^\"”\n]{8,100})[\"”]")
WORDS_PASSPHRASE = re.compile(r"(?i)pass\s?phrase[^:\n]{0,60}:\s*(?P<value>(?:[\w'-]+\s+){3,8}[\w'-]+)\s*"
                              r"$", re.MULTILINE)
QUOTED_STRONG = re.compile(r"[\"'](?P<value>(?=[^\s\"']*\d)(?=[^\s\"']*[A-Za-z])(?=[^\s\"']*[^\w\s\"'])[^\s\"']{8,64}"
                           r")[\"']")
_CRED_CUE = re.compile(r"(?i)\b(?:user\w*|login|admin|auth|pass\w*|credential\w*|account)\b")
CARD_CODE = re.compile(r"(?i)\b(?:cvc|cvv2?|csc|security\s+code|código\s+de\s+seguridad|prüfnummer)\b\W{0,3}(?P<value"
                       r">\d{3,4})\b")
#: prefixes providers put on their secrets (a fallback when the rule set's exact length does not match)
PREFIXED = re.compile(r"(?<![\w-])(?P<value>(?:dckr_pat_|hf_|glpat-|gh[pousr]_|github_pat_|xox[abprs]-|sk_live_|"
                      r"rk_live_|sk_test_|rk_test_|sk-ant-|sk-proj-|sk-svcacct-|npm_|pypi-|SG\.|AIza|hvs\.|hvb\.|"
                      r"dop_v1_|lin_api_|shpat_|shpss_|glsa_|glc_|sq0csp-|EAAC|ya29\.|AKIA|ASIA)[A-Za-z0-9_\-.]{16,20"
                      r"0})")


def loose_passwords(text: str) -> list[tuple[int, int, str]]:
    out = []
    for m in LOOSE_PASSWORD.finditer(text):
        value = m.group("value").rstrip(".!?)")
        if "@" in value or "://" in value or "=" in value or re.fullmatch(r"[\d.:/-]+[a-z]{0,3}", value):
            continue  # an address, a URL, an assignment, a version or a time
        if re.search(r"@[\w.-]+:$", text[max(0, m.start("value") - 40):m.start("value")]) or \
                re.fullmatch(r"\d{2,5}(?:/\S*)?", value):
            continue  # a host's port and path
        after = text[m.end("value"):m.end("value") + 12].lower()
        before = text[max(0, m.start("value") - 12):m.start("value")]
        if re.match(r"['\"]?\s*(?:style|like|-style|type)", after) or re.search(r"(?i)(?:e\.g\.|like|such as)\s*['\"]"
                                                                                r"?$", before):
            continue  # an example of a kind of password, not one
        out.append((m.start("value"), m.start("value") + len(value), "Password"))
    for rx in (QUOTED_PASSPHRASE, WORDS_PASSPHRASE):
        out += [(m.start("value"), m.end("value"), "Passphrase") for m in rx.finditer(text)]
    if _CRED_CUE.search(text):
        out += [(m.start("value"), m.end("value"), "Password") for m in QUOTED_STRONG.finditer(text)
                if not example_of_a_kind(text, m.start("value"), m.end("value"))]
    return out


def card_codes(text: str) -> list[tuple[int, int, str]]:
    return [(m.start("value"), m.end("value"), "Card security code") for m in CARD_CODE.finditer(text)]


def prefixed_tokens(text: str) -> list[tuple[int, int, str]]:
    if not _PREFIXED_GATE.open(text):
        return []  # none of the prefixes occurs
    return [(m.start("value"), m.end("value"), "Provider token (by its prefix)") for m in PREFIXED.finditer(text)]


_PREFIXED_GATE = Gate({"prefixed": PREFIXED})
