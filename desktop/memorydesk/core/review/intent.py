"""Planted instructions read by their structure, not their wording: who is addressed, what is
asked, about what, where it is to go, and whether a safeguard, a person or a record is left
out of it.

A team's conventions are instructions too ("forward phishing to the security mailbox",
"never force-push main"), so no single cue is enough. Each sentence is read for *signals*
(``intent_words`` holds their words in twelve languages); a text is reported when one
signal that is an instruction against the team by itself is present (its instructions set
aside, a new persona, the reader addressed as a model, secrets sent somewhere, a safeguard
switched off, findings made to vanish, an act done without the check it needs, something kept
from the people it concerns), or when two weaker ones meet (data sent to an address, new
access, a claim of authority, secrecy, a skipped check). A risky act that is negated or
bound to a safeguard ("never disable MFA", "make a bucket public only after review") is a
rule the team keeps, and counts for nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memorydesk.core.review import intent_words as w
from memorydesk.core.review.gate import Gate
from memorydesk.core.review.quoting import quoted_mention

_CLAUSE = r"(?:[^.!?;\n。！？；]|[.!?](?=\S)){0,80}?"  # a full stop inside a host name or a file name is no boundary
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+|;\s+|；")

# a negation or a condition just before an act: the act is forbidden or bound to a safeguard
_NEGATED = re.compile(
    r"(?:\b(?:never|not|don't|dont|do\s+not|must\s+not|mustn't|shouldn't|cannot|can't|no\s+one|nobody|only|before|"
    r"ask\s+before|forbidden\s+to|nie|nicht|niemals|kein\w*|jamais|ne|pas|nunca|no|não|nem|non|mai|niet|nooit|geen|"
    r"nigdy|nie)\b|не\b|нельзя|никогда|אל\b|לא\b|אסור|不要|不得|禁止|切勿|别|绝不|しない|禁止)[^.;,\n]{0,25}$", re.I)
# a safeguard bound to the act just after it
_BOUND = re.compile(
    r"^[^.;\n]{0,60}\b(?:only\s+(?:after|with|when|if|through|via|once|by)|after\s+(?:a\s+|the\s+)?(?:review|approval|"
    r"sign-?off|the\s+security\s+review|verifying|checking)|once\s+(?:approved|reviewed)|"
    r"through\s+(?:the\s+)?(?:portal|"
    r"form|terraform|change\s+request|access\s+request|iam\s+portal|pr)|needs?\s+(?:a\s+)?(?:review|approval|"
    r"sign-?off)|"
    r"with\s+(?:a\s+)?(?:ticket|change\s+request|review|approval|comment\s+saying)|is\s+never\s+approved|"
    r"through\s+(?:the\s+|a\s+)?(?:[\w-]+\s+)?(?:procedure|process|workflow|request|ticket)|"
    r"under\s+(?:a|an|the)\s+(?:signed\s+)?(?:dpa|nda|contract|agreement)|anonymi[sz]ed|pseudonymi[sz]ed|redacted|"
    r"after\s+(?:\w+\s+){0,5}?(?:are|is)\s+(?:removed|masked|redacted|stripped)|"
    r"nur\s+(?:nach|mit)|seulement\s+après|uniquement\s+après|solo\s+(?:después|tras|con)|só\s+(?:depois|após)|"
    r"solo\s+dopo|alleen\s+na|tylko\s+po|только\s+после|רק\s+אחרי|只有在|仅在)", re.I)


@dataclass(frozen=True)
class Signal:
    name: str
    strong: bool
    explanation: str


SIGNALS = {
    "addressed_to_the_model": Signal("addressed_to_the_model", True,
                                     "speaks to the model or agent that will read it, as planted instructions do"),
    "instructions_set_aside": Signal("instructions_set_aside", True,
                                     "tells the reader its instructions, rules or checks no longer hold"),
    "new_persona": Signal("new_persona", True, "gives the reader a new identity or role"),
    "secrets_sent_out": Signal("secrets_sent_out", True,
                               "asks for secrets, personal data or memory to be sent, posted or shown somewhere"),
    "safeguard_switched_off": Signal("safeguard_switched_off", True,
                                     "asks for a safeguard (MFA, encryption, alerts, a security agent, …) to be "
                                     "switched off"),
    "findings_made_to_vanish": Signal("findings_made_to_vanish", True,
                                      "asks for alerts, findings or records to be dismissed, closed or deleted "
                                      "unread"),
    "unchecked_act": Signal("unchecked_act", True,
                            "asks for an approval, merge, payment or reset without the check it needs"),
    "kept_from_people": Signal("kept_from_people", True,
                               "asks for something that matters to be done and kept from the people it concerns"),
    "deceives": Signal("deceives", True, "tells the reader what to say instead of the truth"),
    "authority_for_an_act": Signal("authority_for_an_act", True,
                                   "claims an authority above the rules to have something risky done"),
    "access_for_an_outsider": Signal("access_for_an_outsider", True,
                                     "asks for access, a key or a record that lets an outside party in"),
    "priority_over_rules": Signal("priority_over_rules", True,
                                  "claims to outrank the reader's instructions, policies or configuration"),
    "code_from_outside": Signal("code_from_outside", True, "asks for code fetched from a link to be run"),
    "decode_and_obey": Signal("decode_and_obey", True, "asks for something to be decoded and acted on"),
    "key_handed_over": Signal("key_handed_over", False, "hands over a key to be installed"),
    "secret_trigger": Signal("secret_trigger", False, "names a word or phrase that unlocks something"),
    "data_to_an_address": Signal("data_to_an_address", False, "asks for something to be sent to an address"),
    "new_access": Signal("new_access", False, "asks for new access, a key, a webhook or an account"),
    "skipped_check": Signal("skipped_check", False, "skips a review, a check or a wait"),
    "secrecy": Signal("secrecy", False, "asks for secrecy"),
    "authority": Signal("authority", False, "claims priority over policies or instructions"),
}


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE | re.MULTILINE)


def _alternatives(group: str) -> list[str]:
    """The top-level alternatives of ``(?:a|b|…)``."""
    body = group[3:-1] if group.startswith("(?:") and group.endswith(")") else group
    out, depth, start, i = [], 0, 0, 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            i += 2
            continue
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(body[start:i])
            start = i + 1
        i += 1
    return [*out, body[start:]]


def _word_led(alt: str) -> bool:
    """An alternative that starts with a letter of a script written with spaces (Latin, Cyrillic)."""
    first = alt.lstrip("(?:")[:1]
    return bool(first) and (first.isascii() and first.isalpha() or "\u00c0" <= first <= "\u04ff")


def words(group: str) -> str:
    """A word list as one pattern: words of space-separated scripts whole (``post`` is not in
    ``postgres``, ``cc`` not in ``access``); Hebrew (whose prefixes join the word) and Chinese or
    Japanese (written without spaces) as pieces."""
    alts = _alternatives(group)
    whole = [a for a in alts if _word_led(a)]
    pieces = [a for a in alts if not _word_led(a)]
    # not a piece of a name (``lumen-new-export``, ``/v1/export``, ``export_job``)
    parts = [rf"(?<![\w/-])(?:{'|'.join(whole)})(?![\w]|-\w)"] if whole else []
    if pieces:
        parts.append(f"(?:{'|'.join(pieces)})")
    return f"(?:{'|'.join(parts)})"


class _Pair:
    """Two word lists near each other in one clause (``either``: in any order). Searching is the
    compiled pattern's; ``parts`` are what the gate asks for — both must occur."""

    def __init__(self, a: str, b: str, either: bool) -> None:
        both = rf"(?:{a}){_CLAUSE}(?:{b})" + (rf"|(?:{b}){_CLAUSE}(?:{a})" if either else "")
        self.rx = _rx(both)
        self.parts = (_rx(a), _rx(b))

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        return self.rx.search(text, pos, len(text) if endpos is None else endpos)

    def finditer(self, text: str):
        return self.rx.finditer(text)


