"""Do ``history``, ``review`` and ``lineage classify`` print the same bytes as the code before?

Run as ``python tests/bench/compare_outputs.py --before SRC FILE...``, where ``SRC`` is a
source tree of the code to compare with (its ``desktop/`` folder is put first on the path;
``git archive <commit> desktop resources | tar -x -C SRC`` makes one) and each ``FILE`` a
workspace (or a receipts file for ``classify``). Every command runs twice, as its own
process, once with each code, on a private copy of the file (with its ``-wal``/``-shm``);
standard output and the exit code must be equal byte for byte. The text form of
``review`` starts with the scan's time in seconds: that one number is masked. Prints one
line per command and exits 1 if any differ (the first differing line is shown).

Commands run on a workspace: ``history`` (text, ``--json``, ``--format markdown``,
``--content-free --json``, ``--kind fact --json``), ``review --json`` (every kind and the
text kinds only), ``review`` (text) and ``lineage classify --json`` of its receipts; on a
``.jsonl`` file: ``lineage classify --json`` and the text form.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NOW = "2026-12-01T00:00:00Z"  # classify judges at this time (``--now``), so both sides judge alike
TEXT_KINDS = ("secret", "personal_data", "injection")
_SECONDS = re.compile(rb"^(\S+ finding\(s\), \S+ open, in )[0-9.]+( s)$", re.MULTILINE)


def commands(path: Path, now: str) -> list[tuple[str, list[str]]]:
    if path.suffix == ".jsonl":
        return [("classify --json", ["lineage", "classify", "{file}", "--now", now, "--json"]),
                ("classify (text)", ["lineage", "classify", "{file}", "--now", now])]
    text_kinds = [a for k in TEXT_KINDS for a in ("--kind", k)]
    return [
        ("history (text)", ["history", "{file}"]),
        ("history --json", ["history", "{file}", "--json"]),
        ("history --format markdown", ["history", "{file}", "--format", "markdown"]),
        ("history --content-free --json", ["history", "{file}", "--content-free", "--json"]),
        ("history --kind fact --json", ["history", "{file}", "--kind", "fact", "--json"]),
        ("review --json", ["review", "{file}", "--json"]),
        ("review --json, text kinds", ["review", "{file}", "--json", *text_kinds]),
        ("review (text)", ["review", "{file}"]),
        ("classify --json (its receipts)", ["lineage", "classify", "{file}", "--now", now, "--json"]),
    ]


def _copy(path: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / path.name
    for suffix in ("", "-wal", "-shm"):
        source = Path(f"{path}{suffix}")
        if source.exists():
            shutil.copyfile(source, f"{target}{suffix}")
    return target


def run(src: Path | None, args: list[str], file: Path) -> tuple[int, bytes, float]:
    env = dict(os.environ, TZ=os.environ.get("TZ", "UTC"))
    if src is not None:
        env["PYTHONPATH"] = str(src / "desktop")
    argv = [sys.executable, "-m", "memorydesk", *[a.replace("{file}", str(file)) for a in args]]
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=3600)
    took = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.decode(errors='replace')}")
    return done.returncode, _SECONDS.sub(rb"\1#\2", done.stdout), took


def _first_difference(a: bytes, b: bytes) -> str:
    for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines(), strict=False)):
        if x != y:
            return f"line {i + 1}:\n    before: {x[:200]!r}\n    now:    {y[:200]!r}"
    return f"lengths differ: {len(a):,} bytes before, {len(b):,} now"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="a source tree of the code before (with desktop/)")
    parser.add_argument("--now", default=NOW, help=f"the time classify judges at (default {NOW})")
    parser.add_argument("files", type=Path, nargs="+")
    args = parser.parse_args()
    if not (args.before / "desktop" / "memorydesk").is_dir():
        parser.error(f"{args.before} holds no desktop/memorydesk")
    failed = 0
    with tempfile.TemporaryDirectory(prefix="compare-outputs-") as tmp:
        for n, path in enumerate(args.files):
            print(f"{path} ({path.stat().st_size / 1e6:.1f} MB)", flush=True)
            for label, argv in commands(path, args.now):
                old = run(args.before, argv, _copy(path, Path(tmp) / f"{n}-before"))
                new = run(None, argv, _copy(path, Path(tmp) / f"{n}-now"))
                same = old[:2] == new[:2]
                failed += not same
                print(f"  {'same' if same else 'DIFFERENT':<9} {label:<32} {len(new[1]):>12,} bytes, exit {new[0]}; "
                      f"{old[2]:.1f} s before, {new[2]:.1f} s now", flush=True)
                if not same:
                    print("    " + (f"exit {old[0]} before, {new[0]} now" if old[0] != new[0]
                                    else _first_difference(old[1], new[1])))
    print("all outputs identical" if not failed else f"{failed} output(s) differ")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
