"""Whether two close facts say different things (a correction) rather than the same thing twice.

A pair disagrees when, in the words where they differ, one negates what the other does
not, they give different numbers, or one uses a word the other replaces with its
opposite (``ANTONYMS``). These are cues, not understanding: the finding says which cue.
"""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"[a-z0-9](?:[a-z0-9'._-]*[a-z0-9'_-])?")  # on lower-cased text; no trailing dots
_NUMBER = re.compile(r"^\d[\d.,:_-]*[a-z%]*$", re.I)
NEGATIONS = {"not", "no", "never", "don't", "doesn't", "isn't", "aren't", "won't", "cannot", "can't", "shouldn't",
             "mustn't", "without", "none", "nobody", "neither", "nor", "didn't", "wasn't", "weren't"}
_PAIRS = ("enable disable", "enabled disabled", "on off", "allow deny", "allowed denied", "allowed forbidden",
          "true false", "yes no", "increase decrease", "before after", "always never", "required optional",
          "include exclude", "accept reject", "approve reject", "approved rejected", "public private",
          "open closed", "start stop", "add remove", "added removed", "keep drop", "use avoid", "higher lower",
          "more less", "max min", "maximum minimum", "first last", "old new", "sync async", "internal external",
          "monthly weekly", "daily weekly", "left right", "up down", "in out", "supported unsupported",
          "deprecated recommended", "should shouldn't", "must mustn't", "can cannot")
ANTONYMS: dict[str, set[str]] = {}
for pair in _PAIRS:
    a, b = pair.split()
    ANTONYMS.setdefault(a, set()).add(b)
    ANTONYMS.setdefault(b, set()).add(a)


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


@lru_cache(maxsize=250_000)
def _word_set(text: str) -> frozenset[str]:
    """The words of a fact's text, read once however many pairs it is in."""
    return frozenset(words(text))


@lru_cache(maxsize=250_000)
def _ids_in(topic: str) -> frozenset[str]:
    return frozenset(w for w in words(topic) if _HAS_DIGIT.search(w))


_DAYS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "mondays", "tuesdays",
         "wednesdays", "thursdays", "fridays", "saturdays", "sundays", "january", "february", "march", "april", "may",
         "june", "july", "august", "september", "october", "november", "december", "am", "pm"}
_HAS_DIGIT = re.compile(r"\d")
#: words outside the values that may differ (rewording); more, and the two are about different things
MAX_OTHER_WORDS = {"numbers": 1, "negation": 2, "opposites": 2}


@lru_cache(maxsize=250_000)
def _is_value(word: str) -> bool:
    return bool(_NUMBER.match(word)) or word in _DAYS or word in NEGATIONS or word in ANTONYMS


def disagreement(a: str, b: str, topic_a: str = "", topic_b: str = "") -> str | None:
    """The cue that says ``a`` and ``b`` disagree (``negation``, ``numbers``, ``opposites``), or None.

    Besides the cue, the texts may differ in at most ``MAX_OTHER_WORDS`` other words (a
    different service or ticket named is a different subject, not a correction), and topics
    that carry different numbers or identifiers (``ACME-1260`` / ``ACME-1691``) name different things."""
    ta, tb = _ids_in(topic_a), _ids_in(topic_b)
    if ta and tb and ta != tb:
        return None
    sa, sb = _word_set(a), _word_set(b)
    if sa == sb:
        return None
    only_a, only_b = sa - sb, sb - sa
    others = sum(1 for w in only_a | only_b if not _is_value(w))
    cue = None
    if (len(sa & NEGATIONS) % 2) != (len(sb & NEGATIONS) % 2) and (only_a | only_b) & NEGATIONS:
        cue = "negation"
    elif ({w for w in only_a if _NUMBER.match(w) or w in _DAYS}
          and {w for w in only_b if _NUMBER.match(w) or w in _DAYS}):
        cue = "numbers"
    elif any(ANTONYMS.get(w, set()) & only_b for w in only_a):
        cue = "opposites"
    if cue is None or others > MAX_OTHER_WORDS[cue]:
        return None
    return cue


def differ_in_values(a: str, b: str, topic_a: str = "", topic_b: str = "") -> bool:
    """Whether two close texts name different things or values (different identifiers in their topics,
    different numbers, a negation or an opposite): then they are not copies of each other."""
    if _ids_in(topic_a) != _ids_in(topic_b):
        return True
    sa, sb = _word_set(a), _word_set(b)
    only_a, only_b = sa - sb, sb - sa
    if (only_a | only_b) & NEGATIONS:
        return True
    if any(_HAS_DIGIT.search(w) or w in _DAYS for w in only_a | only_b):
        return True
    return any(ANTONYMS.get(w, set()) & only_b for w in only_a)



def subject_key(topic: str) -> int:
    """A hash of the identifiers a fact's topic carries (0: none): two facts whose keys differ
    (both not 0) name different things, and neither rule below judges them."""
    ids = _ids_in(topic)
    return hash(ids) if ids else 0


def word_counts(content: str) -> tuple[int, bool]:
    """How many of a fact's words are not values, and whether it has a value word (a number,
    a day, a negation, an opposite)."""
    ws = _word_set(content)
    values = sum(1 for w in ws if _is_value(w))
    return len(ws) - values, values > 0


# Over millions of close pairs at once (arrays), what the rules need before they can say
# anything; the rules then judge the few that pass (neither check drops a pair they would keep).
def same_subject(key_a, key_b):
    """The pairs ``disagreement`` does not refuse for different identifiers in their topics."""
    return (key_a == 0) | (key_b == 0) | (key_a == key_b)


def could_disagree(plain_a, plain_b, valued_a, valued_b):
    """Of those, the pairs it may find a cue in: at most ``MAX_OTHER_WORDS`` more plain words on
    one side than the other, and a value word somewhere."""
    return (abs(plain_a - plain_b) <= max(MAX_OTHER_WORDS.values())) & (valued_a | valued_b)


def could_copy(key_a, key_b):
    """The pairs ``differ_in_values`` may call copies (the same identifiers in their topics)."""
    return key_a == key_b


_NAME = re.compile(r"(?<![\w.])(?:[A-Z][\w-]*|[A-Z]{2,}\d*)(?:\s+(?:[A-Z][\w-]*|\d+))*")
_IDENT = re.compile(r"\b[\w.-]*\d[\w.-]*\b|\b[A-Za-z]\w*[_/]\w[\w./-]*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+)([A-Z][a-z]+)\b")


@lru_cache(maxsize=250_000)
def named_things(text: str) -> frozenset[str]:
    """What a fact's text is about, by name: capitalised names (``Webhooks Service``, ``Backend``)
    and identifiers (``ACME-1234``, ``invoices.v2``), a sentence's first word left out."""
    starts = {m.start(1) for m in _SENTENCE_START.finditer(text)}
    names = {m.group().lower() for m in _NAME.finditer(text) if m.start() not in starts}
    return frozenset(names | {m.group().lower() for m in _IDENT.finditer(text) if not _NUMBER.match(m.group())})


def same_subject_text(a_topic: str, a: str, b_topic: str, b: str) -> bool:
    """Whether two facts are about the same thing: they name the same things (a copy about another
    component, service or ticket is a different fact; two that name nothing are about what they say)."""
    return named_things(a) == named_things(b)