class _Any:
    """Several patterns, any of which may match; each gated on its own, so that only those whose
    pieces occur are run. ``search`` gives the earliest match."""

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self.patterns = patterns
        self.each = tuple(_rx(p) for p in patterns)
        self.rx = _rx("|".join(patterns))
        self._among: dict[tuple[int, ...], re.Pattern[str]] = {}

    def among(self, open_parts: tuple[int, ...]) -> re.Pattern[str]:
        """The patterns ``open_parts`` (by position) as one, in their order: on a text where the
        others cannot match, it finds what ``rx`` finds (each subset compiled once)."""
        rx = self._among.get(open_parts)
        if rx is None:
            rx = self._among[open_parts] = _rx("|".join(self.patterns[k] for k in open_parts))
        return rx

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        return self.rx.search(text, pos, len(text) if endpos is None else endpos)

    def finditer(self, text: str):
        return self.rx.finditer(text)


def _either(a: str, b: str) -> _Pair:
    """A then B, or B then A, within one clause."""
    return _Pair(a, b, True)


def _then(a: str, b: str) -> _Pair:
    return _Pair(a, b, False)


@lru_cache(maxsize=1)
def _compiled() -> dict[str, re.Pattern[str]]:
    send, sensitive = words(w.SEND), words(w.SENSITIVE)
    outside = f"{words(w.OUTSIDE)}|{w.PLACE}"  # words for a place outside, or a concrete address
    act, off, dismiss, grant = words(w.ACT), words(w.OFF), words(w.DISMISS), words(w.GRANT)
    any_act = f"{act}|{send}|{off}|{dismiss}|{grant}"
    return {
        "address": _Any(w.ADDRESS),
        "vocative": _Any(w.VOCATIVE),
        "mislabel": _rx(w.MISLABEL),
        "act_as": _rx(r"\bact\s+as\s+(?:the|an?|if)\b|\bfais\s+comme\s+si\b|\bhaz\s+como\s+si\b|\bspiel\s+(?:den|"
                      r"die)\b"),
        "guarded": _rx(rf"{words(w.ACCESS)}|{words(w.SENSITIVE)}|{words(w.SAFEGUARD)}"),
        "put_secret": _either(words(w.PUT), sensitive),
        "own_writing": _rx(words(w.OWN_WRITING)),
        "despite_red": _rx(r"\beven\s+(?:if|when|though)\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?(?:scans?|checks?|reviews?|"
                           r"tests?|ci|builds?|pipelines?|audits?)\s+(?:is|are|comes?\s+back|turns?|goes)\s+"
                           r"(?:red|failing|failed|fails|negative)\b"),
        "otherwise": _rx(r"\b(?:tell|assure|reassure|inform|say\s+to)\s+[^.\n]{0,100}?\b(?:even\s+(?:if|when|though)|"
                         r"although|whatever)\b[^.\n]{0,60}?\b(?:says?|shows?|states?)\s+otherwise\b"),
        "weighty": _rx(rf"{words(w.ACCESS)}|{words(w.SENSITIVE)}|{words(w.SAFEGUARD)}|"
                       r"\b(?:leak\w*|breach\w*|incident|outage|data\s+loss|vulnerabilit\w+|fraud)\b"),
        "override": _Any(w.OVERRIDE),
        "persona": _Any(w.PERSONA),
        "conceal": _Any(w.CONCEAL),
        "hush_act": _either(w.HUSH, any_act),
        "private": _rx(w.PRIVATE),
        "priority": _Any(w.PRIORITY),
        "off_state": _rx(rf"{words(w.SAFEGUARD)}{w.OFF_STATE}"),
        "run_remote": _rx(w.RUN_REMOTE),
        "trigger": _rx(w.TRIGGER),
        "grantee": _rx(w.GRANTEE),
        "bypass": _Any(w.BYPASS),
        "authority": _Any(w.AUTHORITY),
        "send_sensitive": _either(send, sensitive),
        "sensitive_out": _either(sensitive, outside),
        "send_out": _either(send, outside),
        "outside": _rx(outside),
        "off": _either(off, words(w.SAFEGUARD)),
        "public": _rx(w.OPEN_DOOR),
        "evidence": _either(dismiss, words(w.EVIDENCE)),
        "self": _rx(w.SELF),
        "exfil": _rx(r"\bexfiltrat\w*|\bexfiltr\w*"),
        "decode_run": _rx(w.DECODE_RUN),
        "dismiss": _either(dismiss, words(w.FINDING)),
        "dismiss_how": _rx(w.DISMISS_HOW),
        "grant": _either(grant, words(w.ACCESS)),
        "bulk": _rx(words(w.BULK)),
        "key_material": _rx(w.KEY_MATERIAL),
        "place": _rx(w.PLACE),
        "conceal_fact": _rx(rf"(?:{'|'.join(w.CONCEAL)}){_CLAUSE}{words(w.PARTY)}{_CLAUSE}{w.THAT}"
                            r"|(?:不要|别|不必|切勿)(?:告诉|通知|告知)(?:用户|客户)"),
        "act": _rx(act),
        "any_act": _rx(any_act),
        "deceive": _rx(r"\bif\s+(?:they|anyone|someone|somebody|the\s+\w+|customers?|users?)\s+asks?\b[^.\n]{0,40}\b"
                       r"(?:say|tell\s+them|answer|reply|respond)\s+(?:that\s+)?(?:it\s+was|it's|it\s+is|this\s+was|"
                       r"they\s+were|nothing|only)\b|\bsi\s+(?:pregunta|preguntan|demande|demandent|perguntar)\w*\b"
                       r"[^.\n]{0,30}\b(?:responde|dile|di|réponds|dis|diga|responda)\s+que\b"
                       r"|если\s+спрос\w+[^.\n]{0,30}(?:скажи|отвечай|ответь)|אם\s+ישאלו[^.\n]{0,30}(?:תגיד|תענה)"
                       r"|如果(?:有人|用户|客户)问[^。\n]{0,20}(?:就说|回答)"),
    }


