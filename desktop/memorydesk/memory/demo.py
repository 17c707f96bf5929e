"""Build a realistic demo workspace through the memory service (DESIGN.md section 7).

``build_demo(path, facts=N, seed=S)`` writes a new workspace file holding the memory
of a small software team (vocabulary in ``memory.demo_text``): agents with the
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
import hashlib
import itertools
import random
import re
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import event, func, select

from memorydesk.memory import demo_text as T
from memorydesk.memory import facts as fact_ops
from memorydesk.memory import links, policies, rows, working
from memorydesk.memory.embedder import binary_blob, fact_text, get_embedder, to_blob
from memorydesk.memory.reviewer import Reviewer
from memorydesk.memory.service import MemoryService, with_retry
from memorydesk.store import Workspace, open_workspace
from memorydesk.store import workspace as workspace_module

DAY = 86_400
SPAN_DAYS = 120
BULK_THRESHOLD = 5_000
BATCH_SIZE = 5_000
DEFAULT_EMBED = 2_000
MIN_FACTS = 200
MAX_FACTS = 1_000_000
AREA_POOL = 12
RECENT_POOL = 4
CELL_FACTS = 15_000  # one more cell per this many facts
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


# -- events on the timeline ----------------------------------------------------------------------


@dataclass(slots=True)
class Proposal:
    """One fact an agent proposes at time ``at``."""

    at: int
    domain: str
    topic: str
    content: str
    agent: str | None
    confidence: float = 0.9
    memory_type: str = "fact"
    veracity: str = "stated"
    valid_until: int | None = None
    temporal_tags: tuple[str, ...] | None = None
    area: str = ""
    name: str | None = None  # scenario handle, to refer to the fact later
    scripted: bool = False  # part of the hand-written scenario (always written)
    valid_for: int | None = None  # stream facts: valid_until = at + valid_for, set when timed
    week_tag: bool = False  # stream facts: temporal tag "week-N" of their time, set when timed

    def stamp(self, at: int) -> None:
        """Give a generated fact its time (and what derives from it)."""
        self.at = at
        if self.valid_for is not None:
            self.valid_until = at + self.valid_for
        if self.week_tag:
            self.temporal_tags = (f"week-{time.gmtime(at).tm_yday // 7 + 1}",)


@dataclass(slots=True)
class Op:
    """Anything else that happens at time ``at`` (a note, a policy, a consolidation…)."""

    at: int
    label: str
    run: Callable[[DemoBuilder], None]


Event = Proposal | Op


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
        ]


# -- the generated stream ------------------------------------------------------------------------

_VERACITIES = ("stated", "inferred", "tool", "imported", "unknown")
_VERACITY_WEIGHTS = (55, 20, 12, 8, 5)
_CONFIDENCES = (0.55, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0)
_KINDS = ("convention", "aside", "ticket", "pr", "incident", "release", "design", "product", "learning", "foreign")
_KIND_WEIGHTS = (40, 4, 18, 14, 4, 4, 5, 4, 5, 1)
_SLOT = re.compile(r"\{(\w+)\}")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _fill(rng: random.Random, template: str, slots: dict, **fixed: str) -> str:
    def value(m: re.Match) -> str:
        key = m.group(1)
        return fixed[key] if key in fixed else rng.choice(slots[key])
    return _SLOT.sub(value, template)


class _Stream:
    """Generated facts, untimed: the builder stamps each with its time when it writes it.

    ``done`` tells the stream when enough facts were written (the builder sets it).
    """

    def __init__(self, rng: random.Random, target: int) -> None:
        self.rng, self.target = rng, target
        self.done: Callable[[], bool] = lambda: False
        components = [f"{p} {s}" for p in T.COMPONENT_PREFIXES for s in T.COMPONENT_SUFFIXES]
        rng.shuffle(components)
        self.components = components
        self.by_role: dict[str, list[str]] = {}
        for key, _n, _t, role, *_ in T.AGENTS:
            if role:
                self.by_role.setdefault(role, []).append(key)
        self.coder_for_repo = {"acme-web": "ada", "acme-api": "bram", "acme-mobile": "chen", "acme-infra": "farah"}
        self.tickets: deque = deque(maxlen=60)
        self.prs: deque = deque(maxlen=60)
        self.next_ticket, self.next_pr, self.next_incident = 1200, 3400, 1
        self.release = [2, 14, 0]
        # Large workspaces run each component in several cells (deployment shards), so
        # the convention topics grow with the workspace instead of being re-contradicted.
        self.cells = max(1, target // CELL_FACTS)

    def __iter__(self) -> Iterator[Proposal]:
        for _ in range(20 * self.target):  # a bound, in case nothing is ever written
            if self.done():
                return
            yield self._one(0)

    # helpers
    def _component(self) -> str:
        return self.components[int(len(self.components) * self.rng.random() ** 2.2)]

    def _agent(self, role: str, component: str | None = None) -> str:
        if role == "coder" and component is not None:
            repo = T.SUFFIX_REPO[component.split()[-1]]
            if self.rng.random() < 0.8:
                return self.coder_for_repo[repo]
        return self.rng.choice(self.by_role[role])

    def _vc(self) -> tuple[str, float]:
        veracity = self.rng.choices(_VERACITIES, _VERACITY_WEIGHTS)[0]
        return veracity, self.rng.choice(_CONFIDENCES)

    def _one(self, at: int) -> Proposal:
        rng = self.rng
        kind = rng.choices(_KINDS, _KIND_WEIGHTS)[0]
        veracity, confidence = self._vc()
        comp = self._component()
        repo = T.SUFFIX_REPO[comp.split()[-1]]
        if kind in ("convention", "aside"):
            if kind == "aside":
                aspect = rng.choice(sorted(T.CONVENTION_ASIDES))
                entry = next(e for e in T.CONVENTIONS if e[0] == aspect)
            else:
                entry = rng.choice(T.CONVENTIONS)
                aspect = entry[0]
            _, bare, mtype, roles, template = entry
            where = comp if self.cells == 1 else f"{comp} (cell-{rng.randrange(self.cells):02d})"
            topic = f"{_slug(where)}-{aspect}"
            scoped = int.from_bytes(hashlib.blake2b(topic.encode(), digest_size=2).digest(), "big") % 10 >= 3
            domain = f"repo:{repo}/{bare}" if scoped else bare
            role = roles[0] if rng.random() < 0.8 else rng.choice(roles)
            agent = self._agent(role, comp)
            if kind == "aside":
                content = T.CONVENTION_ASIDES[aspect]
                # an aside comes from someone other than the usual author: a disagreement
                agent = rng.choice([a for a in ("dara", "eli", "ivo", "gus", "ada", "bram") if a != agent])
                mtype = "observation"
            else:
                content = _fill(rng, template, T.SLOTS)
            content = f"{T.REPO_LABEL[repo]} / {where}: {content}"
            return Proposal(at, domain, topic, content, agent, confidence, mtype, veracity, area=comp)
        if kind == "ticket":
            if self.tickets and rng.random() < 0.25:
                ticket, comp, cause, pr = rng.choice(self.tickets)
            else:
                ticket, cause, pr = f"ACME-{self.next_ticket}", rng.choice(T.TICKET_CAUSES), self.next_pr
                self.next_ticket += rng.randint(1, 4)
                self.next_pr += rng.randint(1, 3)
                self.tickets.append((ticket, comp, cause, pr))
            outcome = rng.choice(T.TICKET_OUTCOMES)
            content = (f"{T.REPO_LABEL[T.SUFFIX_REPO[comp.split()[-1]]]} / {comp}: {ticket} {outcome}; "
                       f"root cause was {cause}, the fix is PR #{pr}.")
            agent = rng.choice(("eli", "eli", self._agent("coder", comp)))
            return Proposal(at, "ticket-outcomes", ticket, content, agent, confidence, "event", veracity, area=comp)
        if kind == "pr":
            if self.prs and rng.random() < 0.2:
                pr, comp, note = rng.choice(self.prs)
            else:
                pr, note = self.next_pr, rng.choice(T.PR_NOTES)
                self.next_pr += rng.randint(1, 3)
                self.prs.append((pr, comp, note))
            verdict = rng.choice(T.PR_VERDICTS)
            content = f"{T.REPO_LABEL[T.SUFFIX_REPO[comp.split()[-1]]]} / {comp}: PR #{pr} {verdict}; {note}."
            topic = f"PR #{pr}"
            return Proposal(at, "pr-reviews", topic, content, "dara", confidence, "decision", "tool"
                            if rng.random() < 0.3 else veracity, area=comp)
        if kind == "incident":
            ident = f"INC-{self.next_incident:05d}"
            self.next_incident += 1
            minutes = rng.choice((4, 12, 25, 47, 90))
            content = (f"{T.REPO_LABEL[repo]} / {comp}: {ident} {rng.choice(T.INCIDENT_SYMPTOMS)} for {minutes} "
                       f"minutes; mitigated by {rng.choice(T.INCIDENT_MITIGATIONS)}, follow-up owner "
                       f"@{rng.choice(('farah', 'bram', 'ivo'))}.")
            return Proposal(at, "incidents", ident, content, rng.choice(("farah", "ivo")), confidence, "event",
                            veracity, valid_for=rng.choice((7, 14, 30)) * DAY, area=comp)
        if kind == "release":
            self.release[2] += 1
            if rng.random() < 0.15:
                self.release[1] += 1
                self.release[2] = 0
            version = f"v{self.release[0]}.{self.release[1]}.{self.release[2]}"
            content = (f"{T.REPO_LABEL[repo]} / {comp}: release {version} of {repo} shipped {rng.randint(3, 40)} "
                       f"changes, including {rng.choice(T.RELEASE_CHANGES)}; rollback is the previous image tag.")
            return Proposal(at, f"repo:{repo}/releases", f"release {version}", content, "farah", confidence,
                            "artifact", veracity, week_tag=True, area=comp)
        if kind == "design":
            ui = rng.choice(T.DESIGN_TOPICS)
            content = _fill(rng, rng.choice(T.DESIGN_TEMPLATES), T.DESIGN_SLOTS, ui=ui)
            return Proposal(at, "design-system", ui, content, "hana", confidence, "preference", veracity,
                            area="design")
        if kind == "product":
            mtype, template = rng.choice(T.PRODUCT_TEMPLATES)
            content = _fill(rng, template, T.PRODUCT_SLOTS)
            topic = {"goal": "checkout-goals", "commitment": "customer-commitments",
                     "observation": "customer-interviews"}[mtype]
            return Proposal(at, "product", topic, content, "gus", confidence, mtype, veracity, area="product")
        if kind == "learning":
            content = f"{T.REPO_LABEL[repo]} / {comp}: {rng.choice(T.LEARNINGS)}"
            return Proposal(at, "learnings", f"{_slug(comp)}-lessons", content,
                            rng.choice(("bram", "ada", "eli", "farah")), confidence, "learning", veracity, area=comp)
        domain, topic, template = rng.choice(T.HEBREW_STREAM + T.GERMAN_STREAM)
        content = _fill(rng, template, T.FOREIGN_SLOTS, C=comp)
        return Proposal(at, domain, topic, content, rng.choice(("farah", "ivo")), confidence, "fact", veracity,
                        area=comp)


# -- the hand-written scenario -------------------------------------------------------------------


def _scenario(rng: random.Random, now: int) -> list[Event]:
    """Situations the desk must show, placed on the timeline (``days ago`` → ``at``)."""
    ago = lambda days, hours=0: now - int(days * DAY) - hours * 3600  # noqa: E731
    ev: list[Event] = []

    def fact(days, domain, topic, content, agent, confidence=0.9, mtype="fact", veracity="stated", **kw):
        ev.append(Proposal(ago(days), domain, topic, content, agent, confidence, mtype, veracity,
                           area=kw.pop("area", domain), scripted=True, **kw))

    def op(days, label, run):
        ev.append(Op(ago(days), label, run))

    # A supersession chain: the deploy window moved twice; each change wins on strength.
    deploy = ("Production deploys of the Orders API run on {d} at {h} UTC after the smoke suite passes "
              "on staging and the on-call engineer has acknowledged.")
    fact(104, "repo:acme-infra/deployments", "deploy-window", deploy.format(d="Tuesdays and Thursdays", h="10:00"),
         "farah", 0.6, "decision", "inferred", name="deploy-v1")
    fact(71, "repo:acme-infra/deployments", "deploy-window", deploy.format(d="Tuesdays and Thursdays", h="14:00"),
         "farah", 0.85, "decision", name="deploy-v2")
    fact(33, "repo:acme-infra/deployments", "deploy-window", deploy.format(d="Mondays and Thursdays", h="14:00"),
         "farah", 0.95, "decision", name="deploy-v3")
    # A weaker tool-sourced claim loses against the stated one: the new fact itself is superseded.
    node = "The storefront builds on Node {v} LTS; the version is pinned in .nvmrc and in the CI image."
    fact(96, "repo:acme-web/conventions", "node-version", node.format(v="20"), "ada", 0.95, name="node-20")
    fact(52, "repo:acme-web/conventions", "node-version", node.format(v="18"), "chen", 0.6, veracity="tool",
         name="node-18")
    # A re-mention: the same statement again, from another agent (confidence bump, mention count).
    staging = "Staging is refreshed from an anonymised production snapshot every Sunday night."
    fact(88, "environments", "staging-data", staging, "farah", 0.7, veracity="inferred", name="staging")
    fact(40, "environments", "staging-data", "  " + staging.lower() + " ", "eli", 0.8)
    # Cross-agent disagreements: same topic, different agents, low overlap (both stay active).
    fact(80, "review-guidelines", "pr-size",
         "Keep pull requests under 400 changed lines and keep refactors apart from behaviour changes.",
         "dara", 0.9, "instruction", name="pr-size-dara")
    fact(61, "review-guidelines", "pr-size",
         "Large mechanical renames can land as a single pull request if a codemod produced them.",
         "ada", 0.75, "preference", "inferred", name="pr-size-ada")
    fact(58, "repo:acme-api/architecture", "api-versioning",
         "Public endpoints are versioned in the URL path (/v1, /v2); breaking changes get a new version.",
         "bram", 0.85, "decision", name="versioning-bram")
    fact(44, "repo:acme-api/architecture", "api-versioning",
         "Prefer additive changes and a deprecation header over new URL versions; clients upgrade slowly.",
         "dara", 0.8, "preference")
    fact(30, "oncall", "error-budget",
         "When the monthly error budget of the checkout path drops below 20%, feature work pauses for fixes.",
         "farah", 0.9, "commitment")
    fact(26, "oncall", "error-budget",
         "Security patches ship even when the error budget is spent; they never wait for the freeze.",
         "ivo", 0.95, "instruction")
    # A belief: the identical statement written by two agents in two domains.
    commits = "Commit messages follow Conventional Commits; the type decides the changelog section."
    fact(90, "conventions", "commit-messages", commits, "dara", 0.9, "instruction", name="commits")
    fact(64, "repo:acme-web/conventions", "commit-messages", commits, "ada", 0.8, "instruction")
    # Expiry: valid_until in the past (still active: the product does not filter on it) and in the future.
    fact(75, "deployments", "code-freeze",
         "Code freeze for the checkout redesign: only fixes merge until the launch review is done.",
         "gus", 0.9, "commitment", valid_until=ago(60), temporal_tags=("checkout-launch",), name="freeze")
    fact(20, "repo:acme-api/architecture", "postgres-migration",
         "The orders database is read-only every night from 01:00 to 01:30 UTC while the Postgres 16 "
         "migration copies tables.", "bram", 0.85, "context", valid_until=ago(5))
    fact(6, "incidents", "cdn-provider",
         "Until the contract renewal the CDN stays on the current provider; image resizing moves in-house later.",
         "farah", 0.8, "commitment", valid_until=now + 45 * DAY)
    # Other types and veracities the desk should show.
    fact(99, "team", "ownership", "Farah owns the Terraform modules; Bram owns the Orders API schema.",
         "juno", 1.0, "relationship")
    fact(66, "security", "secrets-rotation",
         "Database credentials rotate every 30 days through the vault; services read them at start-up.",
         "ivo", 0.9, "fact", "imported")
    fact(12, "repo:acme-mobile/releases", "app-store-review",
         "App Store review rejected build 412 for a missing privacy label on the analytics SDK.",
         "chen", 0.7, "error", "tool")
    fact(9, "product", "release-notes-request",
         "Write release notes for the refund flow before Friday, grouped by customer impact.",
         "gus", 0.6, "request", "unknown")
    fact(3, "repo:acme-web/testing", "playwright-shards",
         "The Playwright suite runs in 6 shards on CI; more shards made the setup time dominate.",
         "eli", 0.85, "learning", "inferred")
    # Hebrew and German.
    for i, (domain, topic, content) in enumerate(T.HEBREW):
        fact(85 - 23 * i, domain, topic, content, ("farah", "farah", "juno")[i], 0.85, area="he")
    for i, (domain, topic, content) in enumerate(T.GERMAN):
        fact(78 - 21 * i, domain, topic, content, ("ivo", "hana", "farah")[i], 0.9, area="de")

    # Agent notes (one per agent for most of them; some grew by recorded observations).
    notes = {
        "ada": "Storefront: product pages are server components; cart state lives in the client store.\n"
               "Ask Hana before changing spacing tokens.",
        "bram": "Orders API: run `make migrate-check` before every schema change.\nKafka topics are owned by platform.",
        "dara": "Review order: security-sensitive paths first, then public API changes, then the rest.",
        "eli": "Smoke suite: 42 checks, ~6 minutes. Flaky: checkout-coupon (ticket open).",
        "farah": "Terraform state is in the shared bucket; never run apply from a laptop.",
        "gus": "Q3 focus: mobile checkout conversion. Weekly sync with Northwind Outfitters on Tuesdays.",
        "hana": "Token names follow color.role.state (e.g. color.action.hover).",
        "ivo": "",
    }
    for i, (key, text) in enumerate(notes.items()):
        op(110 - 9 * i, f"note {key}", lambda b, key=key, text=text, at=ago(110 - 9 * i):
           b.tx(lambda conn: working.update_my_notes(b.ws, conn, b.agent_ids[key], text, now=at)))
    for days, key, line in ((50, "eli", "Coupon test quarantined; ACME-1261 tracks the fix."),
                            (22, "farah", "Staging cluster moved to the new node pool."),
                            (4, "ivo", "Pending: rotate the webhook signing secret after the partner switch.")):
        op(days, f"observation {key}", lambda b, key=key, line=line, at=ago(days):
           b.tx(lambda conn: working.record_observation(b.ws, conn, b.agent_ids[key], line, now=at)))

    # Policies: active ones, one superseded (old inactive), one switched off by a person later.
    def policy(days, name, agent, domain, rule, sources=()):
        op(days, f"policy {name}", lambda b, at=ago(days): b.policy(name, agent, domain, rule, sources, at))

    policy(100, "review", "dara", "review-guidelines",
           "Every pull request needs one approving review from a code owner; security-sensitive paths need two.")
    policy(92, "fridays", "farah", "deployments", "Never deploy to production on Fridays after 12:00 UTC.",
           ("deploy-v1",))
    policy(86, "secrets", "ivo", "security",
           "Secrets live in the vault. Never paste tokens into tickets, pull requests or agent notes.")
    policy(70, "smoke", "eli", "repo:acme-web/testing",
           "Run the Playwright smoke suite before marking a storefront ticket as done.")
    policy(63, "release-label", "gus", "product", "Tag customer-facing changes with the release-notes label.")
    policy(55, "tokens", "hana", "design-system",
           "Use design tokens for colours and spacing; no hard-coded hex values in components.")
    policy(47, "auto", "dara", "conventions",
           "# Auto-promoted from 2 facts\n- Commit messages follow Conventional Commits.\n"
           "- Keep pull requests under 400 changed lines.", ("commits", "pr-size-dara"))
    op(31, "supersede policy fridays", lambda b, at=ago(31): b.supersede_policy(
        "fridays", "farah", "No production deploys on Fridays or on the day before a public holiday.", at))

    # Hot tier: items remembered during runs, consolidated by "sleep" passes.
    def remember(days, key, n, session, expire_days=None, hours=0):
        for j in range(n):
            mtype, template = T.HOT_ITEMS[(j + len(key)) % len(T.HOT_ITEMS)]
            content = template.format(C=rng.choice(("Checkout Service", "Search Worker", "Billing Console")))
            at = ago(days, hours + j)
            expires = at + int(expire_days * DAY) if expire_days is not None else None
            op(days, f"remember {key}", lambda b, key=key, content=content, mtype=mtype, at=at, expires=expires:
               b.svc.remember(b.agent_ids[key], content, memory_type=mtype, veracity="inferred",
                              importance=round(0.4 + 0.1 * (len(content) % 6), 2), session_id=session,
                              expires_at=expires, now=at))

    remember(36, "bram", 6, "run-2417")
    remember(35, "bram", 2, "run-2417", expire_days=0.5)  # expire before the pass: evicted
    op(34, "consolidate bram", lambda b, at=ago(34): b.svc.consolidate_memory(b.agent_ids["bram"], now=at))
    remember(15, "eli", 5, "run-2530")
    remember(14, "ada", 4, "run-2544")
    op(13, "consolidate eli", lambda b, at=ago(13): b.svc.consolidate_memory(b.agent_ids["eli"], now=at))
    remember(8, "farah", 4, "run-2601", expire_days=30)
    op(2, "consolidate all", lambda b, at=ago(2): b.svc.consolidate_memory(None, now=at))
    remember(1, "ada", 3, "run-2688")  # still hot: remembered after the last pass
    remember(1, "chen", 2, None, expire_days=2)

    # Harmonize at the end: beliefs and open cross-agent conflicts.
    op(0.02, "harmonize", lambda b, at=ago(0.02): b.svc.harmonize_memory(now=at))
    return sorted(ev, key=lambda e: e.at)


# -- the builder ---------------------------------------------------------------------------------


class DemoBuilder:
    """Runs the timeline against one new workspace."""

    def __init__(self, ws: Workspace, *, facts: int, seed: int, now: int, embed: int,
                 bulk: bool, progress: Callable[[str], None] | None = None) -> None:
        self.ws, self.facts, self.seed, self.now, self.embed_n = ws, facts, seed, now, embed
        self.bulk = bulk
        self.progress = progress or (lambda _line: None)
        self.svc = MemoryService(ws, embedder=False)  # vectors are computed here, in batches
        self.agent_ids: dict[str, str] = {}
        self.agent_roles: dict[str, str | None] = {}
        self.named: dict[str, str] = {}
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
        self._last_report = self.started

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
        if force or now - self._last_report >= 2.0:
            self._last_report = now
            rate = self.written / max(now - self.started, 1e-9)
            self.progress(f"  {self.written:,} / ~{self.facts:,} facts ({rate:,.0f} facts/s)")

    # the run
    def run(self, scenario: list[Event], stream: _Stream, start: int, end: int) -> None:
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
            "conflicts": n(L.conflicts), "contradictions": n(L.conflicts, L.conflicts.c.conflict_type == "contradiction"),
            "cross_agent": n(L.conflicts, L.conflicts.c.conflict_type == "cross_agent"),
            "edges": n(L.edges), "beliefs": n(L.beliefs), "policies": n(L.policies),
            "policies_active": n(L.policies, L.policies.c.active == 1), "notes": n(L.notes), "items": n(L.items),
            "consolidations": n(L.consolidation_log),
        }


def _no_sync(ws: Workspace) -> None:
    """A new file being built needs no fsync per transaction: a failed build is deleted anyway."""
    event.listen(ws.engine, "connect", lambda dbapi_conn, _record: dbapi_conn.execute("PRAGMA synchronous = OFF"))
    ws.engine.dispose()


def build_demo(path: str | Path, *, facts: int = 2_000, seed: int = 7, now: int | None = None,
               embed: int = DEFAULT_EMBED, bulk: bool | None = None,
               progress: Callable[[str], None] | None = None) -> DemoSummary:
    """Write a new demo workspace at ``path`` (which must not exist) and return what it holds.

    ``facts``: about how many fact rows to write (the scenario and consolidation add
    a few; re-mentions add none). ``embed``: how many of the first facts get a real
    embedding (0 = none). ``bulk``: force the bulk path on or off (default: on above
    ``BULK_THRESHOLD`` facts). ``now``: the reference time (default: the current
    minute); the workspace spans the 120 days before it.
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
    scenario = _scenario(random.Random(f"{seed}-scenario"), now)
    scenario_facts = sum(isinstance(e, Proposal) for e in scenario)
    target = max(facts - scenario_facts - CONSOLIDATION_RESERVE, 1)
    stream = _Stream(rng, target)
    embed = max(0, min(embed, facts))
    with deterministic_ids(seed):
        ws = open_workspace(path, name="Acme demo")
        try:
            _no_sync(ws)
            builder = DemoBuilder(ws, facts=facts, seed=seed, now=now, embed=embed, bulk=bulk, progress=progress)
            builder.run(scenario, stream, now - SPAN_DAYS * DAY, now - 3600)
            builder.adjust_access()
            counts = _counts(ws)
        finally:
            ws.close()
    note = builder.embed_note
    if not note and counts["facts"] > counts["embedded"]:
        note = (f"real embeddings for the first {embed:,} facts proposed; the rest are written without one, "
                "as the product does when its model is not installed" if embed else "embeddings were turned off")
    return DemoSummary(path, seed, facts, "bulk" if bulk else "service", counts["embedded"], note,
                       time.monotonic() - started, counts)


def finish_file(path: str | Path) -> None:
    """Fold the write-ahead log into the database file so it can be moved on its own."""
    import sqlean

    conn = sqlean.connect(str(path))
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
