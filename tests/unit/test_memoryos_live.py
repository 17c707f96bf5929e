"""The live MemoryOS driver does what the crash tests rely on: the real MemoryOS runs, and a
SIGKILL inside a migration leaves the popped QA in neither file."""

from __future__ import annotations

import importlib.util

import pytest

from fixtures.memoryos_live import MEMORYOS_SRC, MemoryOSProcess, StubLLM, answer, unavailable_reason

pytestmark = [pytest.mark.slow, pytest.mark.shared,
              pytest.mark.skipif(unavailable_reason() is not None, reason=unavailable_reason() or "")]


def test_stub_answers_every_prompt_kind_memoryos_parses():
    spec = importlib.util.spec_from_file_location("memoryos_prompts", MEMORYOS_SRC / "memoryos" / "prompts.py")
    prompts = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(prompts)  # MemoryOS's own prompt texts
    kinds = {
        prompts.CONTINUITY_CHECK_SYSTEM_PROMPT: "continuity", prompts.META_INFO_SYSTEM_PROMPT: "meta_info",
        prompts.MULTI_SUMMARY_SYSTEM_PROMPT: "multi_summary", prompts.PERSONALITY_ANALYSIS_SYSTEM_PROMPT: "profile",
        prompts.KNOWLEDGE_EXTRACTION_SYSTEM_PROMPT: "knowledge",
        prompts.GENERATE_SYSTEM_RESPONSE_SYSTEM_PROMPT: "response",
    }
    for system, route in kinds.items():
        assert answer(system, "User: I like climbing walls\nAssistant: nice")[0] == route


def test_kill_inside_a_migration_loses_the_popped_qa(tmp_path):
    data = tmp_path / "data"
    with StubLLM() as llm, MemoryOSProcess(data, llm, user_id="ana", short_term_capacity=2) as mos:
        mos.add("I started bouldering at the climbing gym", "Fun! Mind your fingers.", "2026-03-01 10:00:00")
        mos.add("Bouldering again, my fingers hurt", "Rest a day.", "2026-03-01 10:05:00")
        mos.add("Climbing gym tomorrow with friends", "Enjoy it.", "2026-03-01 10:10:00")
        assert [q["timestamp"] for q in mos.short_term()] == ["2026-03-01 10:05:00", "2026-03-01 10:10:00"]
        assert [p["timestamp"] for p in mos.mid_term_pages()] == ["2026-03-01 10:00:00"]
        killed = mos.add_killed_in_migration("New shoes for climbing", "Break them in.", "2026-03-01 10:20:00")
    assert killed.returncode == -9
    assert killed.lost_qa["timestamp"] == "2026-03-01 10:05:00"
    assert [q["timestamp"] for q in killed.short_term_after] == ["2026-03-01 10:10:00"]
    assert "2026-03-01 10:05:00" not in [p["timestamp"] for p in mos.mid_term_pages()]
