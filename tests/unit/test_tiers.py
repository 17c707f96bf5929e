"""The tier engine: FIFO capacity, transactional promotions, heat, scoped recall, receipts."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from memorydesk import SOURCE_VERSION
from memorydesk.core.health.scalar import classify
from memorydesk.core.health.table import HealthState
from memorydesk.lineage import receipt_store, tiers
from memorydesk.lineage.recall import dispatch, retrieve
from memorydesk.lineage.tiers import PAGES, SEGMENTS, TierConfig, TierEngine, heat

T0 = 1_790_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def engine(ws, clock, **config) -> TierEngine:
    return TierEngine(ws, TierConfig(**config), clock=clock)


def count(ws, table) -> int:
    with ws.read() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar()


def at(seconds: float) -> datetime:
    return datetime.fromtimestamp(int(seconds), UTC)


def test_capacity_moves_the_oldest_on_with_its_receipts(ws, clock) -> None:
    eng = engine(ws, clock, stm_capacity=2, waiting_window_s=3600)
    made = []
    for n in range(4):
        clock.now += 10
        made.append(eng.remember("u", "a", f"note {n} about hiking", run_id="run-1"))
    assert [v for _, v in made] == ["v1", "v2", "v3", "v4"]
    with ws.read() as conn:
        left = [r.version for r in eng.stm_items(conn, "u", "a")]
        paged = sorted(conn.execute(select(PAGES.c.version)).scalars())
    assert left == ["v3", "v4"] and paged == ["v1", "v2"]
    v1 = [r for r in receipt_store.load(ws) if r.version == "v1"]
    assert [(r.tier, r.status, r.source_present) for r in v1] == [
        ("stm", "committed", True), ("stm", "committed", False), ("mtm", "committed", None)]
    assert v1[0].waiting_until == at(T0 + 10 + 3600)
    assert all(r.run_id == "run-1" and r.source_version == SOURCE_VERSION for r in v1)
    # v3 and v4 wait in STM inside their window: the run is waiting, not at risk
    (verdict,) = classify(receipt_store.load(ws), now=at(clock.now))
    assert verdict.state == HealthState.WAITING


def test_a_failed_promotion_changes_nothing(ws, clock, monkeypatch) -> None:
    eng = engine(ws, clock, stm_capacity=5)
    item_id, _ = eng.remember("u", "a", "keep me safe", run_id="r")
    before = len(receipt_store.load(ws))

    def boom(conn, receipts):
        raise RuntimeError("crash while recording receipts")

    monkeypatch.setattr(tiers.receipt_store, "insert", boom)
    with pytest.raises(RuntimeError):
        eng.promote_to_mtm(item_id)
    monkeypatch.undo()
    with ws.read() as conn:
        assert [r.id for r in eng.stm_items(conn, "u", "a")] == [item_id]
    assert count(ws, PAGES) == 0 and count(ws, SEGMENTS) == 0 and len(receipt_store.load(ws)) == before


def test_the_summariser_runs_while_the_source_is_still_there(ws, clock) -> None:
    seen = []

    class Watching:
        def keywords(self, texts):
            with ws.read() as conn:
                seen.append(len(eng.stm_items(conn, "u", "a")))
            return ["hiking"]

        def summarize(self, texts):
            raise ConnectionError("summary service down")

    eng = TierEngine(ws, TierConfig(stm_capacity=5), summarizer=Watching(), clock=clock)
    item_id, _ = eng.remember("u", "a", "hiking in the alps", run_id="r")
    with pytest.raises(ConnectionError):
        eng.promote_to_mtm(item_id)
    assert seen == [1]
    with ws.read() as conn:  # the failure cost nothing: the item is still in STM
        assert [r.id for r in eng.stm_items(conn, "u", "a")] == [item_id]


def test_pages_on_one_theme_share_a_segment(ws, clock) -> None:
    eng = engine(ws, clock, stm_capacity=0)
    eng.remember("u", "a", "hiking boots hiking trail", run_id="r")
    eng.remember("u", "a", "hiking trail map hiking", run_id="r")
    eng.remember("u", "a", "tax return deadline paperwork", run_id="r")
    assert count(ws, PAGES) == 3 and count(ws, SEGMENTS) == 2


def test_heat_formula() -> None:
    assert heat(2, 3, T0, T0) == pytest.approx(6.0)
    assert heat(0, 1, T0 - 24 * 3600, T0) == pytest.approx(1 + math.exp(-1))
    assert heat(1, 0, T0 - 48 * 3600, T0) == pytest.approx(1 + math.exp(-2))


def test_hot_segments_become_durable_facts(ws, clock) -> None:
    eng = engine(ws, clock, stm_capacity=0, heat_threshold=3.5)

    def page(n: int) -> None:
        eng.remember("u", "a", f"hiking trail number {n} hiking", run_id="r", memory_type="preference",
                     importance=0.6)

    page(0)
    page(1)
    assert eng.hot_segments() == []  # N 0 + L 2 + R 1.0 = 3.0 < 3.5
    page(2)
    hot = eng.hot_segments()  # N 0 + L 3 + R 1.0 = 4.0
    assert len(hot) == 1
    clock.now += 48 * 3600
    assert eng.hot_segments() == []  # 3 + e^-2 cools below the threshold
    retrieve(eng, "u", "a", "hiking")  # a visit: N 1 + L 3 + R 1.0
    assert eng.hot_segments() == hot
    facts = eng.promote_to_lpm(hot[0])
    assert count(ws, PAGES) == 0 and count(ws, SEGMENTS) == 0
    table = ws.layout.facts
    with ws.read() as conn:
        rows = conn.execute(select(table).where(table.c.id.in_(facts))).all()
    assert {(r.domain, r.topic, r.authored_by_agent_id, r.memory_type) for r in rows} == {
        ("working-memory", "u", "a", "preference")}
    lpm = [r.version for r in receipt_store.load(ws) if r.tier == "lpm"]
    assert lpm == ["v1", "v2", "v3"]


def test_recall_stays_in_its_lane_and_leaves_receipts(ws, clock) -> None:
    eng = engine(ws, clock, stm_capacity=1)
    eng.remember("lena", "companion", "lena prefers green tea", run_id="r-lena")
    eng.remember("lena", "companion", "lena walks the dog at seven", run_id="r-lena")
    eng.remember("omar", "companion", "omar prefers black coffee", run_id="r-omar")
    assert retrieve(eng, "omar", "companion", "green tea dog").memories == []
    assert retrieve(eng, "lena", "other-assistant", "green tea").memories == []
    found = retrieve(eng, "lena", "companion", "tea dog", run_id="r-lena")
    assert {m.content for m in found.memories} == {"lena prefers green tea", "lena walks the dog at seven"}
    assert {m.tier for m in found.memories} == {"stm", "mtm"} and found.version == "v2"
    out = dispatch(eng, "lena", "companion", "what does lena drink with the dog", run_id="r-lena")
    assert out.depends_on == "v2" and out.outcome.startswith("sha256:")
    receipts = [r for r in receipt_store.load(ws) if r.run_id == "r-lena"]
    generation = [r for r in receipts if r.tier == "generation"]
    assert [(g.depends_on_version, g.outcome_receipt) for g in generation] == [("v2", out.outcome)]
    verdicts = {v.run_id: v.state for v in classify(receipt_store.load(ws), now=at(clock.now))}
    assert verdicts["r-lena"] in (HealthState.HEALTHY, HealthState.WAITING)


def test_broken_promotion_hook_is_caught_by_the_classifier(ws, clock, monkeypatch) -> None:
    monkeypatch.setenv(tiers.BREAK_PROMOTION_ENV, "1")
    eng = engine(ws, clock, stm_capacity=1)
    eng.remember("u", "a", "first", run_id="r")
    eng.remember("u", "a", "second", run_id="r")
    assert count(ws, PAGES) == 0
    (verdict,) = classify(receipt_store.load(ws), now=at(clock.now))
    assert verdict.state == HealthState.SOURCE_AT_RISK and "v1" in verdict.reason


def test_two_alike_events_stay_two_receipts_through_an_otlp_round_trip(ws, clock, tmp_path) -> None:
    """The operator's finding: the canary retrieves one version twice in one second; both
    ``retrieval verified`` receipts were alike in every field and had no receiptId, so an
    OTLP/JSON export ingested into a fresh workspace kept one ("skipped 7 already stored").
    The desk's own receipts carry an id each: the round trip keeps every one."""
    from memorydesk.lineage.receipt_files import export_file, read_receipts
    from memorydesk.store import open_workspace

    tier = engine(ws, clock, stm_capacity=5)
    tier.remember("u", "a", "deploy keys rotate monthly", run_id="r1")
    retrieve(tier, "u", "a", "deploy keys", run_id="r1")
    retrieve(tier, "u", "a", "deploy keys", run_id="r1")  # the same second, the same version
    stored = receipt_store.load(ws)
    retrievals = [r for r in stored if r.tier == "retrieval"]
    assert len(retrievals) == 2 and len({r.receipt_id for r in stored}) == len(stored)
    export_file(ws, tmp_path / "out.json", "otlp-json")
    with open_workspace(tmp_path / "fresh.db", create=True) as fresh:
        done = receipt_store.ingest(fresh, read_receipts(tmp_path / "out.json"))
        assert done.skipped == 0
        assert sorted(r.receipt_id for r in receipt_store.load(fresh)) == sorted(r.receipt_id for r in stored)
