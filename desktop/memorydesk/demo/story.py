"""The demo workspace's story: what the team's agents say, and when.

A generated *stream* of fact proposals (templates and vocabulary in ``demo_text``)
and a hand-written *scenario* (chains, disagreements, policies, grants, notes, hot
items, foreign-language facts) laid on one timeline. Nothing here touches a
database; ``demo.builder.DemoBuilder`` (a ``Stage``) plays the events through the memory service.
"""

from __future__ import annotations

import hashlib
import random
import re
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import Connection

from memorydesk.demo import text as T
from memorydesk.memory import working
from memorydesk.memory.service import MemoryService
from memorydesk.store import Workspace

DAY = 86_400
SPAN_DAYS = 120
CELL_FACTS = 15_000  # one more cell per this many facts

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
    restates: str | None = None  # the name of the fact this one says again in other words (a true duplicate)
    statement: str | None = None  # what it says about what (facts with the same statement are true duplicates)

    def stamp(self, at: int) -> None:
        """Give a generated fact its time (and what derives from it)."""
        self.at = at
        if self.valid_for is not None:
            self.valid_until = at + self.valid_for
        if self.week_tag:
            self.temporal_tags = (f"week-{time.gmtime(at).tm_yday // 7 + 1}",)


class Stage(Protocol):
    """What a scenario op is handed to play itself (the builder is one): the workspace, the
    memory service, the agents' ids, and the few steps the scenario repeats."""

    ws: Workspace
    svc: MemoryService
    agent_ids: dict[str, str]

    def tx(self, work: Callable[[Connection], Any]) -> Any: ...

    def policy(self, name: str, agent: str, domain: str, rule: str, sources, at: int) -> None: ...

    def supersede_policy(self, name: str, agent: str, rule: str, at: int) -> None: ...


@dataclass(slots=True)
class Op:
    """Anything else that happens at time ``at`` (a note, a policy, a consolidation…)."""

    at: int
    label: str
    run: Callable[[Stage], None]


Event = Proposal | Op


# -- the generated stream ------------------------------------------------------------------------

_VERACITIES = ("stated", "inferred", "tool", "imported", "unknown")
_VERACITY_WEIGHTS = (55, 20, 12, 8, 5)
_CONFIDENCES = (0.55, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0)
RESTATED_SHARE = 0.01  # of the generated conventions, written down a second time in other words
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


class Stream:
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
        # Some conventions are written down twice, by another agent in other words, under a topic of
        # their own: true near-duplicates, recorded (``Proposal.restates``) so the review's precision
        # can be measured on the demo.
        self.to_restate: deque = deque()
        self.restated = 0

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

    def _restatement(self, at: int) -> Proposal:
        original, label, where, said = self.to_restate.popleft()
        agent = self.rng.choice([a for a in ("dara", "eli", "ivo", "ada", "bram", "farah") if a != original.agent])
        content = f"{label} / {where}, written down again after the retro: {said}"
        return Proposal(at, original.domain, f"{original.topic}-recap", content, agent, original.confidence,
                        original.memory_type, original.veracity, area=original.area, statement=original.statement)

    def _one(self, at: int) -> Proposal:
        rng = self.rng
        if self.to_restate and rng.random() < 0.2:
            return self._restatement(at)
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
            said = content
            content = f"{T.REPO_LABEL[repo]} / {where}: {content}"
            proposal = Proposal(at, domain, topic, content, agent, confidence, mtype, veracity, area=comp,
                                statement=f"{domain}|{topic}|{said}")
            if kind == "convention" and rng.random() < RESTATED_SHARE:
                self.restated += 1
                proposal.name = f"restated-{self.restated}"
                self.to_restate.append((proposal, T.REPO_LABEL[repo], where, said))
            return proposal
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


def timeline(rng: random.Random, now: int) -> list[Event]:
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
    # A burst ("collateral invalidation"): a summary written in one go supersedes four detailed
    # facts of the topic at once, each of which overlaps it by more than half (but not one another).
    oncall = ("Checkout on-call", "pages go to platform", "escalation after 15 minutes", "runbooks in the wiki",
              "incident reviews every Monday")
    for days, facets, agent, confidence in ((29, (1, 2), "farah", 0.85), (28.5, (3, 4), "ivo", 0.8),
                                            (28, (1, 3), "eli", 0.9), (27.5, (2, 4), "bram", 0.85)):
        fact(days, "oncall", "checkout-oncall", " — ".join((oncall[0], *(oncall[i] for i in facets))), agent,
             confidence, "instruction", area="oncall")
    fact(25, "oncall", "checkout-oncall", " — ".join(oncall), "juno", 0.95, "instruction", name="oncall-summary",
         area="oncall")
    # The workspace-wide name of a repo-scoped domain: its rows decide where a repo's own row is missing.
    fact(97, "architecture", "service-calls",
         "Services call each other over HTTP with JSON; gRPC only where a stream is needed.", "bram", 0.85,
         "decision")
    # A belief: the identical statement written by two agents in two domains.
    commits = "Commit messages follow Conventional Commits; the type decides the changelog section."
    fact(90, "conventions", "commit-messages", commits, "dara", 0.9, "instruction", name="commits")
    fact(64, "repo:acme-web/conventions", "commit-messages", commits, "ada", 0.8, "instruction", restates="commits")
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

    # Grants carried over from the team's first workspace by an older build, strings as they were
    # stored there: a case variant and an unknown role next to seeded rows (two rows match one cell),
    # an unknown role alone, a domain named by a grant row only.
    op(1, "grants carried over", lambda b: b.svc.carry_over_grants(T.CARRIED_GRANTS))

    # Harmonize twice, as the product does on a schedule: beliefs and open cross-agent
    # conflicts; the second pass flags the still-open pairs again (new rows, same pairs).
    op(7, "harmonize", lambda b, at=ago(7): b.svc.harmonize_memory(now=at))
    op(0.02, "harmonize", lambda b, at=ago(0.02): b.svc.harmonize_memory(now=at))
    return sorted(ev, key=lambda e: e.at)
