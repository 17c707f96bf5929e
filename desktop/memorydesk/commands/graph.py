"""``memory-desk graph WORKSPACE --focus FACT_ID [--json]``: the graph voice's 2-hop
neighbourhood of a fact (docs/product-format.md, "The product's rules"; docs/cli.md), read-only —
the focus the Knowledge Graph tab shows.

``--json`` prints ``{"focus": ID, "nodes": [{"id", "kind", "hop", "active"}], "edges":
[{"source", "target", "kind", "weight"}]}``: nodes in walk order (the focus first, hop 0;
``kind`` is ``fact`` or ``missing``; ``active`` is false for superseded and missing facts,
which the walk passes through but the voice never recalls), edges in the order the walk
read them (each level heaviest first). The text form prints the same as a list.
"""

from __future__ import annotations

import json

from memorydesk.browse.graph.focus import focus
from memorydesk.commands.output import write_out
from memorydesk.store import open_workspace


def register(sub) -> None:
    p = sub.add_parser("graph", help="the graph voice's 2-hop neighbourhood of a fact (read-only)")
    p.add_argument("workspace")
    p.add_argument("--focus", required=True, metavar="FACT_ID", help="the fact to walk from")
    p.add_argument("--json", action="store_true",
                   help='print {"focus", "nodes": [{id, kind, hop, active}], '
                        '"edges": [{source, target, kind, weight}]}')
    p.set_defaults(func=run)


def run(args) -> int:
    with open_workspace(args.workspace, read_only=True) as ws:
        found = focus(ws, args.focus.strip())
    if args.json:
        write_out(json.dumps(found.to_json(), ensure_ascii=False, indent=2) + "\n", flush=True)
        return 0
    one, two = found.hop_counts()
    recalled = sum(1 for n in found.nodes if n.hop > 0 and n.active)
    out = [f"focus {found.focus}: {one} fact(s) at hop 1, {two} at hop 2, {len(found.edges)} edge(s) read; "
           f"the graph voice recalls {recalled} of them"]
    for node in found.nodes:
        label = f"[{node.domain}/{node.topic}]" if node.kind == "fact" else "(missing: no fact has this id)"
        if node.kind == "missing" or node.active:
            state = " (expired: still recalled)" if node.state == "expired" else ""
        else:
            state = f" ({node.state}: walked through, never recalled)"
        out.append(f"  hop {node.hop}  {node.id}  {label}{state}")
    out.append("edges, in the order the walk read them:")
    for e in found.edges:
        mark = "*" if e.tree else " "
        out.append(f" {mark}hop {e.hop}  {e.source} -> {e.target}  {e.kind} {e.weight:.3f}")
    write_out("\n".join(out) + "\n", flush=True)
    return 0
