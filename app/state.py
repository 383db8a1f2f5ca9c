"""What one running service holds: settings, the database, keys, policy, and the
background parts the lifespan starts (embedding runtime, job scheduler, LLM
interpretation worker)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from apscheduler.schedulers.background import BackgroundScheduler

from app.config import Settings
from app.db import Database
from app.embedding.providers import Embedder
from app.embedding.runtime import EmbeddingRuntime
from app.embedding.schemas import EmbeddingStatus
from app.interpret.worker import InterpretationWorker, enabled
from app.records.policy import PolicyEngine
from app.security import KeyStore


@dataclass
class AppState:
    settings: Settings
    db: Database
    keys: KeyStore
    policy: PolicyEngine
    embedding: EmbeddingRuntime | None = None  # set while the lifespan runs
    scheduler: BackgroundScheduler | None = None  # None when the scheduler is disabled
    interpretation: InterpretationWorker | None = None  # LLM interpretation at capture
    # A request's database work (app/request_work.py): a thread for every request
    # admitted (CapacityMiddleware), started as needed; they end with the state.
    request_threads: ThreadPoolExecutor = field(init=False)

    def __post_init__(self) -> None:
        threads = self.settings.capacity.max_in_flight + 16
        self.request_threads = ThreadPoolExecutor(threads, thread_name_prefix="membrane-request")

    @classmethod
    def build(cls, settings: Settings) -> AppState:
        return cls(
            settings=settings,
            db=Database(settings.database_url, settings.database),
            keys=KeyStore(settings),
            policy=PolicyEngine(settings),
        )

    @property
    def interprets_captures(self) -> bool:
        """Whether captures are queued for LLM interpretation (app/interpret)."""
        return enabled(self.settings.llm)

    def active_embedder(self) -> Embedder | None:
        return self.embedding.active_embedder if self.embedding is not None else None

    def embedding_status(self) -> EmbeddingStatus:
        if self.embedding is None:
            provider = self.settings.embedding.provider
            return EmbeddingStatus(provider=provider, model=None, pending=0)
        return self.embedding.status()
