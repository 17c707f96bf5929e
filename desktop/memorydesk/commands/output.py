"""What a command prints on standard output: text as UTF-8 whatever the terminal's encoding
(a fact in any script prints, a lone surrogate becomes "?"), written to the byte stream."""

from __future__ import annotations

import sys


def write_out(text: str, *, flush: bool = False) -> None:
    """Write ``text`` to stdout as UTF-8; ``flush`` after a whole answer (a pipe sees it at once),
    not after each line of a long stream."""
    sys.stdout.buffer.write(text.encode("utf-8", "replace"))
    if flush:
        sys.stdout.flush()
