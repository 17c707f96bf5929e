"""Build a realistic demo workspace through the memory service (docs/cli.md).

``build_demo(path, facts=N, seed=S)`` writes a new workspace file holding the memory
of a small software team (vocabulary in ``demo.text``): agents with the
product's roles, repo-scoped and workspace-wide domains, facts of every memory type
and veracity spread over the past ~120 days, re-mentions, contradictions and
supersession chains, cross-agent disagreements found by a harmonize pass, active
and retired policies, grants with deliberate gaps, agent notes, hot items that a
consolidation pass turned into ``working-memory`` facts, episodic edges, expired
``valid_until`` dates, and facts in Hebrew and German.

How it is written
- Agents are inserted as rows (they live outside memory; the service has no call for
  them). Every memory row comes from the service's own code paths.
- A hand-written *scenario* (the chains, disagreements, policies, grants, notes, hot
  items, foreign-language facts) is laid on a timeline together with a generated
  *stream* of facts; events run in time order, each with ``now=`` its own time.
- Up to ``BULK_THRESHOLD`` facts, every fact is one ``MemoryService.propose_fact``
  call: one transaction, the product's full link scan over all active facts.
- Above it (the bulk path), facts are written in batches of ``BATCH_SIZE`` per
  transaction with ``facts.propose_fact(..., link=False)`` — the same re-mention and
  contradiction rules (winner by confidence × veracity weight, loser superseded, a
  resolved conflict row) — and ``links.write_links`` scores each surviving fact
  against a small in-memory pool of recent active facts (the newest facts of the same
  subject first, then the newest overall) instead of scanning the whole table. The
  edge rule is the product's (score ≥ 0.35, at most 5, heaviest first); only the
  candidate set is narrower, so a bulk workspace has somewhat fewer edges than the
  product would have written. Notes, policies, hot items, consolidation and
  harmonize go through ``MemoryService`` on both paths.
- Embeddings are real (the shipped model) for the first ``embed`` facts written
  (default 2,000); later facts keep a NULL embedding, as facts written without the
  model installed do in the product.
- Build mechanics that change no memory semantics: the new file is written with
  ``synchronous = OFF`` (a failed build is deleted, and the command moves the file into
  place only when complete); ``ANALYZE`` runs as the fact table grows, so SQLite uses
  the topic index for the service's same-topic lookup; the model embeds the next chunk
  of facts in a worker thread while the current chunk is written.
- Rates on a shared 2-CPU machine: 2,000 facts on the service path with embeddings
  ~25 s; the bulk path ~300-480 facts/s (10,000 in ~21-33 s, 100,000 in ~6 min),
  dominated by building a SQLAlchemy statement per row inside the service.
- Deterministic for a seed and a reference time: content comes from
  ``random.Random(seed)``, and ids from a seeded UUID generator patched in for the
  build (``deterministic_ids``), so two builds give identical rows apart from the
  desk's own history timestamps.
"""

from __future__ import annotations

import contextlib
import itertools
import random
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import event, func, select

from memorydesk import testpoints
from memorydesk.demo import text as T
from memorydesk.demo.lineage import write_history
from memorydesk.demo.story import DAY, SPAN_DAYS, Event, Proposal, Stream, timeline
from memorydesk.embedding.embedder import binary_blob, fact_text, get_embedder, to_blob
from memorydesk.lineage import receipt_store
from memorydesk.memory import facts as fact_ops
from memorydesk.memory import links, policies, rows
from memorydesk.memory.reviewer import Reviewer
from memorydesk.memory.service import MemoryService
from memorydesk.store import Workspace, open_workspace
from memorydesk.store import workspace as workspace_module
from memorydesk.store.retry import with_retry

BULK_THRESHOLD = 5_000
BATCH_SIZE = 5_000
DEFAULT_EMBED = 2_000
MIN_FACTS = 200
MAX_FACTS = 1_000_000
AREA_POOL = 12
RECENT_POOL = 4
EMBED_CHUNK = 128
CONSOLIDATION_RESERVE = 15  # about as many facts as the scenario's consolidation passes write

# -- deterministic ids ---------------------------------------------------------------------------


