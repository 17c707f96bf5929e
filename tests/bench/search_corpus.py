"""The synthetic workspaces the search benchmarks run on, built once and cached.

The text generator (why the figures mean something)
-----------------------------------------------------
Real workspaces have a wide vocabulary, and a query's terms match a small part of the
facts. A generator that reuses a few dozen phrases makes every query match most facts
and measures a worst case nobody has. So:

- a vocabulary of ``VOCAB_SIZE`` words: a few hundred real engineering words first,
  then pronounceable made-up words, ranked, with a Zipf–Mandelbrot frequency
  (``1 / (rank + 2.7) ** 1.07``), as word frequencies in real text are;
- 40 domains (workspace-wide and ``repo:<slug>/…``), themselves chosen with a Zipf
  weight; each has its own lexicon of ``LEXICON_SIZE`` words drawn from the
  vocabulary (mid-frequency words become a domain's common words, as "terraform" is
  common in infrastructure facts and rare elsewhere);
- a fact's content is 6–60 tokens (log-normal length, median about 18): about a third
  English function words (indexed, but stopwords to the query builder), the rest from
  the domain's lexicon (Zipf, s = 1) or the whole vocabulary, with an occasional number
  or version; the topic is one to three of the domain's common words joined by ``-``;
- a query picks a domain the same way and 2–5 content words from it (mostly the
  domain's lexicon, sometimes any word), put in one of a dozen question shapes ("how do
  we … the …", "why does … fail", bare keywords …); a preamble task is an instruction
  with four or five content words built the same way ("Rotate the … before the … window");
- embeddings are random unit vectors (latency does not depend on what they mean);
  5% of facts are superseded by their predecessor; each fact has two episodic edges to
  random facts; ``created_at`` grows with the insertion order.

Workspaces are built once with bulk inserts through the product's own schema (the FTS
index filled by the product's triggers, our sqlite-vec index beside it) and cached in
the temp folder under a name that carries the generator's version. A benchmark that
writes works on a copy (``writable_copy``).
"""

from __future__ import annotations

import math
import os
import random
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from memorydesk.embedding.embedder import DIM
from memorydesk.store import open_workspace
from memorydesk.store.ours import VECTOR_TABLE

SIZES = [int(s) for s in os.environ.get("MEMDESK_BENCH_SIZES", "10000,100000").split(",") if s]
N_QUERIES = int(os.environ.get("MEMDESK_BENCH_QUERIES", "100"))
CACHE = Path(tempfile.gettempdir()) / "memorydesk-bench"
GENERATOR_VERSION = 2
T0 = 1_790_000_000
AGENT = "bench-agent"

# --- vocabulary ---------------------------------------------------------------------------

VOCAB_SIZE = 8000
LEXICON_SIZE = 600
ZIPF_S = 1.07
ZIPF_Q = 2.7

_REAL_WORDS = """
api deploy release backup restore database postgres redis kafka terraform cluster staging production
service worker gateway queue cache index schema migration rollback pipeline build test lint review
merge branch commit tag version changelog token secret credential password certificate rotation vault
latency timeout retry throttle quota limit budget alert incident outage postmortem oncall pager
dashboard metric log trace span sentry grafana prometheus datadog monitor health check probe
docker image container kubernetes helm chart pod node region zone bucket storage snapshot replica
shard partition consumer producer topic offset lag broker stream event webhook callback handler
endpoint route request response header payload json yaml config setting flag feature toggle rollout
canary experiment variant metric funnel checkout cart payment invoice refund coupon price tax
currency rounding ledger account customer user profile session login signup password oauth saml
permission role grant policy audit compliance gdpr retention deletion export import csv report
frontend backend mobile android ios react nextjs typescript javascript golang python rust swift
kotlin css tailwind component storybook design token theme font icon layout accessibility contrast
playwright cypress jest vitest pytest fixture mock stub coverage flaky snapshot regression smoke
load stress benchmark profile memory cpu disk network dns cdn tls proxy firewall vpn ssh bastion
cron schedule job batch nightly weekly monthly daily hourly window maintenance freeze calendar
owner team squad lead manager approver reviewer author assignee ticket issue epic sprint roadmap
estimate deadline priority severity blocker bug fix patch hotfix upgrade dependency package library
npm pnpm yarn pip poetry cargo gradle maven makefile script cli tool sdk client server protocol
grpc rest graphql websocket sse polling pagination cursor filter sort search query ranking
embedding vector model prompt agent memory fact note summary context window chunk tokenizer
email sms push notification template locale translation language timezone utc date format
upload download file media video image thumbnail resize compress encode decode encrypt hash sign
verify validate sanitize escape parse serialize cache invalidate evict warm cold hot tier archive
cost billing invoice spend forecast capacity scale autoscale instance spot reserved savings
fail fails failed change changed owns documented settings works broken slow fast missing wrong
""".split()

_FUNCTION_WORDS = """
the the the the a a an to to to of of of and and in in is is for for on on with that this
it be are as at by we our from or not when after before every only all if then must should
can will was has have no new each per into via than
""".split()

