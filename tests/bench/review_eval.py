"""Measure the review's text detectors on the evaluation corpus (tests/fixtures/review_eval).

Each fact of a split is written into a fresh workspace through the memory service (real
embeddings, as an agent's write), the review scans it as ``memory-desk review`` does, and
the script prints recall per label (secret, personal, injection; overall and per
language) and the false-alarm rate on the clean facts. For the ``heldout`` split only the
figures are printed, never an item: tune on ``dev`` (``--misses`` lists what dev misses).

    python tests/bench/review_eval.py dev [--misses]
    python tests/bench/review_eval.py heldout
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "fixtures" / "review_eval"
KIND = {"secret": "secret", "personal": "personal_data", "injection": "injection"}
NOW = 1_795_000_000


def load(split: str) -> list[dict]:
    with open(CORPUS / f"{split}.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def build(items: list[dict], path: Path) -> dict[str, str]:
    """A workspace holding each item as one active fact; fact id → item id."""
    from memorydesk.memory.service import MemoryService
    from memorydesk.store import open_workspace

    out = {}
    with open_workspace(path, create=True, name="review evaluation") as ws:
        svc = MemoryService(ws)
        with ws.write() as conn:
            conn.execute(ws.layout.agents.insert().values(
                id="agent-1", name="Eval", title="Eval", agent_md_path="", workspace_id=ws.workspace_id, skills="",
                role="devops", created_at=NOW - 90 * 86400))
        for n, it in enumerate(items):
            # a domain of its own: the product's contradiction rule must not supersede one item by another
            fid = svc.propose_fact(domain=f"{it['domain']}-{n}", topic=it["topic"], content=it["content"],
                                   confidence=0.9, memory_type="fact", agent_id="agent-1", now=NOW - 86400).fact_id
            out[fid] = it["id"]
    return out


def measure(items: list[dict], found: dict[str, set[str]]) -> dict:
    """Recall per label (and per label and language), false alarms on clean items."""
    per_label: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    per_lang: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    clean, alarms = 0, 0
    by_kind: dict[str, int] = defaultdict(int)
    for it in items:
        kinds = found.get(it["id"], set())
        if not it["labels"]:
            clean += 1
            alarms += bool(kinds & set(KIND.values()))
            for kind in kinds & set(KIND.values()):
                by_kind[kind] += 1
        for label in it["labels"]:
            hit = KIND[label] in kinds
            per_label[label][0] += hit
            per_label[label][1] += 1
            per_lang[(label, it["lang"])][0] += hit
            per_lang[(label, it["lang"])][1] += 1
    return {"recall": {k: (v[0], v[1]) for k, v in per_label.items()},
            "by_language": {f"{k[0]}/{k[1]}": (v[0], v[1]) for k, v in sorted(per_lang.items())},
            "false_alarms": (alarms, clean), "false_alarms_by_kind": dict(by_kind)}


def run(split: str, misses: bool = False) -> dict:
    from memorydesk.browse.review.scan import Options, scan
    from memorydesk.store import open_workspace

    items = load(split)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "eval.db"
        t0 = time.monotonic()
        ids = build(items, path)
        built = time.monotonic() - t0
        with open_workspace(path, read_only=True) as ws:
            t1 = time.monotonic()
            report = scan(ws, Options(kinds=("secret", "personal_data", "injection"), now=NOW))
            scanned = time.monotonic() - t1
    found: dict[str, set[str]] = defaultdict(set)
    how: dict[str, list[str]] = defaultdict(list)
    for f in report.findings:
        item = ids.get(f.item_id)
        if item is not None:
            found[item].add(f.kind)
            how[item].append(f"{f.kind}:{f.evidence.get('rule')}")
    result = measure(items, found)
    result.update(split=split, facts=len(items), build_s=round(built, 1), scan_s=round(scanned, 1))
    if misses:
        if split != "dev":
            raise SystemExit("only the dev split's items may be listed")
        by_id = {it["id"]: it for it in items}
        for it in items:
            kinds = found.get(it["id"], set())
            wanted = {KIND[label] for label in it["labels"]}
            if wanted - kinds or (not wanted and kinds & set(KIND.values())):
                what = "FALSE ALARM" if not wanted else "MISSED " + ",".join(sorted(wanted - kinds))
                print(f"{what:28} {it['id']} [{it['category']}/{it['lang']}] {how.get(it['id'], [])}\n"
                      f"    {by_id[it['id']]['content'][:300]!r}")
    return result


def show(result: dict) -> None:
    print(f"split {result['split']}: {result['facts']} facts (built in {result['build_s']} s, scanned in "
          f"{result['scan_s']} s)")
    for label, (hit, total) in sorted(result["recall"].items()):
        print(f"  recall {label:10} {hit:4} / {total:<4} {hit / total:6.1%}")
    alarms, clean = result["false_alarms"]
    print(f"  false alarms      {alarms:4} / {clean:<4} {alarms / clean:6.1%}  (clean facts with a finding of that "
          f"kind: {', '.join(f'{k} {n}' for k, n in sorted(result['false_alarms_by_kind'].items()))})")
    for key, (hit, total) in result["by_language"].items():
        print(f"    {key:16} {hit:3} / {total:<3}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("split", choices=("dev", "heldout"))
    p.add_argument("--misses", action="store_true", help="list the dev items missed or falsely flagged")
    args = p.parse_args(argv)
    show(run(args.split, args.misses))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))
    sys.exit(main())
