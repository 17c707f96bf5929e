"""The slow tier's bad-input loop (issue 26): seeded, so the next regression is found by the suite.

Questions files for ``audit --queries`` and MemoryOS ``short_term.json`` files are built
from a valid one with tricky pieces spliced in (huge and out-of-range numbers, lone
surrogates, NaN, deep nesting, a byte-order mark, bytes that are not UTF-8, truncation).
Whatever comes out, the command answers with exit 0, 1 or 2 — never 70, never a traceback
— and a refusal is one line.
"""

from __future__ import annotations

import json
import shutil

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from fixtures.product_fixture import build
from helpers import SHARED_DATA
from memorydesk import cli

PIECES = [b"1" + b"0" * 5000, b"9223372036854775808", b"-9223372036854775809", b"1e308", b"1e999", b"NaN",
          b"Infinity", b'"\\ud800"', b'"\\udfff x"', b"[" * 3000, b"{" * 3000, b"\xef\xbb\xbf", b"\xff\xfe",
          b'"\\u0000"', b"null", b"true", b'"' + "ש".encode() * 50 + b'"', b",", b"]", b"}", b":", b'"query"',
          b"0.1" + b"1" * 500, b"-0", b"1" * 400]

settings.register_profile("bad-inputs", deadline=None, max_examples=40, derandomize=True,
                          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def spliced(base: bytes):
    return st.lists(st.tuples(st.integers(0, len(base)), st.sampled_from(PIECES)), min_size=1, max_size=4).map(
        lambda cuts: _splice(base, cuts)) | st.integers(0, len(base)).map(lambda n: base[:n])


def _splice(base: bytes, cuts: list[tuple[int, bytes]]) -> bytes:
    out = base
    for at, piece in sorted(cuts, reverse=True):
        out = out[:at] + piece + out[at:]
    return out


def assert_answered(code: int, err: str) -> None:
    assert code in (0, 1, 2) and "Traceback" not in err and "internal error" not in err, err
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("memory-desk: "), err


QUERIES = json.dumps([{"query": "pnpm turbo build", "expect": ["f-01"]},
                      {"query": "deploy window", "expect": ["f-03", "f-04"], "note": 12}]).encode()


@pytest.mark.slow
@seed(2026)
@settings(settings.get_profile("bad-inputs"))
@given(data=spliced(QUERIES))
def test_audit_questions_files(tmp_path_factory, capsys, data: bytes) -> None:
    folder = tmp_path_factory.mktemp("q")
    ws = folder / "ws.db"
    if not ws.exists():
        build(ws)
    path = folder / "q.json"
    path.write_bytes(data)
    code = cli.main(["audit", "recall", str(ws), "--queries", str(path)])
    _out, err = capsys.readouterr()
    assert_answered(code, err)


NORMAL = SHARED_DATA / "memoryos" / "normal" / "data"
SHORT = NORMAL / "users" / "lena_k" / "short_term.json"


@pytest.mark.slow
@seed(2026)
@settings(settings.get_profile("bad-inputs"), max_examples=25)
@given(data=spliced(SHORT.read_bytes()[:4000] if SHORT.exists() else b"[]"))
def test_memoryos_short_term_files(tmp_path_factory, capsys, data: bytes) -> None:
    if not NORMAL.is_dir():
        pytest.skip("../shared/data is not present in this checkout")
    folder = tmp_path_factory.mktemp("mo")
    shutil.copytree(NORMAL, folder / "data")
    (folder / "data" / "users" / "lena_k" / "short_term.json").write_bytes(data)
    code = cli.main(["import", "memoryos", str(folder / "data"), str(folder / "ws.db"), "--timezone",
                     "Europe/Berlin"])
    _out, err = capsys.readouterr()
    assert_answered(code, err)