_DOMAINS = [
    "codebase", "infrastructure", "conventions", "decisions", "product", "pr-reviews", "security",
    "testing", "design", "billing", "analytics", "support", "onboarding", "release", "incidents",
    "data", "mobile", "frontend", "backend", "platform", "compliance", "observability", "performance",
    "documentation", "hiring", "vendors", "costs", "roadmap", "experiments", "integrations",
    "repo:acme-web/conventions", "repo:acme-web/architecture", "repo:acme-api/architecture",
    "repo:acme-api/conventions", "repo:acme-infra/runbooks", "repo:acme-infra/conventions",
    "repo:acme-mobile/architecture", "repo:acme-mobile/release", "repo:acme-data/pipelines",
    "repo:acme-docs/style",
]
_TYPES = ["fact"] * 6 + ["decision", "preference", "event", "request", "learning", "observation"]

_QUERY_SHAPES = [
    "{} {}", "{} {} {}", "how do we {} the {}", "what is the {} for {}", "why does {} {} fail",
    "when did we change the {} {}", "who owns {} {} {}", "{} {} {} settings",
    "where is the {} {} documented", "should we {} {} or {}", "how to {} {} in {}",
    "{} {} {} {} {}",
]
_TASK_SHAPES = [
    "Investigate why the {} {} {} fails on {}", "Prepare the {} release and check {} {} {}",
    "Update the {} {} documentation for {} {}", "Rotate the {} {} before the {} {} window",
    "Fix the flaky {} {} test in {} {} {}", "Review the {} {} change to {} {}",
    "Migrate {} {} from {} to {} {}", "Add {} {} alerts for the {} {}",
]


def _zipf_cdf(n: int, s: float = ZIPF_S, q: float = ZIPF_Q) -> np.ndarray:
    w = 1.0 / np.power(np.arange(n, dtype=np.float64) + q, s)
    cdf = np.cumsum(w)
    return cdf / cdf[-1]


def _made_up_words(rng: random.Random, n: int, taken: set[str]) -> list[str]:
    onsets = ["b", "br", "c", "ch", "d", "dr", "f", "fl", "g", "gr", "h", "j", "k", "kl", "l", "m", "n",
              "p", "pl", "qu", "r", "s", "sh", "sk", "st", "t", "tr", "v", "w", "z"]
    vowels = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou", "y"]
    codas = ["", "", "", "n", "r", "s", "l", "t", "x", "nd", "rk", "st", "m"]
    out: list[str] = []
    while len(out) < n:
        word = "".join(rng.choice(onsets) + rng.choice(vowels) for _ in range(rng.choice([1, 2, 2, 2, 3, 3])))
        word += rng.choice(codas)
        if len(word) >= 3 and word not in taken:
            taken.add(word)
            out.append(word)
    return out


class TextModel:
    """The generator described in the module docstring (deterministic for a seed)."""

    def __init__(self, seed: int = 11) -> None:
        rng = random.Random(seed)
        real = list(dict.fromkeys(_REAL_WORDS))
        rng.shuffle(real)
        taken = set(real) | set(_FUNCTION_WORDS)
        self.vocab = np.array(real + _made_up_words(rng, VOCAB_SIZE - len(real), taken), dtype=object)
        self.vocab_cdf = _zipf_cdf(VOCAB_SIZE)
        self.function_words = np.array(_FUNCTION_WORDS, dtype=object)
        self.domain_cdf = _zipf_cdf(len(_DOMAINS), s=0.8, q=1.0)
        nrng = np.random.default_rng(seed)
        # a domain's lexicon leans to mid-frequency words (weights: global Zipf ** 0.5)
        flat = 1.0 / np.sqrt(np.arange(VOCAB_SIZE, dtype=np.float64) + ZIPF_Q)
        flat /= flat.sum()
        self.lexicons = [nrng.choice(VOCAB_SIZE, size=LEXICON_SIZE, replace=False, p=flat) for _ in _DOMAINS]
        self.lexicon_cdf = _zipf_cdf(LEXICON_SIZE, s=1.0, q=1.0)

    def _words(self, nrng: np.random.Generator, domain: int, n: int, p_function: float) -> list[str]:
        kinds = nrng.random(n)
        picks = nrng.random(n)
        out: list[str] = []
        lexicon = self.lexicons[domain]
        for kind, pick in zip(kinds, picks):
            if kind < p_function:
                out.append(self.function_words[int(pick * len(self.function_words))])
            elif kind < p_function + (1 - p_function) * 0.62:
                out.append(self.vocab[lexicon[np.searchsorted(self.lexicon_cdf, pick)]])
            elif kind < 0.985:
                out.append(self.vocab[min(VOCAB_SIZE - 1, np.searchsorted(self.vocab_cdf, pick))])
            else:
                out.append(str(int(pick * 5000)) if pick < 0.5 else f"v{int(pick * 20)}")
        return out

    def domain(self, nrng: np.random.Generator) -> int:
        return int(np.searchsorted(self.domain_cdf, nrng.random()))

    def fact(self, nrng: np.random.Generator) -> tuple[str, str, str]:
        d = self.domain(nrng)
        n = int(min(60, max(6, round(math.exp(nrng.normal(math.log(18), 0.55))))))
        words = self._words(nrng, d, n, p_function=0.33)
        sentence = " ".join(words)
        content = sentence[:1].upper() + sentence[1:] + "."
        lexicon = self.lexicons[d]
        topic = "-".join(self.vocab[lexicon[int(x)]]
                         for x in nrng.integers(0, 150, size=int(nrng.integers(1, 4))))
        return _DOMAINS[d], topic, content

    def _fill(self, nrng: np.random.Generator, shapes: Sequence[str]) -> str:
        shape = shapes[int(nrng.integers(0, len(shapes)))]
        slots = shape.count("{}")
        d = self.domain(nrng)
        words = [w for w in self._words(nrng, d, slots * 3, p_function=0.0) if not w[0].isdigit()][:slots]
        while len(words) < slots:
            words.append(self.vocab[self.lexicons[d][int(nrng.integers(0, 50))]])
        return shape.format(*words)

    def query(self, nrng: np.random.Generator) -> str:
        return self._fill(nrng, _QUERY_SHAPES)

    def task(self, nrng: np.random.Generator) -> str:
        return self._fill(nrng, _TASK_SHAPES)


