"""Secrets in memory text, found by detect-secrets' own plugins and filters.

detect-secrets scans a line with each plugin (AWS, GitHub, GitLab, Slack, Stripe, OpenAI,
JWT, private keys, passwords in URLs, keyword assignments, high-entropy strings in
quotes, …) and drops what its heuristic filters call a false positive (UUIDs, sequential
strings, templates, indirect references). Each line is scanned as YAML-like text, so
``password: x`` and ``API_KEY=x`` count as assignments. A cheap test first keeps the
many lines that cannot hold a secret (no long token, no keyword, no quotes, no URL
credentials) away from the plugins; the public-IP plugin is left out (an address is not a
secret). The secret is only ever returned masked.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from memorydesk.core.review import secret_rules
from memorydesk.core.review.gate import Pieces
from memorydesk.core.review.mask import excerpt, mask, masked
from memorydesk.core.review.providers import find_provider_tokens

_FILENAME = "memory.yaml"
_DISABLED = {"IPPublicDetector"}
_KEYWORDS = ("passw", "pwd", "secret", "token", "api_key", "api-key", "apikey", "auth_key", "auth-key",
             "access_key", "access-key", "credential", "private key", "accountkey")
_ASSIGNED = re.compile(r"(?:passw|pwd|secret|token|api[_-]?key|apikey|auth[_-]?key|access[_-]?key|credential"
                       r"|accountkey)[\w-]*[\"']?\s*[:=]")
_KEYWORD_PIECES = Pieces(_KEYWORDS)
_URL_CREDENTIALS = re.compile(r"://[^\s/@]*@")
_QUOTED = re.compile(r"[\"'][^\"'\s]{10,}[\"']")
_LONG = re.compile(r"[A-Za-z0-9_\-+/=.]{16,}")
_DIGIT, _LETTER = re.compile(r"\d"), re.compile(r"[A-Za-z]")
_TOKEN_CHARS = re.compile(r"[^\s\"'`<>()\[\]{},;]+")
MAX_LINE = 4000  # detect-secrets' regexes on a longer line: cut into pieces this long


@dataclass(frozen=True)
class SecretHit:
    type: str  # detect-secrets' name for it, e.g. "AWS Access Key"
    plugin: str
    start: int
    end: int
    masked: str
    excerpt: str


@lru_cache(maxsize=1)
def _plugins():
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    return sorted(cls.__name__ for cls in get_mapping_from_secret_type_to_class().values()
                  if cls.__name__ not in _DISABLED)


def plugin_names() -> list[str]:
    """The detect-secrets plugins the review runs."""
    return list(_plugins())


_LOCK = threading.Lock()
_configured = False


def _scan(lines: list[tuple[int, str]]):
    """detect-secrets' line scan (its settings are process-wide: set once, scans one at a time)."""
    global _configured
    from detect_secrets.core.scan import _process_line_based_plugins
    from detect_secrets.settings import configure_settings_from_baseline

    with _LOCK:
        if not _configured:
            configure_settings_from_baseline({"plugins_used": [{"name": n} for n in _plugins()]})
            _configured = True
        return list(_process_line_based_plugins(lines, _FILENAME))


def _pieces(text: str) -> Iterator[tuple[int, str]]:
    at = 0
    for line in text.splitlines(keepends=True):
        for cut in range(0, max(len(line), 1), MAX_LINE):
            piece = line[cut:cut + MAX_LINE]
            if _could_hold(piece):
                yield at + cut, piece
        at += len(line)


def _could_hold(text: str) -> bool:
    """Whether any plugin could match: a keyword, URL credentials, a quoted string, or a long
    token with a piece mixing letters and digits (every token format the plugins know has one)."""
    lowered = text.lower()
    if "private key" in lowered or (_KEYWORD_PIECES.any_in(lowered) and _ASSIGNED.search(lowered)):
        return True  # the keyword plugin needs an assignment (``password: x``, ``API_KEY=x``)
    if "://" in text and "@" in text and _URL_CREDENTIALS.search(text):
        return True
    if ('"' in text or "'" in text) and _QUOTED.search(text):
        return True
    return any(_token_like(t) for t in _LONG.findall(text))


