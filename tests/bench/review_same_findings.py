"""The review's text checks before and after a change: the same findings, byte for byte, and
what each side costs a fact.

Each side runs in a process of its own: the code of a git revision (``--before``, exported
with ``git archive``) and the code of this checkout. Each reads the same texts — every item of
the dev split (``tests/fixtures/review_eval/dev.jsonl``, its topic and content as one fact)
and a sample of the active facts of the search benchmark's 100,000-fact workspace — and writes,
per item, every text finding (``Finding.dumps`` and its key) and the injection reading's signals
(``intent.signals``, which the findings show only when no rule matched). The two outputs are
compared byte for byte; the CPU time of the text checks per fact is printed for both sides.

    python tests/bench/review_same_findings.py [--before REV] [--facts 5000]

(``--before`` defaults to ``HEAD``: the working tree against its last commit; give the commit before
the change once it is committed, not a branch that has moved since.)

Exit 0 when the outputs are the same, 1 when they differ (the first differences printed).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEV = HERE.parent / "fixtures" / "review_eval" / "dev.jsonl"


def _dev_items() -> list:
    from memorydesk.browse.review.items import Item

    with open(DEV, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return [Item("fact", r["id"], r["domain"], (("topic", r["topic"]), ("content", r["content"])), True, False,
                 "dev", 0, "fact", r["topic"]) for r in rows]


def _file_items(source: Path, n: int, folder: Path) -> list:
    from memorydesk.browse.review.items import fact_items
    from memorydesk.store import open_workspace

    path = folder / "sample.db"
    for side in ("", "-wal"):
        if Path(f"{source}{side}").exists():
            shutil.copyfile(f"{source}{side}", f"{path}{side}")
    with open_workspace(path) as ws, ws.read() as conn:
        ids = [r[0] for r in conn.exec_driver_sql(
            f"SELECT id FROM {ws.layout.facts.name} WHERE superseded_by IS NULL ORDER BY id").fetchall()]
        picked = ids[::max(1, len(ids) // n)][:n]
        items = sorted(fact_items(ws, conn, picked), key=lambda it: it.id)
    return items


def dump(out: Path, source: Path, n: int) -> None:
    """One side: the findings and signals of every item, written to ``out``; the CPU per fact printed."""
    from memorydesk.browse.review.text import text_findings
    from memorydesk.core.review.intent import signals

    with tempfile.TemporaryDirectory() as tmp:
        groups = {"dev": _dev_items(), "100k": _file_items(source, n, Path(tmp))}
    text_findings(groups["dev"][0])  # patterns compiled and gates built before the clock starts
    lines, cost = [], {}
    for name, items in groups.items():
        t0 = time.process_time()
        found = [text_findings(it) for it in items]
        cost[name] = (time.process_time() - t0) / len(items) * 1000
        for it, fs in zip(items, found, strict=True):
            joined = "\n".join(text for _name, text in it.fields)
            lines.append(json.dumps({"group": name, "item": it.id, "signals": signals(joined)}, ensure_ascii=False))
            lines += [f"{f.key} {f.dumps()}" for f in fs]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(json.dumps({"ms_per_fact": {k: round(v, 4) for k, v in cost.items()},
                      "items": {k: len(v) for k, v in groups.items()}}))


def _side(code: Path, out: Path, source: Path, n: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(code))
    done = subprocess.run([sys.executable, __file__, "--dump", str(out), "--file", str(source), "--facts", str(n)],
                          env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"the side at {code} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before", default="HEAD", help="the git revision to compare against (default: HEAD)")
    p.add_argument("--facts", type=int, default=5000, help="active facts of the 100,000-fact file to read")
    p.add_argument("--file", default="", help="the workspace to sample (default: the search benchmark's 100k file)")
    p.add_argument("--dump", default="", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.file:
        source = Path(args.file)
    else:
        sys.path.insert(0, str(HERE))
        from search_corpus import workspace_of

        source = workspace_of(100_000)
    if args.dump:
        dump(Path(args.dump), source, args.facts)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        old_code = Path(tmp) / "before"
        archive = subprocess.run(["git", "-C", str(REPO), "archive", args.before, "desktop"], capture_output=True,
                                 check=True).stdout
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(old_code)
        before, after = Path(tmp) / "before.txt", Path(tmp) / "after.txt"
        print(f"load average {', '.join(f'{x:.1f}' for x in os.getloadavg())} (1, 5, 15 min)")
        cost_before = _side(old_code / "desktop", before, source, args.facts)
        cost_after = _side(REPO / "desktop", after, source, args.facts)
        print(f"items read: {cost_after['items']}")
        print(f"text checks, CPU ms a fact: {args.before} {cost_before['ms_per_fact']}, "
              f"this checkout {cost_after['ms_per_fact']}")
        print(f"load average {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
        a, b = before.read_bytes(), after.read_bytes()
        if a == b:
            lines, items = a.count(b"\n"), a.count(b'"signals"')
            print(f"the same, byte for byte: {len(a):,} bytes, {lines:,} lines ({items:,} items)")
            return 0
        old_lines, new_lines = a.decode().splitlines(), b.decode().splitlines()
        gone = [x for x in old_lines if x not in set(new_lines)]
        added = [x for x in new_lines if x not in set(old_lines)]
        print(f"DIFFERENT: {len(gone)} line(s) only before, {len(added)} only after")
        for x in gone[:10]:
            print("  - " + x[:300])
        for x in added[:10]:
            print("  + " + x[:300])
        return 1


if __name__ == "__main__":
    sys.exit(main())
