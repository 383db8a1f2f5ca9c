"""The query-vector cache: a query being embedded is embedded once, whoever asks for it
meanwhile (the retrieve router starts the embedding, the service collects it)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from app.embedding.query_cache import query_vector_soon


class SlowEmbedder:
    """Embeds only once `release` is set, counting the texts it was given."""

    provider = "test"
    dimension = 3

    def __init__(self, name: str) -> None:
        self.name = name
        self.release = threading.Event()
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.release.wait(10)
        self.texts += texts
        return [[1.0, float(len(t)), 0.0] for t in texts]


def test_a_query_in_flight_is_embedded_once_for_every_caller() -> None:
    embedder = SlowEmbedder("sharing-test-a")
    first = query_vector_soon(embedder, "what did the deploy break?")
    second = query_vector_soon(embedder, "what did the deploy break?")
    other = query_vector_soon(embedder, "who owns the pager?")
    assert second is first and other is not first
    embedder.release.set()
    assert list(first.result(10)) == list(second.result(10)) == [1.0, 26.0, 0.0]
    other.result(10)
    assert sorted(embedder.texts) == ["what did the deploy break?", "who owns the pager?"]
    # Done: later callers are answered from the cache, without embedding again.
    assert list(query_vector_soon(embedder, "who owns the pager?").result(10)) == [1.0, 19.0, 0.0]
    assert len(embedder.texts) == 2


def test_a_failed_embedding_is_tried_again_by_the_next_caller() -> None:
    class Failing(SlowEmbedder):
        def embed(self, texts: Sequence[str]) -> list[list[float]]:
            self.texts += texts
            if len(self.texts) == 1:
                raise RuntimeError("provider down")
            return [[0.0, 1.0, 0.0] for _ in texts]

    embedder = Failing("sharing-test-b")
    failed = query_vector_soon(embedder, "status of the release")
    assert isinstance(failed.exception(10), RuntimeError)
    retried = query_vector_soon(embedder, "status of the release")
    assert retried is not failed and list(retried.result(10)) == [0.0, 1.0, 0.0]