_PARTS = re.compile(r"[-_./:+=]")


def _token_like(token: str) -> bool:
    """A long run that could be a key: a piece of eight or more characters mixing letters and digits,
    or forty characters in one piece (a slug such as ``audit-store-cell-04-rollout`` is neither)."""
    for part in _PARTS.split(token):
        if len(part) >= 40 or (len(part) >= 8 and _DIGIT.search(part) and _LETTER.search(part)):
            return True
    return False


def _detect_secrets_hits(text: str) -> list[_Raw]:
    if not _could_hold(text):
        return []
    pieces = list(_pieces(text))
    if not pieces:
        return []
    found = _scan([(n + 1, piece.rstrip("\r\n")) for n, (_at, piece) in enumerate(pieces)])
    out = []
    for secret in found:
        offset, piece = pieces[secret.line_number - 1]
        value = (secret.secret_value or "").strip(" \t=:\"'")
        where = piece.find(value) if value else -1
        if where < 0:
            continue
        plugin = _plugin_of(secret.type)
        if secret.type == "Secret Keyword" and _setting(piece, value):
            continue
        out.append(_Raw(offset + where, offset + where + len(value), secret.type, plugin,
                        _RANK_GENERIC if plugin in _GENERIC else _RANK_NAMED))
    return out


#: a key named for a rule about secrets rather than a secret: PASSWORD_MIN_LENGTH=12, TOKEN_TTL=3600
_SETTING_NAME = re.compile(r"(?i)(?:min|max|length|len|require\w*|policy|rotation|rotate|expir\w*|ttl|age|days|hours|"
                           r"seconds|count|attempts|retries|complexity|history|strength|url|uri|path|file|header|field|"
                           r"name|prompt|enabled|disabled|enforce\w*|algorithm|alg|type|format|prefix|length)[\w]*\s*[:=]")


def _setting(piece: str, value: str) -> bool:
    """A keyword line that sets a rule about secrets (a length, a lifetime, a switch), not a secret."""
    if "=" in value or re.fullmatch(r"(?i)\d+[smhd]?|true|false|yes|no|on|off", value.strip("\"' ;,")):
        return True
    at = piece.find(value)
    head = piece[max(0, at - 40):at] if at >= 0 else ""
    return _SETTING_NAME.search(head) is not None


@dataclass(frozen=True)
class _Raw:
    start: int
    end: int
    type: str
    plugin: str
    rank: int  # lower: more specific


_RANK_PROVIDER, _RANK_URL, _RANK_NAMED, _RANK_PROSE, _RANK_NEAR, _RANK_GENERIC, _RANK_LONE = range(7)


def find_secrets(text: str) -> list[SecretHit]:
    """Every secret in ``text``: detect-secrets' plugins and filters, the provider rule set
    (``providers``) and the prose rules (``secret_rules``); each widened to its whole token,
    placeholders and published examples dropped, one hit per stretch of text (the most
    specific detector's), each masked whole, every excerpt masking every secret it shows."""
    if not text:
        return []
    raw = _detect_secrets_hits(text)
    raw += [_Raw(h.start, h.end, h.name.title(), "Provider rules", _RANK_PROVIDER) for h in find_provider_tokens(text)]
    if _maybe_prose(text):
        raw += [_Raw(s, e, t, "Prose rules", _RANK_PROSE) for s, e, t in secret_rules.prose_passwords(text)]
        raw += [_Raw(s, e, t, "Prose rules", _RANK_NEAR) for s, e, t in secret_rules.keyword_tokens(text)]
        raw += [_Raw(s, e, t, "Prose rules", _RANK_PROSE) for s, e, t in secret_rules.loose_passwords(text)]
        raw += [_Raw(s, e, t, "Prose rules", _RANK_NAMED) for s, e, t in secret_rules.card_codes(text)]
    raw += [_Raw(s, e, t, "Prose rules", _RANK_NAMED) for s, e, t in secret_rules.prefixed_tokens(text)]
    raw += [_Raw(s, e, t, "Prose rules", _RANK_URL) for s, e, t in secret_rules.url_credentials(text)]
    raw += [_Raw(s, e, t, "Prose rules", _RANK_LONE) for s, e, t in secret_rules.lone_tokens(text)]
    if not raw:
        return []
    kept: list[_Raw] = []
    for r in sorted(raw, key=lambda r: (r.rank, r.start)):
        start, end = _whole_token(text, r.start, r.end)
        if end <= start or is_placeholder(text, start, end):
            continue
        if is_public(text, start, end, r.rank >= _RANK_PROSE):
            continue
        if r.plugin == "KeywordDetector" and re.fullmatch(r"[a-zà-ÿ]+", text[r.start:r.end].split(" ")[0]):
            continue  # a plain word after a keyword ("injects them", "token: expired")
        if any(start < k.end and k.start < end for k in kept):
            continue
        kept.append(_Raw(start, end, r.type, r.plugin, r.rank))
    kept.sort(key=lambda r: r.start)
    spans = [(r.start, r.end, mask(text[r.start:r.end], r.type)) for r in kept]
    return [SecretHit(r.type, r.plugin, r.start, r.end, shown, excerpt(text, r.start, r.end, masks=spans))
            for r, (_s, _e, shown) in zip(kept, spans, strict=True)]