def _free(m: re.Match[str], text: str) -> bool:
    """The act is asked for, not forbidden or bound to a safeguard."""
    return _NEGATED.search(text[max(0, m.start() - 40):m.start()]) is None and _BOUND.search(text[m.end():]) is None


def _said(m: re.Match[str] | None, text: str) -> re.Match[str] | None:
    """The match, unless it is a phrase quoted as an example ("attacks such as 'ignore …'")."""
    return None if m is None or quoted_mention(text, m.start()) else m


#: a sentence that points back at what another one asked ("… and don't mention it")
_BACK = re.compile(r"(?i)\b(?:it|this|that|them|es|das|dies|le|la|lo|isso|isto|ciò|het|to|это|זה|这|それ)\b")
_RETAINED = re.compile(r"(?i)^[^.;\n]{0,60}\b(?:older\s+than|after\s+\d+\s+(?:days|weeks|months|years)|"
                       r"per\s+(?:the\s+)?"
                       r"retention|retention\s+(?:policy|period))")


_SLUG = re.compile(r"[a-z0-9]+(?:[-_][a-z0-9]+)+(?=\n)")


def _unslugged(text: str) -> str:
    """A topic written as a slug on the first line (``sso-bypass-user``) read as its words, the
    offsets kept; elsewhere a hyphenated name (``lumen-new-export``) stays one name."""
    m = _SLUG.match(text)
    return text if m is None else m.group().replace("-", " ").replace("_", " ") + text[m.end():]


