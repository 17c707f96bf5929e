"""``memory-desk search WORKSPACE QUERY [--mode keyword|semantic|hybrid] [--repo SLUG] [--limit N] [--json]``.

What an agent's ``search_memory`` would return, opened read-only (nothing is
recorded). ``--json`` prints a list of ``{id, domain, topic, score, voices}`` (plus
the explanation fields of ``SearchHit.to_json``); notes on how the search ran (no
embedder, a query without keyword terms) go to stderr. The text form prints one
block per hit: place, score, ``[domain/topic]``, the content's first line, and how
the score came about.
"""

from __future__ import annotations

import json
import sys

from memorydesk.commands.args import count_arg, text_arg
from memorydesk.commands.output import write_out
from memorydesk.core.inputs import LIMIT_MAX, NAME_MAX, QUERY_MAX
from memorydesk.core.product.text import snippet
from memorydesk.search.agent import MODES, search
from memorydesk.store import open_workspace


def register(sub) -> None:
    p = sub.add_parser("search", help="what an agent's search_memory would return (read-only)")
    p.add_argument("workspace")
    p.add_argument("query", type=text_arg("QUERY", QUERY_MAX))
    p.add_argument("--mode", choices=MODES, default="hybrid", help="default: hybrid")
    p.add_argument("--repo", metavar="SLUG", type=text_arg("--repo", NAME_MAX),
                   help="only workspace-wide domains and repo:<SLUG>/… domains (hybrid also boosts the repo's facts)")
    p.add_argument("--limit", type=count_arg("--limit", 0, LIMIT_MAX), metavar="N",
                   help=f"hits to return, 0 to {LIMIT_MAX:,} (default 20 keyword, 10 otherwise)")
    p.add_argument("--json", action="store_true", help="print a JSON list of {id, domain, topic, score, voices}")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.mode != "keyword":
        from memorydesk.embedding.embedder import one_shot

        one_shot()  # one query: the session that is quickest to build and run once
    with open_workspace(args.workspace, read_only=True) as ws:
        result = search(ws, args.query, mode=args.mode, repo=args.repo, limit=args.limit)
    for note in result.notes:
        print(f"memory-desk: note: {note}", file=sys.stderr)
    if args.json:
        write_out(json.dumps([h.to_json() for h in result.hits], ensure_ascii=False, indent=2) + "\n", flush=True)
        return 0
    out: list[str] = []
    head = f"{result.mode} search"
    if result.intent:
        head += f", intent {result.intent}"
    if result.repo:
        head += f", repo {result.repo}"
    out.append(f"{head}: {len(result.hits)} hit{'s' if len(result.hits) != 1 else ''}")
    for place, hit in enumerate(result.hits, 1):
        first = snippet(hit.content, 120).splitlines()[0] if hit.content.strip() else ""
        out.append(f"{place:>2}. {hit.score:.6f}  [{hit.domain}/{hit.topic}] {first}")
        out.append(f"    {hit.id}  {hit.explain()}")
    write_out("\n".join(out) + "\n", flush=True)
    return 0