class _SeededUuid:
    """Stands in for the ``uuid`` module: ``uuid4()`` draws from a seeded generator."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(f"memory-desk-demo-ids-{seed}")

    def uuid4(self) -> uuid.UUID:
        return uuid.UUID(int=self._rng.getrandbits(128), version=4)

    def __getattr__(self, name: str):
        return getattr(uuid, name)


@contextlib.contextmanager
def deterministic_ids(seed: int) -> Iterator[None]:
    """For the duration, every id the service (and a new workspace) makes is seeded.

    ``rows.new_id`` and the workspace creator call ``uuid.uuid4()`` through their
    module's ``uuid`` name; that name is swapped for a seeded stand-in and restored on
    exit. Process-wide while active: build one demo at a time.
    """
    shim = _SeededUuid(seed)
    saved = rows.uuid, workspace_module.uuid
    rows.uuid, workspace_module.uuid = shim, shim  # type: ignore[assignment]
    try:
        yield
    finally:
        rows.uuid, workspace_module.uuid = saved


@dataclass
class DemoSummary:
    path: Path
    seed: int
    requested: int
    path_used: str  # "service" or "bulk"
    embedded: int
    embed_note: str
    seconds: float
    counts: dict[str, int] = field(default_factory=dict)

    def lines(self) -> list[str]:
        c = self.counts
        return [
            f"demo workspace {self.path} (seed {self.seed}, {self.path_used} path) built in {self.seconds:.1f} s",
            f"  agents {c['agents']}, domains {c['domains']}, grant rows {c['grants']}",
            f"  facts {c['facts']} ({c['active']} active, {c['superseded']} superseded, "
            f"{c['expired']} active past valid_until), {c['facts'] / max(self.seconds, 1e-9):.0f} facts/s",
            f"  embeddings: {c['embedded']} facts have one, {c['facts'] - c['embedded']} are NULL"
            + (f" ({self.embed_note})" if self.embed_note else ""),
            f"  conflicts {c['conflicts']} ({c['contradictions']} resolved contradictions, "
            f"{c['cross_agent']} open cross-agent), edges {c['edges']}, beliefs {c['beliefs']}",
            f"  policies {c['policies']} ({c['policies_active']} active), notes {c['notes']}, "
            f"hot items {c['items']}, consolidation passes {c['consolidations']}",
            f"  lineage receipts {c['receipts']} of {c['runs']} runs",
        ]


# -- the builder ---------------------------------------------------------------------------------


class DemoBuilder:
    """Runs the timeline against one new workspace."""

    def __init__(self, ws: Workspace, *, facts: int, seed: int, now: int, embed: int,
                 bulk: bool, progress: Callable[[str], None] | None = None,
                 counted: Callable[[int, int], None] | None = None) -> None:
        self.ws, self.facts, self.seed, self.now, self.embed_n = ws, facts, seed, now, embed
        self.bulk = bulk
        self.progress = progress or (lambda _line: None)
        self.counted = counted
        self.svc = MemoryService(ws, embedder=False)  # vectors are computed here, in batches
        self.agent_ids: dict[str, str] = {}
        self.agent_roles: dict[str, str | None] = {}
        self.named: dict[str, str] = {}
        self.restatements: list[list[str]] = []  # facts that say the same thing about the same subject
        self.statements: dict[str, list[str]] = {}  # generated conventions by what they say about what
        self.policy_ids: dict[str, str] = {}
        self.batch: list[tuple[Proposal, tuple[bytes, bytes] | None]] = []
        self.known_domains: set[str] = set()
        self.area_pools: dict[str, deque] = {}
        self.recent: deque = deque(maxlen=RECENT_POOL)
        self.written = 0
        self.stream_written = 0  # rows written by the generated stream
        self.stream_pending = 0  # stream proposals waiting in the batch (counted as written)
        self.stream_processed = 0  # stream proposals taken from the stream so far
        self.stream_target = facts
        self.analyzed_at = 0
        self.embed_note = ""
        self.started = time.monotonic()
        self._last_report = self._last_count = self.started

    # small helpers used by scenario ops
    def tx(self, work):
        return with_retry(self.ws, work)

    def policy(self, name: str, agent: str, domain: str, rule: str, sources, at: int) -> None:
        self.policy_ids[name] = self.svc.propose_policy(
            role=self.agent_roles[agent], domain=domain, rule=rule,
            source_fact_ids=[self.named[s] for s in sources if s in self.named], now=at)

    def supersede_policy(self, name: str, agent: str, rule: str, at: int) -> None:
        self.policy_ids[name + ":new"] = self.tx(lambda conn: policies.supersede_policy(
            self.ws, conn, self.policy_ids[name], role=self.agent_roles[agent], rule=rule, now=at))

    # agents are not memory: plain rows
    def add_agents(self) -> None:
        agents = self.ws.layout.agents
        start = self.now - (SPAN_DAYS + 10) * DAY
        with self.ws.write() as conn:
            for key, *_ in T.AGENTS:
                self.agent_ids[key] = rows.new_id()
            for i, (key, name, title, role, skills, effort, boss) in enumerate(T.AGENTS):
                conn.execute(agents.insert().values(
                    id=self.agent_ids[key], name=name, title=title, agent_md_path="",
                    workspace_id=self.ws.workspace_id, reports_to=None, skills=skills,
                    persona=f"{name}, {title.lower()} at Acme.", system_prompt=None, adapter_id="agent-cli",
                    model_id="general-large", strict_mode=0, effort=effort, context_size=200_000,
                    sandbox_capabilities_json="", command_policy_json="", role=role,
                    monthly_budget_cents=5_000 if role else 0, max_concurrent_tasks=1 if role != "coder" else 2,
                    visibility="workspace", lifecycle_status="active", created_at=start + i * 3600))
                self.agent_roles[key] = role
            for key, *_rest, boss in T.AGENTS:
                if boss:
                    conn.execute(agents.update().where(agents.c.id == self.agent_ids[key])
                                 .values(reports_to=self.agent_ids[boss]))

    # facts
    def _vectors(self, proposals: list[Proposal]) -> list[tuple[bytes, bytes] | None]:
        if not proposals:
            return []
        embedder = get_embedder()
        ok, reason = embedder.status()
        if not ok:
            self.embed_note = f"no embeddings: {reason}"
            return [None] * len(proposals)
        vectors = embedder.embed([fact_text(p.topic, p.content) for p in proposals])
        return [(to_blob(v), binary_blob(v)) for v in vectors]

    def _kwargs(self, p: Proposal, vector) -> dict:
        kw = dict(confidence=p.confidence, memory_type=p.memory_type, veracity=p.veracity,
                  agent_id=self.agent_ids.get(p.agent) if p.agent else None,
                  role=self.agent_roles.get(p.agent) if p.agent else None,
                  valid_until=p.valid_until, temporal_tags=list(p.temporal_tags) if p.temporal_tags else None,
                  now=p.at)
        if vector is not None:
            kw["embedding"], kw["binary_embedding"] = vector
        return kw

    def _done(self, p: Proposal, result: fact_ops.ProposeResult) -> None:
        if not p.scripted and self.bulk:
            self.stream_pending -= 1
        if result.action == "inserted":
            self.written += 1
            self.stream_written += not p.scripted
            if p.name:
                self.named[p.name] = result.fact_id
            if p.restates and p.restates in self.named:
                self.restatements.append([self.named[p.restates], result.fact_id])
            if p.statement:
                self.statements.setdefault(p.statement, []).append(result.fact_id)
        self._report()

    def propose(self, p: Proposal, vector) -> None:
        if not p.scripted:
            self.stream_processed += 1
            if self.stream_written + self.stream_pending >= self.stream_target:
                return  # the stream's share is written; the rest of the look-ahead is dropped
        if self.bulk:
            self.batch.append((p, vector))
            self.stream_pending += not p.scripted
            if len(self.batch) >= BATCH_SIZE:
                self.flush()
            return
        self.analyze_when_grown()
        result = self.svc.propose_fact(domain=p.domain, topic=p.topic, content=p.content, **self._kwargs(p, vector))
        self._done(p, result)

    def analyze_when_grown(self) -> None:
        """Refresh SQLite's planner statistics each time the fact table has grown fourfold.

        Without statistics SQLite answers the service's same-topic lookup (domain, topic,
        active) through the domain index, reading every fact of the domain: quadratic
        over a build. With them it uses the topic index.
        """
        if self.written >= max(1_000, 4 * self.analyzed_at):
            self.tx(lambda conn: conn.exec_driver_sql("ANALYZE"))
            self.analyzed_at = self.written

    def flush(self) -> None:
        """Write the pending batch in one transaction (the bulk path; see the module docstring)."""
        if not self.batch:
            return
        self.analyze_when_grown()
        batch, self.batch = self.batch, []
        ws = self.ws
        testpoints.reached("demo.batch")
        with ws.write() as conn:
            for p, vector in batch:
                domain = policies.domain_slug(p.domain)
                kw = self._kwargs(p, vector)
                if domain not in self.known_domains:
                    policies.ensure_domain(ws, conn, domain, kw["role"], p.at)
                    self.known_domains.add(domain)
                result = fact_ops.propose_fact(ws, conn, domain=domain, topic=p.topic, content=p.content,
                                               link=False, **kw)
                self._pool_update(ws, conn, p, result)
                self._done(p, result)

    def _pool_update(self, ws: Workspace, conn, p: Proposal, result: fact_ops.ProposeResult) -> None:
        pool = self.area_pools.get(p.area)
        if pool is None:
            pool = self.area_pools[p.area] = deque(maxlen=AREA_POOL)
        if result.action == "remention":  # updated_at moved: it is now the newest
            for q in (pool, self.recent):
                for entry in q:
                    if entry[0] == result.fact_id:
                        q.remove(entry)
                        q.appendleft(entry)
                        break
            return
        for lost in result.superseded:
            for q in (pool, self.recent):
                for entry in q:
                    if entry[0] == lost:
                        q.remove(entry)
                        break
        if result.survived:
            candidates = list(pool)
            ids = {e[0] for e in candidates}
            candidates.extend(e for e in self.recent if e[0] not in ids)
            result.edges = links.write_links(ws, conn, result.fact_id, p.content, p.at, candidates)
            pool.appendleft((result.fact_id, p.content))
            self.recent.appendleft((result.fact_id, p.content))

    def _report(self, force: bool = False) -> None:
        now = time.monotonic()
        if self.counted is not None and (force or now - self._last_count >= 0.25):
            self._last_count = now
            self.counted(self.written, self.facts)
        if force or now - self._last_report >= 2.0:
            self._last_report = now
            rate = self.written / max(now - self.started, 1e-9)
            self.progress(f"  {self.written:,} / ~{self.facts:,} facts ({rate:,.0f} facts/s)")

    # the run
    def run(self, scenario: list[Event], stream: Stream, start: int, end: int) -> None:
        """Write the stream, stamping each fact with the time its position implies, and run
        each scenario event when the clock passes it."""
        self.add_agents()
        self.stream_target = stream.target
        span, clock = end - start, start
        budget = self.embed_n
        stream.done = lambda: self.stream_written + self.stream_pending >= stream.target
        scripted = [e for e in scenario if isinstance(e, Proposal)][:budget]
        budget -= len(scripted)
        vectors = dict(zip(map(id, scripted), self._vectors(scripted)))
        queue = deque(scenario)
        if budget:
            self.progress(f"  embedding the first {self.embed_n:,} facts in the background, {EMBED_CHUNK} at a time…")
        # Generated facts are taken a chunk at a time; the model embeds the next chunk in a
        # worker thread while the current one is written.
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="demo-embed")
        source = iter(stream)

        def next_chunk():
            nonlocal budget
            chunk = list(itertools.islice(source, EMBED_CHUNK))
            wanted = chunk[:budget]
            budget -= len(wanted)
            return chunk, wanted, (pool.submit(self._vectors, wanted) if wanted else None)

        def run_due(until: int) -> None:
            while queue and queue[0].at <= until:
                event = queue.popleft()
                if isinstance(event, Proposal):
                    self.propose(event, vectors.pop(id(event), None))
                else:
                    self.flush()
                    event.run(self)

        try:
            current = next_chunk()
            while current[0]:
                upcoming = next_chunk()
                chunk, wanted, future = current
                if future is not None:
                    vectors.update(zip(map(id, wanted), future.result()))
                for p in chunk:
                    clock = max(clock, start + span * (self.stream_written + self.stream_pending) // stream.target)
                    run_due(clock)
                    p.stamp(clock)
                    self.propose(p, vectors.pop(id(p), None))
                current = upcoming
            run_due(self.now)
            self.flush()
            self.analyzed_at = 0
            self.analyze_when_grown()  # leave the file with current statistics for the desk
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        self._report(force=True)

    def adjust_access(self) -> None:
        """What a person did afterwards in the desk: grant gaps and a switched-off policy (with history)."""
        person = Reviewer(self.ws, T.REVIEWER_NAME, embedder=False)
        person.set_grant("designer", "security", "none", reason="designers do not need incident forensics")
        person.set_grant("pm", "incidents", "none", reason="PMs get the incident summary by mail instead")
        person.set_grant("qa", "deployments", "read", reason="QA reads deploy rules but does not set them")
        for role, domain in (("designer", "oncall"), ("general", "incidents"), ("pm", "repo:acme-api/architecture"),
                             ("ceo", "testing")):
            person.remove_grant(role, domain, reason="tidying up grants nobody uses")
        person.set_policy_active(self.policy_ids["release-label"], False,
                                 reason="the release-notes label was replaced by the changelog bot")
        self._review_conflicts(person)

    def _review_conflicts(self, person: Reviewer) -> None:
        """Conflicts a person already looked at: one disagreement kept as two valid rules, one
        supersession confirmed (the rest stay open for the visitor)."""
        conflicts, facts = self.ws.layout.conflicts, self.ws.layout.facts
        with self.ws.read() as conn:
            def newest(topic: str, kind: str) -> str | None:
                return conn.execute(
                    select(conflicts.c.id).join(facts, facts.c.id == conflicts.c.fact_b_id)
                    .where(facts.c.topic == topic, conflicts.c.conflict_type == kind)
                    .order_by(conflicts.c.created_at.desc()).limit(1)).scalar()

            budget, deploy = newest("error-budget", "cross_agent"), newest("deploy-window", "contradiction")
        if budget is not None:
            person.keep_both(budget, reason="both hold: the freeze pauses features, security patches still ship")
        if deploy is not None:
            person.confirm_conflict(deploy, reason="checked with Farah: the Monday/Thursday window is current")


def _counts(ws: Workspace) -> dict[str, int]:
    L = ws.layout
    f = L.facts
    with ws.read() as conn:
        def n(table, *where) -> int:
            q = select(func.count()).select_from(table)
            for w in where:
                q = q.where(w)
            return int(conn.execute(q).scalar() or 0)
        now = int(time.time())
        return {
            "agents": n(L.agents), "domains": n(L.domains), "grants": n(L.grants),
            "facts": n(f), "active": n(f, f.c.superseded_by.is_(None)),
            "superseded": n(f, f.c.superseded_by.is_not(None)),
            "expired": n(f, f.c.superseded_by.is_(None), f.c.valid_until.is_not(None), f.c.valid_until < now),
            "embedded": n(f, f.c.embedding.is_not(None)),
            "conflicts": n(L.conflicts),
            "contradictions": n(L.conflicts, L.conflicts.c.conflict_type == "contradiction"),
            "cross_agent": n(L.conflicts, L.conflicts.c.conflict_type == "cross_agent"),
            "edges": n(L.edges), "beliefs": n(L.beliefs), "policies": n(L.policies),
            "policies_active": n(L.policies, L.policies.c.active == 1), "notes": n(L.notes), "items": n(L.items),
            "consolidations": n(L.consolidation_log),
            "receipts": receipt_store.watermark(conn, ws)[1],
            "runs": receipt_store.run_count(conn),
        }


RESTATEMENTS_KEY = "demo_restatements"


def record_restatements(ws: Workspace, groups: list[list[str]]) -> None:
    """Which facts of the demo say the same thing about the same subject (JSON groups of fact ids in
    ``memdesk_meta``): the truth the review's near-duplicates are measured against (``restatements``)."""
    import json

    with ws.write() as conn:
        conn.exec_driver_sql("INSERT OR REPLACE INTO memdesk_meta (key, value) VALUES (?, ?)",
                             (RESTATEMENTS_KEY, json.dumps(groups)))