#: an English verb that says what happens or happened (``removes``, ``closed``, ``closing``), not what is asked
_INFLECTED = re.compile(r"^[a-z]+(?:ed|(?<![sui])s)$")
_GERUND = re.compile(r"^[a-z]+ing$")
_DETERMINER = re.compile(r"(?i)\b(?:the|a|an|this|that|our|your|its|their|each|every)\s+$")
_WHEN = re.compile(r"(?i)\b(?:after|before|when|while|upon|since|on)\s+$")
#: … unless a word just before makes it a request or a standing practice after all (``must be removed``,
#: ``are approved without …``, ``get merged``) or the agent that reads it is its subject (``the assistant
#: forwards …``)
_ASKED = re.compile(r"(?i)(?:\b(?:to|be|is|are|get|gets|must|should|shall|will|please|always|keep|start|need|"
                    r"needs|has|have)\s+"
                    r"(?:\w+\s+)?|\b" + w.AGENT + r"\s+(?:\w+\s+)?)$")


def _described(act: str, before: str) -> bool:
    """An English act word that states what a thing does or did ("v4.13 removes the endpoint",
    "after closing a dialog") or names a thing ("the export toast"): no request."""
    word = act.split(None, 1)[0].lower() if act.strip() else ""
    if _DETERMINER.search(before[-12:]):
        return True  # "the export toast", "an upload": a thing named, no act asked for
    if _GERUND.match(word):
        return _WHEN.search(before[-12:]) is not None  # "after closing a dialog"; not "keep it tidy by marking …"
    return bool(_INFLECTED.match(word)) and _ASKED.search(before[-40:]) is None


