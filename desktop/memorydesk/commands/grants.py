"""``memory-desk grants WORKSPACE [--json]``: the effective grant matrix (read-only).

Every domain × the nine roles, resolved as the product resolves them (``browse.grants``),
each cell with its source: ``exact`` (a row of the domain), ``bare_name`` (the row of
a repo-scoped domain's bare name), ``fail_open`` (no row: read), ``unknown_value``
(the deciding row's role or permission string is unknown to the product) or
``ambiguous`` (several rows match; the first the product reads decides).

``--json`` prints ``{"roles": [...], "domains": [{"domain", "cells": {role:
{"permission", "source"}}}]}``; the text form is one line per domain.
"""

from __future__ import annotations

import json
import sys

from memorydesk.browse.grants import matrix_json, read_matrix
from memorydesk.commands.args import workspace_command
from memorydesk.store import open_workspace

MARKS = {"exact": "", "bare_name": "^", "fail_open": "*", "unknown_value": "!", "ambiguous": "?"}
LEGEND = ("^ from the bare name's row · * fail-open: no row, reads as read · ! unknown role or permission "
          "string in the deciding row · ? several rows match, the first read decides · "
          "(no domain row): named by memory only")


def register(sub) -> None:
    workspace_command(sub, "grants", help="the effective role × domain grant matrix with each cell's source "
                                          "(read-only)", json_help="print the matrix as JSON", func=run)


def run(args) -> int:
    with open_workspace(args.workspace, read_only=True) as ws:
        matrix = read_matrix(ws)
    payload = matrix_json(matrix)
    if args.json:
        json.dump(payload, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    roles = payload["roles"]
    width = max([len("domain"), *(len(d["domain"]) for d in payload["domains"])])
    lines = ["  ".join([f"{'domain':<{width}}", *(f"{r:<8}" for r in roles)]).rstrip()]
    for entry, row in zip(payload["domains"], matrix.domains):
        cells = [f"{c['permission'] + MARKS[c['source']]:<8}" for c in entry["cells"].values()]
        tail = "" if row.has_row else "  (no domain row)"
        lines.append(("  ".join([f"{entry['domain']:<{width}}", *cells])).rstrip() + tail)
    lines.append(LEGEND)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
