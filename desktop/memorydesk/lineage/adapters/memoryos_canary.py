"""The canary through a real MemoryOS, wrapped by the receipts adapter (part of ``memory-desk canary``).

Runs only where ``memoryos`` (with ``faiss`` and ``openai``, which it imports) is importable.
In a process of its own (``python -m memorydesk.lineage.adapters.memoryos_canary DIR``) it
makes a ``Memoryos`` for a canary user and assistant (random ids, no personal content) in a
temporary directory, with short-term capacity 2 so QAs migrate, wraps it with
:func:`~memorydesk.lineage.adapters.memoryos.with_receipts`, stores five canary QAs and asks
one question. MemoryOS's two outside needs are met on this machine, never by the network:

* its LLM is a canary LLM on 127.0.0.1 — a fixed-rule OpenAI-compatible endpoint that answers
  each MemoryOS prompt with a well-formed, content-free reply (a canary must not send
  anything to, or pay for, a real model);
* ``sentence_transformers`` is stood in for by the desk's own all-MiniLM-L6-v2 embedder (the
  model MemoryOS asks for), so nothing is downloaded.

The gate then classifies the receipts the adapter wrote: the check passes when there are
STM and MTM receipts and every run is healthy or waiting. The receipts and the directory
are removed afterwards; the workspace is not touched.
"""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import types
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CAPACITY = 2
QAS = 5


def unavailable() -> str | None:
    """Why the MemoryOS canary cannot run here, or None."""
    for module in ("memoryos", "faiss", "openai"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not importable"
    return None


def _reply(system: str) -> str:
    """The canary LLM's answer to one MemoryOS prompt (by the prompt's role line)."""
    if "continuity detector" in system:
        return "true"
    if "analyzing dialogue topics" in system:
        return json.dumps([{"theme": "canary", "keywords": ["canary", "probe"], "content": "Canary probe turns."}])
    if "knowledge extraction" in system:
        return "【User Private Data】\n- None\n【Assistant Knowledge】\n- None"
    if "user preference analysis" in system:
        return "None"
    return "Canary reply."


class _CanaryLLM(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        system = next((m.get("content", "") for m in body.get("messages", []) if m.get("role") == "system"), "")
        payload = json.dumps({"id": "canary", "object": "chat.completion", "created": 0, "model": "canary",
                              "choices": [{"index": 0, "finish_reason": "stop",
                                           "message": {"role": "assistant", "content": _reply(system)}}],
                              "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class _StandIn:
    """``sentence_transformers.SentenceTransformer`` for MemoryOS: the desk's own MiniLM embedder."""

    def __init__(self, name: str = "all-MiniLM-L6-v2", **_kwargs: Any) -> None:
        self.name = name

    def encode(self, sentences: Any, batch_size: int = 32, **_kwargs: Any) -> Any:
        from memorydesk.embedding.embedder import embed

        single = isinstance(sentences, str)
        vectors = embed([sentences] if single else list(sentences), batch_size=batch_size)
        return vectors[0] if single else vectors


def run_child(directory: Path) -> None:
    """Inside the child: the canary QAs through a wrapped MemoryOS; receipts to ``DIR/receipts.jsonl``."""
    module = types.ModuleType("sentence_transformers")
    module.SentenceTransformer = _StandIn  # type: ignore[attr-defined]
    sys.modules["sentence_transformers"] = module
    server = ThreadingHTTPServer(("127.0.0.1", 0), _CanaryLLM)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1"
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # MemoryOS prints a lot: keep it off the result line
    import hashlib

    import memoryos

    from memorydesk.lineage.adapters.memoryos import with_receipts

    canary = "canary-" + secrets.token_hex(6)
    mos = memoryos.Memoryos(user_id=f"{canary}-user", assistant_id=f"{canary}-assistant",
                            openai_api_key="canary", openai_base_url=f"http://127.0.0.1:{server.server_port}/v1",
                            data_storage_path=str(directory / "data"), short_term_capacity=CAPACITY)
    receipts = directory / "receipts.jsonl"
    with_receipts(mos, str(receipts),
                  outcome=lambda response: "sha256:" + hashlib.sha256(response.encode()).hexdigest()[:16])
    for n in range(QAS):
        mos.add_memory(f"canary probe {canary} {n}", f"canary answer {n}")
    mos.get_response(f"canary probe {canary} 0")
    server.shutdown()
    out.write(json.dumps({"canary": canary, "receipts": str(receipts),
                          "source": mos.receipts.source}) + "\n")
    out.flush()


def run_memoryos_canary() -> tuple[bool, str]:
    """(passed, detail) of the MemoryOS check; raises nothing for MemoryOS's own failures."""
    from memorydesk.core.health.scalar import classify
    from memorydesk.lineage.jsonl import read_jsonl

    with tempfile.TemporaryDirectory(prefix="memorydesk-memoryos-canary-") as folder:
        done = subprocess.run([sys.executable, "-m", "memorydesk.lineage.adapters.memoryos_canary", folder],
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            lines = done.stderr.strip().splitlines()
            return False, f"MemoryOS stopped: {lines[-1] if lines else 'exit ' + str(done.returncode)}"
        result = json.loads(done.stdout.strip().splitlines()[-1])
        receipts = read_jsonl(result["receipts"])
    verdicts = classify(receipts, now=datetime.now(UTC))
    tiers = {r.tier for r in receipts}
    bad = [v for v in verdicts if not v.ok]
    passed = {"stm", "mtm", "generation"} <= tiers and not bad and len(verdicts) == QAS + 1
    detail = (f"{len(receipts)} receipts from {result['source'].split(' ')[0]} {result['source'].split(' ')[1]} "
              f"(capacity {CAPACITY}): {len(verdicts)} runs" +
              (" healthy or waiting" if not bad else "; " + "; ".join(f"{v.run_id}: {v.state}" for v in bad[:3])))
    if not {"stm", "mtm", "generation"} <= tiers:
        detail += f"; tiers seen: {', '.join(sorted(tiers))}"
    return passed, detail


if __name__ == "__main__":
    run_child(Path(sys.argv[1]))