def _first_free(rx, text: str, act: re.Pattern[str] | None = None) -> re.Match[str] | None:
    """The first match whose act is asked for: not forbidden, bound to a safeguard or only described."""
    for m in rx.finditer(text):
        if not _free(m, text):
            continue
        if act is not None:
            a = act.search(text, m.start(), m.end())
            if a is not None and _described(a.group(), text[:a.start()]):
                continue
        return m
    return None


@lru_cache(maxsize=1)
def _gate() -> tuple[Gate, dict[str, tuple[str, ...]]]:
    """The gate over every pattern (a pair's two parts apart), and the gate names each pattern needs open."""
    parts: dict[str, re.Pattern[str]] = {}
    needs: dict[str, tuple[str, ...]] = {}
    for name, rx in _compiled().items():
        if isinstance(rx, _Pair):
            parts[f"{name}/a"], parts[f"{name}/b"] = rx.parts
            needs[name] = (f"{name}/a", f"{name}/b")
        elif isinstance(rx, _Any):
            for k, each in enumerate(rx.each):
                parts[f"{name}#{k}"] = each
            needs[name] = (name,)  # open when any of its patterns is (below)
        else:
            parts[name] = rx
            needs[name] = (name,)
    return Gate(parts), needs


@lru_cache(maxsize=1)
def _readers() -> tuple[dict[str, tuple[str, ...]], tuple[tuple[str, str, str], ...]]:
    """What ``_open`` reads from the gate's answer, worked out once: the names each gate name opens
    by itself (a plain pattern itself; one of an ``_Any``'s patterns itself and the ``_Any``), and
    the pairs (name, part a, part b), open when both parts are."""
    alone: dict[str, tuple[str, ...]] = {}
    pairs = []
    for name, want in _gate()[1].items():
        rx = _compiled()[name]
        if isinstance(rx, _Any):
            for k in range(len(rx.each)):
                alone[f"{name}#{k}"] = (f"{name}#{k}", name)
        elif len(want) == 2:
            pairs.append((name, *want))
        else:
            alone[name] = (name,)
    return alone, tuple(pairs)


