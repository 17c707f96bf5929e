"""Providers' token formats, from a maintained rule set: Kingfisher's (MongoDB, Apache-2.0,
the ``kingfisher-secret-scanner`` package), which bundles the Betterleaks/Gitleaks rules
(GitHub fine-grained, GitLab, Anthropic, Google API, Stripe, Vault, Terraform Cloud, Docker
Hub, Slack, Twilio, … — 488 rules) and its own, compiled into one Vectorscan database.
Scanning is offline and in process; nothing is downloaded.

Compiling the rules takes about 10 s; Kingfisher keeps the compiled database in a cache
folder (the desk's own, ``MEMORY_DESK_RULE_CACHE`` or the user cache folder), after which
loading takes about a second. Only the rules' *visible* findings count (a helper pattern
that needs a partner is not a finding alone).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class ProviderHit:
    rule: str  # e.g. betterleaks.gitlab-pat
    name: str  # a readable name, e.g. "GitLab personal access token"
    start: int  # character offsets into the text
    end: int


_LOCK = threading.Lock()


def _cache_dir() -> str | None:
    chosen = os.environ.get("MEMORY_DESK_RULE_CACHE")
    if chosen:
        return chosen
    try:
        from platformdirs import user_cache_dir
    except ImportError:  # pragma: no cover - platformdirs is a dependency
        return None
    return os.path.join(user_cache_dir("memory-desk", appauthor=False), "secret-rules")


@lru_cache(maxsize=1)
def _scanner():
    from kingfisher_sdk import Rules, Scanner

    folder = _cache_dir()
    if folder:
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
        except OSError:
            folder = None
    rules = Rules(confidence="medium", cache=folder is not None, cache_dir=folder)
    return Scanner(rules, base64=False)


def available() -> bool:
    try:
        import kingfisher_sdk  # noqa: F401
    except ImportError:
        return False
    return True


def readable(rule: str) -> str:
    """``betterleaks.gitlab-pat`` → ``gitlab pat``."""
    name = rule.split(".", 1)[-1].split("/")[-1]
    return name.replace("-", " ").replace("_", " ")


def find_provider_tokens(text: str) -> list[ProviderHit]:
    """Every provider token the rule set finds in ``text`` (character offsets)."""
    if not text or not available():
        return []
    data = text.encode("utf-8", "surrogatepass")
    with _LOCK:
        found = _scanner().scan(data)
    out = []
    ascii_only = len(data) == len(text)
    for f in found:
        if not f.visible:
            continue
        loc = f.location
        secret = f.secret or ""
        start_b, end_b = int(loc.get("start_offset", 0)), int(loc.get("end_offset", 0))
        start, end = (start_b, end_b) if ascii_only else (len(data[:start_b].decode("utf-8", "replace")),
                                                          len(data[:end_b].decode("utf-8", "replace")))
        if secret:  # the secret inside the match (a rule's match may hold its keyword too)
            where = text.find(secret, start, max(end, start + len(secret)))
            if where < 0:
                where = text.find(secret)
            if where >= 0:
                start, end = where, where + len(secret)
        out.append(ProviderHit(f.rule_id, readable(f.rule_id), start, end))
    return out