# --- building a workspace ------------------------------------------------------------------


def _build(path: Path, n: int, seed: int = 11) -> None:
    model = TextModel(seed)
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    tmp = path.with_suffix(".building")
    for suffix in ("", "-wal", "-shm"):
        Path(str(tmp) + suffix).unlink(missing_ok=True)
    ws = open_workspace(tmp, create=True)
    facts, edges = ws.layout.facts.name, ws.layout.edges.name
    wid = ws.workspace_id
    batch = 20_000
    ids = [f"bench-{i:07d}" for i in range(n)]
    with ws.write() as conn:
        conn.execute(ws.layout.agents.insert().values(id=AGENT, name="Bench", title="Bench", agent_md_path="",
                                                      workspace_id=wid, skills="", created_at=T0))
        conn.execute(ws.layout.notes.insert().values(id="note-1", workspace_id=wid, agent_id=AGENT,
                                                     content="- prefers small PRs\n- watch the flaky suite",
                                                     updated_at=T0))
        for i in range(12):
            domain, _, rule = model.fact(nrng)
            conn.execute(ws.layout.policies.insert().values(
                id=f"pol-{i}", workspace_id=wid, domain=domain, rule=rule, active=True,
                created_at=T0, updated_at=T0 + i))
    fact_sql = (f"INSERT INTO {facts} (id, workspace_id, domain, topic, content, confidence, memory_type, "
                f"superseded_by, embedding, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)")
    edge_sql = (f"INSERT INTO {edges} (id, workspace_id, source_fact_id, target_fact_id, edge_type, weight, "
                f"created_at) VALUES (?,?,?,?,?,?,?)")
    for start in range(0, n, batch):
        stop = min(start + batch, n)
        vecs = nrng.standard_normal((stop - start, DIM)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        rows = []
        for j, i in enumerate(range(start, stop)):
            domain, topic, content = model.fact(nrng)
            rows.append((ids[i], wid, domain, topic, content, round(rng.uniform(0.3, 1.0), 2), rng.choice(_TYPES),
                         ids[i - 1] if i and rng.random() < 0.05 else None, vecs[j].tobytes(),
                         T0 + i * 30, T0 + i * 30))
        edge_rows = [(f"edge-{i}-{k}", wid, ids[i], ids[rng.randrange(n)], ("related_to", "contextual")[k],
                      round(rng.uniform(0.35, 1.0), 3), T0) for i in range(start, stop) for k in range(2)]
        with ws.write() as conn:
            conn.exec_driver_sql(fact_sql, rows)
            conn.exec_driver_sql(f"INSERT INTO {VECTOR_TABLE}(fact_id, embedding) VALUES (?, ?)",
                                 [(r[0], r[8]) for r in rows])
            conn.exec_driver_sql(edge_sql, edge_rows)
    ws.close()
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(tmp) + suffix)
        if src.exists():
            src.replace(Path(str(path) + suffix))


def workspace_of(n: int) -> Path:
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"search-v{GENERATOR_VERSION}-{n}.db"
    if not path.exists():
        started = time.perf_counter()
        _build(path, n)
        print(f"  built {n:,} facts in {time.perf_counter() - started:.1f} s")
    return path


def writable_copy(n: int, folder: Path) -> Path:
    """A private copy of the size-``n`` workspace that a benchmark may write to."""
    source = workspace_of(n)
    target = folder / source.name
    for suffix in ("", "-wal", "-shm"):
        Path(str(target) + suffix).unlink(missing_ok=True)
    for suffix in ("", "-wal"):
        if Path(str(source) + suffix).exists():
            shutil.copyfile(str(source) + suffix, str(target) + suffix)
    return target
