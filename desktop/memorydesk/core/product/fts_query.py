"""The product's keyword-search query builder for the FTS5 index ``memory_facts_fts``.

Rules (read from the product's ``fts_query_utils.dart``; both indexed revisions agree):
lower-case the query; turn every character outside ``[a-z0-9]`` and whitespace into a
space; split on whitespace; drop tokens shorter than two characters and the stopwords
below; keep the first occurrence of each token; join as ``tok1* OR tok2* …``.

Only ASCII letters and digits survive, so a Hebrew query yields no terms at all and
``Löschfrist`` yields ``schfrist*`` (``l`` is too short). That is the product's
behaviour and the desk reproduces it rather than fixing it.
"""

from __future__ import annotations

import re
from typing import Final, Sequence

from memorydesk.core.product.text import dart_lower

__all__ = [
    "FACT_TEXT_COLUMNS",
    "FTS_STOPWORDS",
    "build_fts_query",
    "is_keyword_reachable",
    "keyword_terms",
    "scoped_match",
]

#: The product's fixed English stopword list for keyword search (pronouns,
#: articles, auxiliaries, question words and contraction leftovers).
FTS_STOPWORDS: Final[frozenset[str]] = frozenset(
    """
    a an the is are was were be been
    i me my mine we us our you your he she it they them their
    and or but if in on at to of for with by as from
    this that these those what who whom whose where when why how
    do does did have has had
    s t m re ve ll d
    """.split()
)

#: The FTS columns the fact search matches against.
FACT_TEXT_COLUMNS: Final = ("topic", "content")

_NOT_ASCII_ALNUM = re.compile(r"[^a-z0-9]")
_HAS_ASCII_ALNUM = re.compile(r"[A-Za-z0-9]")


def keyword_terms(query: str) -> list[str]:
    """The search terms the product extracts from ``query``, in first-seen order."""
    # Whitespace and every other non-[a-z0-9] character end up as separators alike,
    # so replacing all of them with a space splits exactly where the product splits.
    cleaned = _NOT_ASCII_ALNUM.sub(" ", dart_lower(query))
    terms: dict[str, None] = {}
    for token in cleaned.split():
        if len(token) >= 2 and token not in FTS_STOPWORDS:
            terms.setdefault(token, None)
    return list(terms)


def is_keyword_reachable(topic: str | None, content: str | None) -> bool:
    """Whether some keyword query of the product can match this fact at all.

    The product's query keeps only ``[a-z0-9]`` tokens of two or more characters that
    are not stopwords; a fact whose topic and content hold no such token (pure Hebrew,
    Japanese, emoji, or only stopwords like "is it the") is invisible to the agent's
    keyword path and to the dispatch preamble.
    """
    return bool(keyword_terms(f"{topic or ''} {content or ''}"))



def build_fts_query(query: str) -> str | None:
    """``tok1* OR tok2* …`` for ``query``, or ``None`` when no term survives."""
    terms = keyword_terms(query)
    if not terms:
        return None
    return " OR ".join(f"{term}*" for term in terms)


def scoped_match(
    query: str,
    workspace_id: str,
    columns: Sequence[str] = FACT_TEXT_COLUMNS,
) -> str | None:
    """The full MATCH expression, scoped to one workspace at the index level.

    ``({topic content} : (<terms>)) AND (workspace_id : "<workspace id>")``. Double
    quotes are removed from the id; an id without any ASCII letter or digit would
    tokenise to nothing, so the product then leaves the workspace clause out and
    returns just ``{topic content} : (<terms>)``. ``None`` when there are no terms.
    The caller must still filter ``workspace_id = ?`` in SQL.
    """
    terms = build_fts_query(query)
    if terms is None:
        return None
    text_expr = "{" + " ".join(columns) + "} : (" + terms + ")"
    if not _HAS_ASCII_ALNUM.search(workspace_id):
        return text_expr
    phrase = '"' + workspace_id.replace('"', "") + '"'
    return f"({text_expr}) AND (workspace_id : {phrase})"