def _open(text: str) -> set[str]:
    alone, pairs = _readers()
    seen = _gate()[0].open(text)
    out = {name for n in seen for name in alone.get(n, ())}
    out.update(name for name, a, b in pairs if a in seen and b in seen)
    return out


def signals(text: str) -> dict[str, tuple[int, int]]:
    """The signals a text carries, each with where it was read (the first place)."""
    out: dict[str, tuple[int, int]] = {}
    if not text or len(text) < 12:
        return out
    text = _unslugged(text)
    c = _compiled()
    ok = _open(text)  # the patterns that can match somewhere in the text; the others are not run

    def find(name: str, where: str, start: int = 0, end: int | None = None) -> re.Match[str] | None:
        if name not in ok:
            return None
        rx = c[name]
        stop = len(where) if end is None else end
        if isinstance(rx, _Any):
            hits = [m for k, each in enumerate(rx.each) if f"{name}#{k}" in ok
                    for m in (each.search(where, start, stop),) if m is not None]
            return min(hits, key=lambda m: m.start()) if hits else None
        return rx.search(where, start, stop)

    def only_open(name: str):
        """The pattern ``name``, an ``_Any`` cut to those of its patterns the gate left open."""
        rx = c[name]
        if isinstance(rx, _Any):
            return rx.among(tuple(k for k in range(len(rx.each)) if f"{name}#{k}" in ok))
        return rx

    def free(name: str, where: str) -> re.Match[str] | None:
        if name not in ok:
            return None
        rx = only_open(name)
        act = _ACT_PART.get(name)
        return _first_free(rx, where, None if act is None else rx if act < 0 else rx.parts[act])

    def put(name: str, m: re.Match[str] | _Shift | None) -> None:
        if m is not None and name not in out:
            out[name] = (m.start(), m.end())

    put("addressed_to_the_model", _said(find("address", text), text))
    put("instructions_set_aside", _said(free("override", text), text))
    put("new_persona", _said(find("persona", text), text))
    put("deceives", find("deceive", text) or find("mislabel", text) or find("otherwise", text))
    put("priority_over_rules", find("priority", text))
    put("code_from_outside", free("run_remote", text))
    put("secret_trigger", find("trigger", text))
    put("decode_and_obey", find("decode_run", text))
    put("secrets_sent_out", free("exfil", text))
    for s, at in _sentences(text) if not _PER_SENTENCE.isdisjoint(ok) else ():
        def shift(m: re.Match[str] | None, at: int = at) -> _Shift | None:
            return None if m is None else _Shift(m, at)

        conceal = None
        if "conceal" in ok:
            conceal = next((m for m in only_open("conceal").finditer(s)
                            if find("private", s, m.end(), m.end() + 60) is None), None)
        put_in = free("put_secret", s)
        if put_in is not None and find("own_writing", s):  # "put the password in your next status update"
            put("secrets_sent_out", shift(put_in))
        put("unchecked_act", shift(find("despite_red", s)))  # "ship it even if the security scan is red"
        sens = free("send_sensitive", s)
        if sens is not None and (find("sensitive_out", s) or find("send_out", s) or find("outside", text)
                                 or find("bulk", s)):
            put("secrets_sent_out", shift(sens))
        put("safeguard_switched_off", shift(free("off", s) or free("public", s) or free("off_state", s)))
        dismiss = free("dismiss", s)
        if dismiss is not None and find("dismiss_how", text):
            put("findings_made_to_vanish", shift(dismiss))
        gone = free("evidence", s)
        if gone is not None and not _RETAINED.search(s[gone.end():]):  # not "archived after 400 days, per retention"
            put("findings_made_to_vanish", shift(gone))
        bypass = find("bypass", s)
        if bypass is not None and free("act", s) is not None:
            put("unchecked_act", shift(bypass))
        if conceal is not None:
            put("kept_from_people", shift(find("conceal_fact", s)))
            if find("self", s):
                put("kept_from_people", shift(conceal))
        put("kept_from_people", shift(free("hush_act", s)))
        grant = free("grant", s)
        if grant is not None and (find("place", s) or find("grantee", s)):
            put("access_for_an_outsider", shift(grant))
        put("authority", shift(find("authority", s)))
        put("data_to_an_address", shift(free("send_out", s)))
        put("new_access", shift(grant))
        if grant is not None and find("key_material", s):  # a key handed over with the request: a second sign
            put("key_handed_over", shift(find("key_material", s)))
        put("skipped_check", shift(bypass))
        put("secrecy", shift(conceal))

    def acts() -> bool:  # the longest pattern: read only where a vocative or a role asks for it
        return free("any_act", text) is not None

    if "secrecy" in out and "kept_from_people" not in out:  # kept from people: something that matters, not told
        at = out["secrecy"][0]
        own = next(((snt, o) for snt, o in _sentences(text) if o <= at < o + len(snt)), (text, 0))
        alone = len(own[0].split()) <= 8 or _BACK.search(own[0]) is not None  # "No need to tell anyone." / "… it"
        scope = text if alone else own[0]
        if free("any_act", scope) is not None or find("weighty", scope):
            out["kept_from_people"] = out["secrecy"]
    vocative = _said(find("vocative", text), text)
    # the reader called by name and asked to act, or to handle a secret, an access or a safeguard
    if vocative is not None and (len(out) > 0 or find("guarded", text) or acts()):
        put("addressed_to_the_model", vocative)
    act_as = _said(find("act_as", text), text)
    if act_as is not None and acts():
        put("new_persona", act_as)
    if "authority" in out and any(k in out for k in ("safeguard_switched_off", "unchecked_act", "new_access",
                                                      "secrets_sent_out", "findings_made_to_vanish", "skipped_check")):
        out["authority_for_an_act"] = out["authority"]
    return out