def restatements(ws: Workspace) -> list[list[str]]:
    """The groups ``record_restatements`` kept (none in a workspace that is not a demo)."""
    import json

    with ws.read() as conn:
        have = conn.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE name = 'memdesk_meta'").first()
        row = conn.exec_driver_sql("SELECT value FROM memdesk_meta WHERE key = ?", (RESTATEMENTS_KEY,)).first() \
            if have else None
    return [list(g) for g in json.loads(row[0])] if row else []


def duplicate_precision(ws: Workspace, clusters: list[list[str]]) -> tuple[int, int]:
    """(clusters whose members all say the same thing about the same subject, clusters) on a demo."""
    group_of = {fid: n for n, ids in enumerate(restatements(ws)) for fid in ids}
    right = sum(1 for c in clusters if len({group_of.get(fid, -1 - k) for k, fid in enumerate(c)}) == 1)
    return right, len(clusters)


def _no_sync(ws: Workspace) -> None:
    """A new file being built needs no fsync per transaction: a failed build is deleted anyway."""
    event.listen(ws.engine, "connect", lambda dbapi_conn, _record: dbapi_conn.execute("PRAGMA synchronous = OFF"))
    ws.engine.dispose()


def build_demo(path: str | Path, *, facts: int = 2_000, seed: int = 7, now: int | None = None,
               embed: int = DEFAULT_EMBED, bulk: bool | None = None,
               progress: Callable[[str], None] | None = None,
               counted: Callable[[int, int], None] | None = None) -> DemoSummary:
    """Write a new demo workspace at ``path`` (which must not exist) and return what it holds.

    ``facts``: about how many fact rows to write (the scenario and consolidation add
    a few; re-mentions add none). ``embed``: how many of the first facts get a real
    embedding (0 = none). ``bulk``: force the bulk path on or off (default: on above
    ``BULK_THRESHOLD`` facts). ``now``: the reference time (default: the current
    minute); the workspace spans the 120 days before it. ``progress`` gets a line of
    text every two seconds, ``counted(written, facts)`` every quarter second (either may
    raise to stop the build).
    """
    path = Path(path)
    if not MIN_FACTS <= facts <= MAX_FACTS:
        raise ValueError(f"--facts must be between {MIN_FACTS:,} and {MAX_FACTS:,}")
    if path.exists():
        raise FileExistsError(path)
    now = int(time.time()) // 60 * 60 if now is None else int(now)
    bulk = facts > BULK_THRESHOLD if bulk is None else bulk
    started = time.monotonic()
    rng = random.Random(seed)
    scenario = timeline(random.Random(f"{seed}-scenario"), now)
    scenario_facts = sum(isinstance(e, Proposal) for e in scenario)
    target = max(facts - scenario_facts - CONSOLIDATION_RESERVE, 1)
    stream = Stream(rng, target)
    embed = max(0, min(embed, facts))
    with deterministic_ids(seed):
        ws = open_workspace(path, name="Acme demo", create=True)
        try:
            _no_sync(ws)
            builder = DemoBuilder(ws, facts=facts, seed=seed, now=now, embed=embed, bulk=bulk, progress=progress,
                                  counted=counted)
            builder.run(scenario, stream, now - SPAN_DAYS * DAY, now - 3600)
            builder.adjust_access()
            record_restatements(ws, builder.restatements + [ids for ids in builder.statements.values() if len(ids) > 1])
            write_history(ws, seed, now)  # the Lineage tab's four weeks of receipts
            counts = _counts(ws)
        finally:
            ws.close()
    note = builder.embed_note
    if not note and counts["facts"] > counts["embedded"]:
        note = (f"real embeddings for the first {embed:,} facts proposed; the rest are written without one, "
                "as the product does when its model is not installed" if embed else "embeddings were turned off")
    return DemoSummary(path, seed, facts, "bulk" if bulk else "service", counts["embedded"], note,
                       time.monotonic() - started, counts)
