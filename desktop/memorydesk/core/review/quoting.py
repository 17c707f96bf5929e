"""A phrase quoted as an example is talked about, not said: "attacks such as 'ignore previous
instructions'" names an injection and carries none."""

from __future__ import annotations

import re

_OPEN_QUOTE = re.compile(r"""['"«“‘„「『]""")
_MENTION = re.compile(r"(?i)\b(?:(?:attackers?|adversaries|scammers|phishers|they|people)\s+(?:\w+\s+)?(?:write|use|"
                      r"say|"
                      r"type|insert|embed|hide|send)|such\s+as|like|e\.g\.|for\s+example|for\s+instance|phrases?|"
                      r"examples?|called|known\s+as|"
                      r"strings?|payloads?\s+like|wie\s+etwa|comme|como|come|zoals|такие\s+как|например)\W*$|例如|比如")


def quoted_mention(text: str, at: int) -> bool:
    """The place ``at`` lies inside quotation marks opened right after words that name an example
    ("attacks such as 'ignore previous instructions'"): the phrase is talked about, not said."""
    head = text[max(0, at - 80):at]
    opens = list(_OPEN_QUOTE.finditer(head))
    if not opens:
        return False
    q = opens[-1]
    return _MENTION.search(head[:q.start()].rstrip()) is not None
