"""The desk's setting for how much memory search may keep (``search/cache_mb``)."""

from __future__ import annotations

from memorydesk.search.copies import follow
from memorydesk.ui.shell import settings


def test_the_setting_bounds_what_search_keeps(qapp) -> None:
    before = follow.settings().max_bytes
    try:
        settings.apply_search_cache_setting()
        assert follow.settings().max_bytes == before  # not set: the default stays
        settings._store().setValue("search/cache_mb", 300)
        assert settings.search_cache_mb() == 300
        settings.apply_search_cache_setting()
        assert follow.settings().max_bytes == 300 * 1024 * 1024
        settings._store().setValue("search/cache_mb", "lots")
        assert settings.search_cache_mb() is None
    finally:
        follow.configure(max_bytes=before)
