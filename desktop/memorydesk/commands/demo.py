"""``memory-desk demo create PATH [--facts N] [--seed S] | --empty``: build a demo workspace file, or an
empty one (the product's tables and the desk's, nothing in them: to ingest receipts or import MemoryOS into).

The workspace is written through the memory service (``memorydesk.demo.builder``)
into a temporary file beside PATH (``.NAME.building-PID``) and moved into place only
when complete (``memorydesk.demo.place``), so an interrupted or failed build never
leaves a half-written workspace; a build that was killed leaves its temporary files,
and the next ``demo create`` beside it removes them. The disk's free space is checked
first. An existing PATH is refused (exit 2) unless ``--force``.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone
from pathlib import Path

from memorydesk.commands.args import count_arg
from memorydesk.core.errors import BadInput

NOW_RANGE = (946_684_800, 4_102_444_800)  # 2000-01-01 .. 2100-01-01, unix seconds
SEED_MAX = 2**63 - 1


def register(sub) -> None:
    p = sub.add_parser("demo", help="build demo workspaces")
    demo_sub = p.add_subparsers(dest="demo_command", required=True)
    c = demo_sub.add_parser(
        "create", help="build a demo workspace file through the memory service",
        description="Build a realistic workspace of a software team's agents: facts over the past 120 days, "
                    "contradictions and supersession chains, cross-agent conflicts, policies, grants with gaps, "
                    "notes, consolidated hot items, episodic edges. Deterministic for a seed and --now.")
    c.add_argument("path", help="the workspace file to create")
    c.add_argument("--facts", type=count_arg("--facts", 200, 1_000_000), default=None, metavar="N",
                   help="about how many facts to write (200 to 1,000,000; default 2000)")
    c.add_argument("--seed", type=count_arg("--seed", -SEED_MAX, SEED_MAX), default=None, metavar="S",
                   help="random seed (default 7)")
    c.add_argument("--empty", action="store_true",
                   help="no demo content: an empty workspace (the product's tables and Memory Desk's, nothing in "
                        "them), to ingest receipts or import MemoryOS into")
    c.add_argument("--embed", type=count_arg("--embed", 0, 1_000_000), default=None, metavar="N",
                   help="compute real embeddings for the first N facts written (default 2000; 0 = none); "
                        "the rest keep a NULL embedding")
    c.add_argument("--now", default=None, metavar="T",
                   help="reference time, unix seconds or ISO 8601, between 2000 and 2100 (default: now); the "
                        "workspace covers the 120 days before it")
    c.add_argument("--bulk", choices=("auto", "on", "off"), default="auto",
                   help="batch many facts per transaction (auto: above 5,000 facts)")
    c.add_argument("--force", action="store_true", help="replace PATH if it exists")
    c.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    c.set_defaults(func=run)


def _parse_now(text: str | None) -> int | None:
    if text is None:
        return None
    if len(text) > 40:
        raise BadInput(f"--now: not unix seconds or an ISO 8601 time: {text[:40]!r}…")
    try:
        seconds = int(text)
    except ValueError:
        try:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise BadInput(f"--now: not unix seconds or an ISO 8601 time: {text!r}") from None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=timezone.utc)
        seconds = int(parsed.timestamp())
    if not NOW_RANGE[0] <= seconds <= NOW_RANGE[1]:
        raise BadInput(f"--now: {text} is outside 2000-01-01 .. 2100-01-01 (unix seconds {NOW_RANGE[0]} .. "
                       f"{NOW_RANGE[1]})")
    return seconds


def _what_is(path: Path) -> str:
    """What an existing file is, in a few words: a workspace with how many facts, or its size."""
    from memorydesk.store import open_workspace

    try:
        size = path.stat().st_size
    except OSError as exc:
        return f"cannot look at it: {exc.strerror or exc}"
    try:
        with open_workspace(path, read_only=True) as ws, ws.read() as conn:
            facts = conn.exec_driver_sql(f'SELECT count(*) FROM "{ws.layout.facts.name}"').scalar()
            changes = conn.exec_driver_sql("SELECT count(*) FROM memdesk_history").scalar() if ws.desk_schema else 0
        return f"a workspace of {size:,} bytes with {facts:,} facts and {changes:,} recorded changes"
    except Exception:  # noqa: BLE001 - only a description: any failure to read it says it is not one
        return f"{size:,} bytes, not a workspace Memory Desk can read"


def run(args: argparse.Namespace) -> int:
    from memorydesk.core.outputs import SIDE_SUFFIXES, refuse_overwriting_input
    from memorydesk.demo.place import create

    path = Path(args.path).expanduser()
    # never a file SQLite keeps beside another workspace, nor a backup or build the desk made
    sides = [path.with_name(path.name.removesuffix(s)) for s in SIDE_SUFFIXES
             if path.name.endswith(s) and len(path.name) > len(s)]
    refuse_overwriting_input(path, sides, "demo create")
    if path.is_dir():
        raise BadInput(f"{path}: is a folder; give the path of a workspace file to create")
    if path.exists() and not args.force:
        print(f"memory-desk: {path} already exists ({_what_is(path)}); choose another path or pass --force to "
              "replace it", file=sys.stderr)
        return 2
    if not path.parent.is_dir():
        raise BadInput(f"{path}: the folder {path.parent} does not exist")
    if args.empty:
        given = [name for name, value in (("--facts", args.facts), ("--seed", args.seed), ("--embed", args.embed),
                                          ("--now", args.now)) if value is not None]
        given += ["--bulk"] if args.bulk != "auto" else []
        if given:
            raise BadInput(f"--empty builds no demo content: leave out {', '.join(given)}")
    if path.exists():  # --force: say what is replaced before it goes
        print(f"memory-desk: replacing {path} ({_what_is(path)})", file=sys.stderr, flush=True)
    if args.empty:
        from memorydesk.demo.place import create_empty

        create_empty(path)
        print(f"created an empty workspace: {path} (no facts, policies, agents or receipts)")
        return 0

    def progress(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    summary = create(path, facts=2000 if args.facts is None else args.facts, seed=7 if args.seed is None else args.seed,
                     now=_parse_now(args.now), embed=args.embed,
                     bulk={"auto": None, "on": True, "off": False}[args.bulk], progress=progress)
    for line in summary.lines():
        print(line)
    return 0

