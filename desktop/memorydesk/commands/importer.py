"""``memory-desk import memoryos DATA_DIR WORKSPACE --timezone TZ [--stm-capacity N] [--json]
[--receipts-out F] [--dry-run] [--watch]``: read a MemoryOS data directory into a workspace's tiers.

Exit 0 when the directory shows no anomaly, 1 when it shows some, 2 on unusable input
(one sentence on stderr, nothing written). WORKSPACE is created when it does not exist.
``--json`` prints ``{"users", "assistants", "anomalies", "receipts", "imported"}``
(with ``--watch``, one such object per line and pass); each user has ``stm_fill:
{entries, capacity}`` (capacity null without ``--stm-capacity``), and an
``interrupted_migration`` anomaly carries ``from_utc``/``to_utc`` (and the local times):
where the lost QA(s) lie. ``--receipts-out`` writes the derived receipts as JSON Lines
(the ``lineage classify`` format).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from memorydesk.core.errors import BadInput


def register(sub) -> None:
    p = sub.add_parser("import", help="import another memory system's data directory (memoryos)")
    kinds = p.add_subparsers(dest="import_kind", required=True, metavar="{memoryos}")
    m = kinds.add_parser(
        "memoryos", help="read a MemoryOS data directory into tiers, receipts and an anomaly report",
        description="Read a MemoryOS data directory (users/*/short_term.json, mid_term.json, long_term_user.json, "
                    "assistants/*/long_term_assistant.json) into the workspace's tiers in one transaction, derive "
                    "lineage receipts and report anomalies. Exit 0 clean, 1 anomalies found, 2 unusable input.")
    m.add_argument("data_dir", metavar="DATA_DIR", help="MemoryOS's data_storage_path (holds users/, assistants/)")
    m.add_argument("workspace", metavar="WORKSPACE", help="workspace database (created if it does not exist)")
    m.add_argument("--timezone", metavar="TZ",
                   help="IANA zone MemoryOS ran in (its times carry no offset), e.g. Europe/Berlin; required")
    m.add_argument("--stm-capacity", metavar="N", type=_capacity,
                   help="MemoryOS's short_term_capacity for the run that wrote the files (10 by default in "
                        "MemoryOS; not stored in them): short-term memory holding fewer entries while mid-term "
                        "memory has pages is reported as interrupted_migration. Without it, how full short-term "
                        "memory is is only said")
    m.add_argument("--json", action="store_true", help="print the report as JSON")
    m.add_argument("--receipts-out", metavar="FILE.jsonl", help="also write the derived receipts as JSON Lines")
    m.add_argument("--dry-run", action="store_true", help="report what would be imported; write nothing")
    m.add_argument("--watch", action="store_true", help="keep importing as MemoryOS rewrites its files (Ctrl-C ends)")
    m.set_defaults(func=run)


def _capacity(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of entries of at least 1")
    return value


def _check_out(path: str | None, args: argparse.Namespace) -> Path | None:
    """The receipts file, refused (nothing written) when it is a folder or one of the command's inputs."""
    if path is None:
        return None
    from memorydesk.core.outputs import refuse_overwriting_input

    out = refuse_overwriting_input(path, [args.data_dir, args.workspace], "--receipts-out")
    if out.is_dir():
        raise BadInput(f"--receipts-out {out}: is a folder")
    if not out.parent.is_dir():
        raise BadInput(f"--receipts-out {out}: the folder {out.parent} does not exist")
    return out


def _write_receipts(out: Path, receipts) -> None:
    from memorydesk.core.outputs import partial_name
    from memorydesk.lineage.jsonl import dump_jsonl

    partial = out.with_name(partial_name(out, os.getpid()))
    try:
        partial.write_text(dump_jsonl(receipts), encoding="utf-8")
        os.replace(partial, out)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise BadInput(f"--receipts-out {out}: cannot write it ({exc.strerror or exc})") from None


def _show(result, as_json: bool, *, one_line: bool = False, blind_spots: bool = True) -> None:
    if as_json:
        payload = result.to_json()
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":")) if one_line else json.dumps(
            payload, ensure_ascii=False, indent=2)
        print(text, flush=True)
    else:
        print("\n".join(result.lines(blind_spots)), flush=True)


def run(args: argparse.Namespace) -> int:
    from memorydesk.lineage.memoryos import import_directory, load_zone

    load_zone(args.timezone)  # a missing or unknown zone is refused before anything is read
    if args.watch and args.dry_run:
        raise BadInput("--watch and --dry-run cannot be combined: a watch imports every change")
    out = _check_out(args.receipts_out, args)
    if args.watch:
        return _watch(args, out)
    result = import_directory(args.data_dir, args.workspace, args.timezone, dry_run=args.dry_run,
                              stm_capacity=args.stm_capacity)
    if out is not None:
        _write_receipts(out, result.receipts)
    _show(result, args.json)
    return result.exit_code


def _watch(args: argparse.Namespace, out: Path | None) -> int:
    from memorydesk.lineage.memoryos.watch import watch

    derived: dict[str, object] = {}
    last = None

    def on_pass(result) -> None:
        nonlocal last
        first, last = last is None, result
        if out is not None:
            for receipt in result.receipts:
                derived.setdefault(receipt.receipt_id, receipt)
            _write_receipts(out, list(derived.values()))
        if args.json:
            _show(result, True, one_line=True)
        elif first or not result.nothing_new:
            _show(result, False, blind_spots=first)
        else:
            print(result.outcome(), flush=True)

    def on_wait(message: str) -> None:
        print(f"memory-desk: {message}", file=sys.stderr, flush=True)

    if not args.json:
        print(f"watching {args.data_dir} (Ctrl-C ends)", file=sys.stderr, flush=True)
    try:
        watch(args.data_dir, args.workspace, args.timezone, on_pass=on_pass, on_wait=on_wait,
              stm_capacity=args.stm_capacity)
    except KeyboardInterrupt:
        pass
    return last.exit_code if last is not None else 0