#: the patterns a signal read sentence by sentence starts from: when none can match, no sentence is read
_PER_SENTENCE = frozenset({"conceal", "put_secret", "despite_red", "send_sensitive", "off", "public", "off_state",
                           "dismiss", "evidence", "bypass", "hush_act", "grant", "authority", "send_out"})

#: where the act is in the patterns read for it: the pair's first or second part, or the whole match (-1)
_ACT_PART = {"put_secret": 0, "send_sensitive": 0, "send_out": 0, "off": 0, "dismiss": 0, "evidence": 0, "grant": 0,
             "hush_act": 1, "act": -1, "any_act": -1}


class _Shift:
    """A match inside a sentence, placed in the whole text."""

    def __init__(self, m: re.Match[str], at: int) -> None:
        self._s, self._e = m.start() + at, m.end() + at

    def start(self) -> int:
        return self._s

    def end(self) -> int:
        return self._e


def _sentences(text: str) -> list[tuple[str, int]]:
    out, at = [], 0
    for part in _SENTENCE.split(text):
        where = text.find(part, at)
        if part.strip():
            out.append((part, max(where, 0)))
        at = max(where, 0) + len(part)
    return out


@dataclass(frozen=True)
class IntentHit:
    rule: str
    explanation: str
    start: int
    end: int
    also: tuple[str, ...]  # the other signals read


def read_intent(text: str) -> IntentHit | None:
    """A planted instruction read from its signals: one strong signal, or two weak ones."""
    found = signals(text)
    strong = [n for n in found if SIGNALS[n].strong]
    weak = [n for n in found if not SIGNALS[n].strong]
    if strong:
        name = strong[0]
    elif len(weak) >= 2:
        name = weak[0]
    else:
        return None
    start, end = found[name]
    others = tuple(n for n in found if n != name)
    explanation = SIGNALS[name].explanation
    if others:
        explanation += "; also " + ", ".join(SIGNALS[n].explanation.split(",")[0] for n in others[:3])
    return IntentHit(name, explanation, start, end, others)
