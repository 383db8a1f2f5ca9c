"""The int8-activation graph (app/embedding/onnx_int8.py): derived from the bundled model
once, cached where it can be, derived in memory where it cannot; and the cores an
embedding process may use (app/embedding/cores.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

from app.config import EmbeddingSettings
from app.embedding import cores, onnx_int8
from app.embedding.local_onnx import OnnxLoadError, OnnxMiniLM, _model_files
from app.embedding.providers import LocalEmbedder, build_embedder

TEXTS = ["a dog", "Caroline adopted a puppy from the shelter last weekend"]


@pytest.mark.embedder
def test_the_derived_graph_is_cached_and_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = OnnxMiniLM(1, int8_activations=True, cache_dir=tmp_path)
    vectors = first.embed(TEXTS)
    cached = list(tmp_path.iterdir())
    assert [p.name for p in cached] == [onnx_int8.cached_name(_model_files()[0])]
    assert cached[0].stat().st_size > 1_000_000

    def must_not_derive(source: Path, target: Path) -> None:
        raise AssertionError("derived again although the cache holds the graph")

    monkeypatch.setattr(onnx_int8, "derive", must_not_derive)
    second = OnnxMiniLM(1, int8_activations=True, cache_dir=tmp_path)
    assert np.array_equal(second.embed(TEXTS), vectors)


@pytest.mark.embedder
def test_an_unwritable_cache_derives_at_each_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A read-only filesystem (or a file where the folder should be) costs each start its
    derivation, never the embedder."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    with caplog.at_level("WARNING", logger="membrane.embedding"):
        model = onnx_int8.int8_model(_model_files()[0], blocker / "cache")
    assert isinstance(model, bytes) and len(model) > 1_000_000
    assert "cannot cache the int8 embedding model" in caplog.text
    embedder = OnnxMiniLM(1, int8_activations=True, cache_dir=blocker / "cache")
    unit = embedder.embed(TEXTS)
    assert np.allclose(np.linalg.norm(unit, axis=1), 1.0, atol=1e-5)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-a-folder"]  # nothing left


@pytest.mark.embedder
def test_a_cached_graph_that_does_not_load_is_derived_again(tmp_path: Path) -> None:
    """A cached file cut short (a copy interrupted, a full disk) is replaced, not trusted."""
    good = OnnxMiniLM(1, int8_activations=True, cache_dir=tmp_path).embed(TEXTS)
    cached = tmp_path / onnx_int8.cached_name(_model_files()[0])
    cached.write_bytes(cached.read_bytes()[:1000])
    again = OnnxMiniLM(1, int8_activations=True, cache_dir=tmp_path)
    assert np.array_equal(again.embed(TEXTS), good)
    assert cached.stat().st_size > 1_000_000
    assert [p.name for p in tmp_path.iterdir()] == [cached.name]  # no part file left


def test_without_the_onnx_package_the_error_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime.quantization", None)
    with pytest.raises(OnnxLoadError, match="INT8_ACTIVATIONS=false"):
        OnnxMiniLM(1, int8_activations=True, cache_dir=tmp_path).load()
    plain = OnnxMiniLM(1, int8_activations=False, cache_dir=tmp_path)
    plain.load()  # the bundled graph needs no derivation
    assert plain.dimension == 384 and not list(tmp_path.iterdir())


def test_the_cache_folder_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert onnx_int8.default_cache_dir() == tmp_path / "membrane"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert onnx_int8.default_cache_dir() == tmp_path / "home" / ".cache" / "membrane"


def test_settings_reach_the_embedder(tmp_path: Path) -> None:
    embedder = build_embedder(
        EmbeddingSettings(int8_activations=False, model_cache_dir=str(tmp_path), threads=3)
    )
    assert isinstance(embedder, LocalEmbedder) and embedder._onnx is not None
    assert not embedder._onnx.int8_activations and embedder._onnx.lanes == 3
    default = build_embedder(EmbeddingSettings(model_cache_dir=str(tmp_path)))
    assert isinstance(default, LocalEmbedder) and default._onnx is not None
    assert default._onnx.int8_activations and default._onnx.cache_dir == tmp_path
    queries = build_embedder(EmbeddingSettings(threads=8), queries_only=True)
    assert isinstance(queries, LocalEmbedder) and queries.threads == 1


@pytest.mark.parametrize(
    ("line", "cpus"),
    [
        ("max 100000", None),
        ("200000 100000", 2.0),
        ("150000 100000\n", 1.5),
        ("50000 100000", 0.5),
        ("", None),
        ("lots 100000", None),
        ("0 100000", None),
    ],
)
def test_a_containers_cpu_limit_is_read_from_cpu_max(line: str, cpus: float | None) -> None:
    assert cores.cpu_limit(line) == cpus


def test_available_cores_are_capped_by_the_container(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cpu_max = tmp_path / "cpu.max"
    monkeypatch.setattr(cores, "CGROUP_CPU_MAX", cpu_max)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    assert cores.available_cores() == 4  # no cgroup file: the affinity
    cpu_max.write_text("150000 100000\n")
    assert cores.available_cores() == 2  # 1.5 CPUs: two lanes, each busy part of the time
    cpu_max.write_text("50000 100000\n")
    assert cores.available_cores() == 1
    cpu_max.write_text("max 100000\n")
    assert cores.available_cores() == 4