def secret_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, mask) of every secret in ``text``."""
    return [(h.start, h.end, h.masked) for h in find_secrets(text)]


def mask_secrets(text: str) -> str:
    """``text`` with every secret in it masked whole: what any view, export or command shows of a
    text from memory outside the item itself."""
    if not text:
        return text
    return masked(text, secret_spans(text))


_PROSE_CUES = ("pass", "pw", "pin", "mdp", "root", "admin", "user", "login", "cvc", "cvv", "csc", "טוקן", "מפתח",
               "סיסמ", "kennw", "mot de", "contrase", "senha", "wacht", "hasło", "haslo", "пароль", "parola", "lösen",
               "salasana", "adgang", "heslo", "jelsz", "şifre", "clave", "token", "secret", "key", "cred", "bearer",
               "schlüssel", "clé", "chave", "sleutel", "klucz", "ключ", "токен", "パスワード", "トークン", "密",
               "비밀번호", "كلمة")
_PROSE_PIECES = Pieces(_PROSE_CUES)


def _maybe_prose(text: str) -> bool:
    lowered = text.lower()
    return _PROSE_PIECES.any_in(lowered)


_GENERIC = ("KeywordDetector", "Base64HighEntropyString", "HexHighEntropyString", "BasicAuthDetector")
_LEFT = re.compile(r"[A-Za-z0-9_\-+/.]")
_RIGHT = re.compile(r"[A-Za-z0-9_\-+/=.~!*$%^]")


def _whole_token(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen a detector's match to the whole token it lies in (a plugin that reports only a
    key's prefix, or its first 32 characters, must not leave the rest in clear); trailing
    punctuation is not part of it."""
    while start > 0 and _LEFT.match(text[start - 1]) and text[start - 1] != ".":
        start -= 1
    while end < len(text) and _RIGHT.match(text[end]):
        end += 1
    while end > start and text[end - 1] in ".,;:)":
        end -= 1
    named = re.match(r"[A-Za-z_]{3,30}=(?=.{8})", text[start:end])
    if named:  # AccountKey=… : the value, not its name
        start += named.end()
    return start, end


#: published examples that are no one's secret (AWS's documentation keys, Stripe's docs key, …)
PUBLISHED_EXAMPLES = frozenset({
    "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AKIAI44QH8DHBEXAMPLE",
    "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY", "sk_test_4eC39HqLyjWDarjtT1zdp7dc", "pk_test_TYooMQauvdEDq54NiTphI7jx",
})
_PLACEHOLDER = re.compile(r"(?i)^(?:x{3,}|\*{3,}|\.{3,}|•+|#{3,}|-{3,}|_{3,}|0{6,}|1234(?:5678?)?|abc(?:def)?123|"
                          r"(?:your|my|the)[-_]?\w*|placeholder\w*|redacted|changeme|example\w*|dummy\w*|sample\w*|"
                          r"fake\w*|test|tbd|todo|n/?a|none|null|secret|password|token|api[-_]?key|<[^>]*>)$")


