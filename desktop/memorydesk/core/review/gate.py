"""Which of many patterns can match a text, found in one pass, so that only those are run.

A regular expression can only match where one of its *required pieces* occurs: the literal
strings, at least one of which every match contains (``required`` reads them from the
pattern's parse tree: a run of literal characters; for an alternation, a piece of each
branch; for a sequence, the element whose pieces are longest). All pieces of all patterns
go into one Aho–Corasick automaton (``pyahocorasick``); a text is read once, lower-cased, and
a pattern none of whose pieces occurs is not run at all. The answer is the same as running
every pattern — the gate only skips what cannot match — and a pattern whose pieces cannot be
read (one that can match an empty or any string) is always run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import ahocorasick

try:  # Python 3.11+
    from re import _constants as C
    from re import _parser as P
except ImportError:  # pragma: no cover
    import sre_constants as C  # type: ignore[no-redef]
    import sre_parse as P  # type: ignore[no-redef]

_MIN = 2  # a piece shorter than this opens the gate too often to be worth keeping
_START = "\x00"  # marks a piece that the pattern reads only at the start of a word


def _selective(piece: str) -> bool:
    core = piece.lstrip(_START)
    return len(core) >= _MIN or (len(core) == 1 and not core.isalnum() and core not in ". \n")


#: words so common that a piece equal to one of them says little (the gate prefers another piece)
_COMMON = frozenset("""the a an and or of to in on at for from with by as is are was were be this that these those it
you your we our they their he she his her which who what when where if not no all any every each read system si se
le la les de des du el los las del da do das dos il lo di der die das den dem und ist""".split())


def _weight(piece: str) -> int:
    core = piece.lstrip(_START)
    return 1 if core in _COMMON else len(core)


def _best(options: list[set[str]]) -> set[str] | None:
    """Of several sets that each must occur, the most selective: the longest shortest piece (a common word
    counts as short), then the fewest pieces."""
    usable = [o for o in options if o and all(map(_selective, o))]
    if not usable:
        return None
    return max(usable, key=lambda o: (min(map(_weight, o)), -len(o)))


def _is_space(op, av) -> bool:
    """A character that is never part of a word: a space, or a class of punctuation only."""
    if op is C.IN:
        spaces = (C.CATEGORY_SPACE, C.CATEGORY_UNI_SPACE, C.CATEGORY_NOT_WORD, C.CATEGORY_UNI_NOT_WORD)
        return all((o is C.CATEGORY and v in spaces) or (o is C.LITERAL and not (chr(v).isalnum() or chr(v) == "_"))
                   or (o is C.RANGE and not any(chr(x).isalnum() or chr(x) == "_" for x in range(v[0], v[1] + 1)))
                   or o is C.NEGATE and False
                   for o, v in av)
    if op is C.LITERAL:
        return not (chr(av).isalnum() or chr(av) == "_")
    if op in (C.MAX_REPEAT, C.MIN_REPEAT) or (hasattr(C, "POSSESSIVE_REPEAT") and op is C.POSSESSIVE_REPEAT):
        sub = list(av[2])
        return av[0] >= 1 and len(sub) == 1 and _is_space(*sub[0])
    return False


def _boundary(op, av) -> bool:
    """A zero-width test or a space after which a word starts: \\b, (?<!\\w), \\s+, ^."""
    if op is C.AT:
        return av in (C.AT_BOUNDARY, C.AT_UNI_BOUNDARY, C.AT_BEGINNING, C.AT_BEGINNING_LINE, C.AT_BEGINNING_STRING)
    if op is C.ASSERT_NOT:
        return av[0] == -1  # a negative look-behind, as (?<!\w)
    return _is_space(op, av)


def _heads(op, av) -> set[str] | None:
    """The literal text every branch of a group starts with, one per branch (``\\.(?:com|net)`` → com, net)."""
    if op is C.SUBPATTERN:
        items = list(av[-1])
        return _heads(*items[0]) if len(items) == 1 else _lead(items)
    if op is C.BRANCH:
        out: set[str] = set()
        for branch in av[1]:
            got = _lead(list(branch))
            if got is None:
                return None
            out |= got
        return out
    return None


def _lead(items: list) -> set[str] | None:
    run = []
    for op, av in items:
        if op is not C.LITERAL:
            break
        run.append(chr(av))
    if run:
        return {"".join(run).lower()}
    return _heads(*items[0]) if items else None


def _ends_open(op, av) -> bool:
    """An optional part that, when present, ends where a word starts ("(?:automated\\s+)?")."""
    if op in (C.MAX_REPEAT, C.MIN_REPEAT) or (hasattr(C, "POSSESSIVE_REPEAT") and op is C.POSSESSIVE_REPEAT):
        sub = list(av[2])
        return bool(sub) and (_boundary(*sub[-1]) or _ends_open(*sub[-1]))
    if op is C.SUBPATTERN:
        sub = list(av[-1])
        return bool(sub) and (_boundary(*sub[-1]) or _ends_open(*sub[-1]))
    if op is C.BRANCH:
        return all(b and (_boundary(*list(b)[-1]) or _ends_open(*list(b)[-1])) for b in av[1])
    return False


def _ends_boundary(op, av) -> bool:
    """A required part after which a word starts: a group each of whose branches ends in a space or
    punctuation (possibly followed by optional spaces), or at the start of a line."""
    if op is C.SUBPATTERN:
        items = list(av[-1])
        return bool(items) and _tail_boundary(items)
    if op is C.BRANCH:
        return all(_tail_boundary(list(b)) for b in av[1])
    return False


def _tail_boundary(items: list) -> bool:
    while items and items[-1][0] in (C.MAX_REPEAT, C.MIN_REPEAT) and items[-1][1][0] == 0 and all(
            _boundary(*x) for x in items[-1][1][2]):
        items = items[:-1]
    if not items:
        return True
    op, av = items[-1]
    return _boundary(op, av) or _ends_boundary(op, av)


def _seq(items: Iterable, at_start: bool = False) -> set[str] | None:
    options: list[set[str]] = []
    run: list[str] = []
    run_at_start = False
    prev = at_start

    def flush() -> None:
        if run:
            word = "".join(run).lower()
            options.append({(_START + word) if run_at_start and word[:1].isalpha() else word})
            run.clear()

    for op, av in items:
        if op is C.LITERAL:
            if not run:
                run_at_start = prev
            run.append(chr(av))
            prev = False
            continue
        if run and op in (C.SUBPATTERN, C.BRANCH):  # a literal run and the group right after it, read as one
            heads = _heads(op, av)
            if heads:
                lead = "".join(run).lower()
                options.append({(_START if run_at_start and lead[:1].isalpha() else "") + lead + h for h in heads})
        flush()
        if _boundary(op, av):
            prev = True
            continue
        if op in (C.MAX_REPEAT, C.MIN_REPEAT) and av[0] == 0 and all(_boundary(*x) for x in av[2]):
            continue  # "\\s*" after a boundary keeps it
        if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
            continue
        got = _node(op, av, prev)
        if got is not None:
            options.append(got)
        optional = op in (C.MAX_REPEAT, C.MIN_REPEAT) and av[0] == 0
        prev = (prev and optional and _ends_open(op, av)) or _ends_boundary(op, av)
    flush()
    return _best(options)


def _node(op, av, at_start: bool = False) -> set[str] | None:
    if op is C.SUBPATTERN:
        return _seq(av[-1], at_start)
    if hasattr(C, "ATOMIC_GROUP") and op is C.ATOMIC_GROUP:
        return _seq(av, at_start)
    if op is C.BRANCH:
        out: set[str] = set()
        for branch in av[1]:
            got = _seq(branch, at_start)
            if got is None:
                return None
            out |= got
        return out
    if op in (C.MAX_REPEAT, C.MIN_REPEAT) or (hasattr(C, "POSSESSIVE_REPEAT") and op is C.POSSESSIVE_REPEAT):
        low, _high, sub = av
        return _seq(sub, at_start) if low >= 1 else None
    if op is C.IN:  # a one-character class of a single character: that character
        lits = {chr(v).lower() for o, v in av if o is C.LITERAL}
        return lits if lits and all(o is C.LITERAL for o, _v in av) and len(lits) == 1 else None
    return None


def required(pattern: str | re.Pattern[str]) -> set[str] | None:
    """Literal pieces (lower-case) one of which every match of ``pattern`` contains; None when
    there are none to rely on. A piece the pattern reads only at the start of a word begins with
    ``_START``."""
    src = pattern.pattern if isinstance(pattern, re.Pattern) else pattern
    try:
        tree = P.parse(src, re.IGNORECASE | re.MULTILINE)
    except re.error:
        return None
    return _seq(list(tree))


def _strict(ch: str) -> bool:
    """A character no ASCII character matches, even ignoring case."""
    return all(c >= "\x80" for form in (ch, ch.lower(), ch.upper(), ch.casefold()) for c in form)


def _beyond_ascii(items) -> bool:
    """Whether every match of a parsed sequence holds a character no ASCII character matches."""
    for op, av in items:
        if op is C.LITERAL and _strict(chr(av)):
            return True
        if op is C.IN and all((o is C.LITERAL and _strict(chr(v)))
                              or (o is C.RANGE and all(_strict(chr(x)) for x in range(v[0], v[1] + 1)))
                              for o, v in av):
            return True
        if op is C.SUBPATTERN and _beyond_ascii(av[-1]):
            return True
        if hasattr(C, "ATOMIC_GROUP") and op is C.ATOMIC_GROUP and _beyond_ascii(av):
            return True
        if op is C.BRANCH and all(_beyond_ascii(b) for b in av[1]):
            return True
        if op in (C.MAX_REPEAT, C.MIN_REPEAT) or (hasattr(C, "POSSESSIVE_REPEAT") and op is C.POSSESSIVE_REPEAT):
            if av[0] >= 1 and _beyond_ascii(av[2]):
                return True
    return False


def beyond_ascii(pattern: re.Pattern[str]) -> bool:
    """Whether ``pattern`` can only match where a text holds a character beyond ASCII (a pattern
    for Chinese or Hebrew words alone): an ASCII text need not be searched with it."""
    try:
        return _beyond_ascii(list(P.parse(pattern.pattern, pattern.flags)))
    except re.error:
        return False


class Gate:
    """The patterns a text can match, by name."""

    def __init__(self, patterns: dict[str, re.Pattern[str]]) -> None:
        self.always: set[str] = set()
        #: patterns that match only text beyond ASCII: never open on an ASCII text
        self.beyond_ascii = frozenset(name for name, rx in patterns.items() if beyond_ascii(rx))
        self._auto = ahocorasick.Automaton()
        owners: dict[str, dict[bool, set[str]]] = {}
        for name, rx in patterns.items():
            pieces = required(rx)
            if pieces is None:
                self.always.add(name)
                continue
            for piece in pieces:
                owners.setdefault(piece.lstrip(_START), {}).setdefault(piece.startswith(_START), set()).add(name)
        # each piece: its length, the names it opens at the start of a word, the names it opens anywhere
        self._pieces: list[tuple[int, frozenset[str], frozenset[str]]] = []
        for piece, by_start in owners.items():
            self._auto.add_word(piece, len(self._pieces))
            self._pieces.append((len(piece), frozenset(by_start.get(True, ())), frozenset(by_start.get(False, ()))))
        if owners:
            self._auto.make_automaton()

    def open(self, text: str) -> set[str]:
        """The names of the patterns that may match ``text``."""
        out = self._open(text)
        return out - self.beyond_ascii if self.beyond_ascii and text.isascii() else out

    def _open(self, text: str) -> set[str]:
        out = set(self.always)
        if not self._pieces:
            return out
        low = text.lower()
        anywhere: set[int] = set()
        starts: dict[int, list[int]] = {}
        for end, k in self._auto.iter(low):
            anywhere.add(k)
            if self._pieces[k][1]:
                starts.setdefault(k, []).append(end)
        for k in anywhere:
            out |= self._pieces[k][2]
        for k, ends in starts.items():
            size = self._pieces[k][0]
            for end in ends:
                start = end - size + 1
                if start == 0 or not (low[start - 1].isalnum() or low[start - 1] == "_"):
                    out |= self._pieces[k][1]
                    break
        return out


class Pieces:
    """Whether a text holds any of several strings, found in one pass (the same answer as testing
    ``piece in text`` for each)."""

    def __init__(self, pieces: Iterable[str]) -> None:
        self._auto = ahocorasick.Automaton()
        for piece in pieces:
            self._auto.add_word(piece, piece)
        self._auto.make_automaton()

    def any_in(self, text: str) -> bool:
        return next(self._auto.iter(text), None) is not None

    def found_in(self, text: str) -> frozenset[str]:
        """The pieces ``text`` holds."""
        return frozenset(piece for _end, piece in self._auto.iter(text))


def any_matches(gate: Gate, patterns: dict[str, re.Pattern[str]], text: str) -> bool:
    """Whether any of ``patterns`` (the ones ``gate`` was made of) matches ``text``; only those
    the gate leaves open are run."""
    return any(patterns[name].search(text) is not None for name in gate.open(text))


def alternatives(source: str) -> list[str] | None:
    """The top-level alternatives of a pattern's source (``a|b(c|d)`` → ``a``, ``b(c|d)``), or None when
    they cannot be read for certain (each must compile, and as many as the parser finds)."""
    out, depth, start, i, in_class, opened = [], 0, 0, 0, False, -1
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            # a class ends at "]", unless the "]" comes first in it ("[]…]", "[^]…]")
            in_class = ch != "]" or i == opened + 1 or (i == opened + 2 and source[opened + 1] == "^")
        elif ch == "[":
            in_class, opened = True, i
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(source[start:i])
            start = i + 1
        i += 1
    out.append(source[start:])
    try:
        tree = list(P.parse(source, re.IGNORECASE | re.MULTILINE))
        for part in out:
            re.compile(part, re.IGNORECASE | re.MULTILINE)
    except re.error:
        return None
    branches = len(tree[0][1][1]) if len(tree) == 1 and tree[0][0] is C.BRANCH else 1
    return out if len(out) == branches else None


class Split:
    """A pattern's top-level alternatives, each behind the gate: on an ASCII text (where lower-casing is
    the pattern's case-folding) only the alternatives whose pieces occur are run, as one pattern in
    their order, which finds what the whole pattern finds; on other text the whole pattern runs."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.parts = alternatives(pattern.pattern) or [pattern.pattern]
        self.gate = Gate({str(k): re.compile(p, pattern.flags) for k, p in enumerate(self.parts)})
        self._among: dict[frozenset[str], re.Pattern[str] | None] = {}

    def search(self, text: str) -> re.Match[str] | None:
        if len(self.parts) == 1 or not text.isascii():
            return self.pattern.search(text)
        open_parts = frozenset(self.gate.open(text))
        rx = self._among.get(open_parts, False)
        if rx is False:
            chosen = [p for k, p in enumerate(self.parts) if str(k) in open_parts]
            rx = self._among[open_parts] = re.compile("|".join(chosen), self.pattern.flags) if chosen else None
        return None if rx is None else rx.search(text)