#: values that are public by design: publishable keys, public keys, integrity hashes, resource names
_PUBLIC_BEFORE = re.compile(r"(?i)(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-\S+|sk-ssh-\S+|sha(?:256|384|512)-|arn:aws:\S*|"
                            r"integrity=\S*)\s?$")
_PUBLIC_WORDS = re.compile(r"(?i)\b(?:publishable|public\s+key|site\s+key|client\s+id|fingerprint|known_hosts|"
                           r"integrity|checksum|digest|commit|sha|hash|request\s+id|trace\s+id|object\s+id)\b|\(public")


def is_public(text: str, start: int, end: int, generic: bool) -> bool:
    """A value that is not a secret by design (a publishable key, a public key, a hash); for the
    generic detectors (entropy, keyword nearness) also one the sentence calls public."""
    value = text[start:end]
    if value.startswith(("pk_live_", "pk_test_")) or _PUBLIC_BEFORE.search(text[max(0, start - 60):start]):
        return True
    if "/" in value and re.search(r"\.[a-z]{2,4}$", value):
        return True  # a path to a file
    if re.fullmatch(r"age1[02-9ac-hj-np-z]{58}", value):
        return True  # an age recipient: a public key
    if re.search(r"(?i)data:[\w/+.-]+;base64,[A-Za-z0-9+/=]*$", text[max(0, start - 200):start]):
        return True  # inline data (an image) in a data: URI
    return generic and _PUBLIC_WORDS.search(_sentence_of(text, start, end)) is not None


def _sentence_of(text: str, start: int, end: int) -> str:
    lo = max(text.rfind(". ", 0, start), text.rfind("\n", 0, start), text.rfind("; ", 0, start))
    his = [i for i in (text.find(". ", end), text.find("\n", end), text.find("; ", end)) if i >= 0]
    return text[lo + 1 if lo >= 0 else 0:min(his) if his else len(text)]


#: a value read from somewhere in code, not the value itself
_LOOKUP = re.compile(r"(?i)\b(?:os\.environ|getenv|process\.env|env\[|environ\[|secrets\.|vars\.|vault\.|"
                     r"config\.get|settings\.)|^[A-Za-z_][\w.]*[(\[]")


def is_placeholder(text: str, start: int, end: int) -> bool:
    """A value that stands for a secret rather than being one: ``<your-key>``, ``${VAR}``,
    ``{{ secret }}``, ``sk-...``, ``xxxx``, ``****``, a published example key."""
    value = text[start:end]
    before, after = text[max(0, start - 2):start], text[end:end + 3]
    if value in PUBLISHED_EXAMPLES or "EXAMPLE" in value:
        return True
    if before.endswith(("<", "{", "${", "$(", "%")) or after.startswith((">", "}", "...", "…")):
        return True
    if "..." in value or "…" in value or "xxxx" in value.lower() or "****" in value:
        return True
    if _PLACEHOLDER.match(value) or value.startswith(("$", "%")):
        return True
    if re.fullmatch(r"[A-Z][A-Z_]{2,}", value):
        return True  # USER:PASSWORD@HOST, password: DB_PASSWORD — a name standing for the value
    if _LOOKUP.search(value):
        return True  # os.environ['DB_PASSWORD'], vault.Read(…), process.env.TOKEN: where the value is read from
    if re.search(r"(?i)(?:^|[-_])(?:your|dein|deine|ihr|votre|ton|tu|su|seu|sua|mein|my)[-_]|[-_](?:here|hier|ici|aqu"
                 r"i|aquí|qui)$",
                 value):
        return True  # dein-schluessel-hier, your_token_here
    core = re.sub(r"^[a-z]{2,4}[_-](?:live_|test_)?", "", value)  # the part after a prefix such as sk- or ghp_
    if core and len(set(core.lower())) <= 2:
        return True  # sk-aaaaaaaa, ghp_000000…
    return False


@lru_cache(maxsize=64)
def _plugin_of(secret_type: str) -> str:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    cls = get_mapping_from_secret_type_to_class().get(secret_type)
    return cls.__name__ if cls is not None else ""
