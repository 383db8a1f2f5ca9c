"""One Settings object for the whole service (env prefix MEMBRANE_, nested with `__`)."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Annotated, Literal

from pydantic import BaseModel, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from app.config_http import CorsSettings, TlsSettings
from app.enums import MemoryType, Sensitivity

Weight = Annotated[float, Field(ge=0.0, le=1.0)]


def comma_separated(value: object) -> object:
    """A list setting as the environment gives it: a JSON list, or items separated by
    commas (blank items dropped); anything else as it is."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            return json.loads(text)
        return [part.strip() for part in text.split(",") if part.strip()]
    return value


class ApiPrincipal(BaseModel):
    """An API key entry: the key itself is never configured, only its SHA-256."""

    key_sha256: str = Field(pattern=r"^[0-9a-fA-F]{64}$")
    actor_id: str = Field(min_length=1, max_length=256)
    max_sensitivity: Sensitivity = Sensitivity.low
    scopes: list[str] = Field(default_factory=list)  # empty → every scope
    roles: list[Literal["read", "write", "admin"]] = Field(
        default_factory=lambda: ["read"]  # type: ignore[arg-type]
    )


class PolicySettings(BaseModel):
    default_sensitivity: Sensitivity = Sensitivity.low
    default_deletion_policy: Literal["auto_prune", "manual_only", "never"] = "auto_prune"
    initial_salience: float = Field(default=1.0, ge=0.0, le=1.0)
    reinforcement_gain: float = Field(default=0.1, ge=0.0, le=1.0)
    confidence_by_source: dict[str, float] = Field(
        default_factory=lambda: {
            "tool_output": 0.9,
            "event": 0.8,
            "outcome": 0.85,
            "observation": 0.7,
            "working_state": 1.0,
            "agent_turn": 0.8,
            "episode": 0.8,
        }
    )
    half_life_seconds: dict[MemoryType, float] = Field(
        default_factory=lambda: {
            MemoryType.episodic: 3600.0,
            MemoryType.working: 86400.0,
            MemoryType.entity: 30 * 86400.0,
            MemoryType.semantic: 30 * 86400.0,
            MemoryType.competence: 30 * 86400.0,
            MemoryType.plan_graph: 30 * 86400.0,
        }
    )
    # The original reinforces a record whenever it is accessed; here reads change nothing
    # unless this is on: then the records POST /v1/retrieve returns in full are reinforced
    # after the read (audit `reinforce`, actor `system:access`).
    reinforce_on_access: bool = False
    # Audit entries as the original names them (create / revise / fork / merge / delete /
    # reinforce / decay) in views; stored names (and exports) stay ours (docs/differences.md).
    seed_audit_action_names: bool = False
    # Contradictions (docs/memory-that-stays-true.md): a new fact of a single-valued
    # predicate overturns the active facts of its scope with the same subject and
    # predicate and another object: `supersede` (default) or `contest` them.
    contradiction_policy: Literal["supersede", "contest"] = "supersede"
    # Predicates that hold several objects at once (a JSON list, or comma-separated:
    # MEMBRANE_POLICY__MULTI_VALUED_PREDICATES=likes,uses); compared case-insensitively.
    multi_valued_predicates: Annotated[list[str], NoDecode] = Field(
        default_factory=list, max_length=10_000
    )

    @field_validator("multi_valued_predicates", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        return comma_separated(value)


class EmbeddingSettings(BaseModel):
    # Tier 1 is hybrid by default: the local MiniLM model ships with the `[local]` extra.
    provider: Literal["none", "local", "openai"] = "local"
    model: str = "all-MiniLM-L6-v2"
    # local provider: "onnx" runs the bundled MiniLM's int8 build on ONNX Runtime (about
    # twice as fast, no torch in a query-only process); "torch" runs sentence-transformers.
    # Their vectors agree to cosine ≥ 0.995 (≥ 0.97 with int8 activations, below), so
    # switching needs no re-embedding.
    runtime: Literal["onnx", "torch"] = "onnx"
    # The ONNX runtime computes in int8 too, with a graph derived from the bundled one
    # (app/embedding/onnx_int8.py): 2.3x faster, vectors at cosine >= 0.97 of the float
    # graph's, LoCoMo recall unchanged. false runs the bundled float graph.
    int8_activations: bool = True
    # Where that derived graph is cached ("": $XDG_CACHE_HOME/membrane, else
    # ~/.cache/membrane); where it cannot be written, each start derives it (~3 s).
    model_cache_dir: str = ""
    # Cores the process that embeds records (the worker) runs the model on at once. 0:
    # every core it may use (its CPU affinity, capped by its container's CPU limit). A
    # process that only embeds queries (MEMBRANE_BACKGROUND=worker) always uses one.
    threads: int = Field(default=0, ge=0, le=256)
    dimension: int = Field(default=384, ge=1, le=16000)
    base_url: str = "https://api.openai.com/v1"
    api_key: str = ""
    timeout_s: float = Field(default=30.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=10)
    batch_size: int = Field(default=128, ge=1, le=2048)
    # A record's vector pools its whole text with up to this many of its sentences, each
    # embedded alone (app/embedding/passages.py); 0 embeds the whole text only (one input
    # per record, for a provider that bills per input or token).
    max_passages: int = Field(default=16, ge=0, le=64)
    worker_interval_s: float = Field(default=0.5, gt=0)
    worker_enabled: bool = True


class LLMSettings(BaseModel):
    """A chat model behind an OpenAI-compatible `{base_url}/chat/completions`, used by
    consolidation's triple extraction. An empty base_url disables it."""

    base_url: str = ""  # e.g. https://api.openai.com/v1 or http://localhost:11434/v1
    model: str = "gpt-4o-mini"
    api_key: str = ""
    timeout_s: float = Field(default=30.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=10)
    backoff_s: float = Field(default=0.5, ge=0)
    batch_size: int = Field(default=8, ge=1, le=100)  # episodes per call
    max_output_tokens: int = Field(default=4096, ge=16)  # `max_tokens` of one call
    # Per consolidation run; once spent, the remaining episodes wait for the next run.
    max_calls_per_run: int = Field(default=100, ge=1)
    max_tokens_per_run: int = Field(default=200_000, ge=1)
    max_answer_chars: int = Field(default=200_000, ge=1)  # longer answers are refused
    max_triples_per_episode: int = Field(default=50, ge=1, le=10_000)
    # An episode whose extraction failed in this many runs is skipped for good.
    max_attempts: int = Field(default=3, ge=1, le=100)
    # LLM interpretation of captured records, queued at capture and done by a background
    # worker (app/interpret); needs base_url too. Per call: capture_timeout_s (the capture
    # never waits for it, so it only bounds how long a worker waits on a slow model).
    capture_interpretation: bool = False
    capture_timeout_s: float = Field(default=30.0, gt=0)
    # As the original, capture interpretation may use its own endpoint and model; empty
    # means the same as consolidation's (base_url, model, api_key).
    capture_base_url: str = ""
    capture_model: str = ""
    capture_api_key: str = ""

    def for_capture(self) -> LLMSettings:
        """These settings with capture's own endpoint, model and key where set."""
        return self.model_copy(
            update={
                "base_url": self.capture_base_url or self.base_url,
                "model": self.capture_model or self.model,
                "api_key": self.capture_api_key or self.api_key,
            }
        )


class RankingSettings(BaseModel):
    relevance_weight: float = Field(default=0.7, ge=0.0, le=1.0)
    salience_weight: float = Field(default=0.3, ge=0.0, le=1.0)
    candidate_pool: int = Field(default=200, ge=10, le=5000)
    # PostgreSQL + pgvector (docs/settings.md): the HNSW walk's breadth (hnsw.ef_search,
    # at least the pool; DESIGN.md §9); vectors kept per process for small scopes
    # (retrieve/pg_vector_cache.py); the most records of a store whose vectors each
    # process keeps as one matrix (retrieve/pg_matrix_repository.py, ~77 MB at 50,000).
    ef_search: int = Field(default=1000, ge=10, le=1000)
    vector_cache_size: int = Field(default=20_000, ge=0, le=10_000_000)
    vector_matrix_size: int = Field(default=50_000, ge=0, le=10_000_000)
    selector_threshold: float = Field(default=0.7, ge=0.0, le=1.0)
    # The selector's weights of applicability, success rate and recency: the original's
    # three equal ones by default; [0.5, 0.3, 0.2] restores this service's earlier ones.
    selector_weights: tuple[Weight, Weight, Weight] = (1 / 3, 1 / 3, 1 / 3)


class SchedulerSettings(BaseModel):
    enabled: bool = True
    decay_interval_s: float = Field(default=3600.0, gt=0)
    consolidation_interval_s: float = Field(default=6 * 3600.0, gt=0)
    # Episodes each consolidation stage takes per run (the rest waits for the next run):
    # bounds one run's time and memory while clearing a backlog of this size at once.
    consolidation_max_episodes: int = Field(default=100_000, ge=100)
    sweep_batch_size: int = Field(default=20000, ge=100)
    # Episodic compression lowers its sources' salience by this factor (the original's
    # compression); 1.0 leaves them as they were (only the compressed record is written).
    compression_source_factor: float = Field(default=0.5, ge=0.0, le=1.0)


class LimitSettings(BaseModel):
    # Field limits (string length, tags, list sizes) are part of the API contract and live
    # in app/schema/common.py; only the body size is an operator's choice.
    max_body_bytes: int = Field(default=10 * 1024 * 1024, ge=1024)
    # POST /v1/import streams its body to a temporary file (never held in memory whole).
    max_import_bytes: int = Field(default=2 * 1024**3, ge=1024)


class RateLimitSettings(BaseModel):
    enabled: bool = True
    requests_per_second: float = Field(default=100.0, gt=0)
    burst: int = Field(default=200, ge=1)


class IdempotencySettings(BaseModel):
    # How long an Idempotency-Key's first answer is kept for retries (24 h).
    retention_s: float = Field(default=86400.0, gt=0)


class DatabaseSettings(BaseModel):
    """Connection pool and lock waits. A request holds one connection for its whole unit
    of work, so pool_size + max_overflow should cover capacity.max_in_flight per process."""

    pool_size: int = Field(default=24, ge=1, le=1000)
    max_overflow: int = Field(default=8, ge=0, le=1000)
    # Waiting longer for a connection than this answers 503 instead of stalling.
    pool_timeout_s: float = Field(default=3.0, gt=0)
    # PostgreSQL: give up opening a connection after this (an unreachable host answers 503
    # instead of holding the request); TCP keepalives notice a peer that vanished.
    pg_connect_timeout_s: int = Field(default=4, ge=1, le=300)
    # PostgreSQL: a pooled connection idle longer than this is pinged before use (pool_health)
    pg_ping_after_idle_s: float = Field(default=10.0, ge=0)
    # SQLite: how long a writer waits for another process's write lock (then 503).
    sqlite_busy_timeout_ms: int = Field(default=5000, ge=0)
    # SQLite: how much of the database file each connection reads through a memory map
    # (PRAGMA mmap_size; 0: none). Without it a page outside the connection's 2-MB page
    # cache is a read() and a copy: a 9-MB store of 2,000 records already overflows the
    # cache, and scanning its records took 1.4 ms instead of 0.8 (DESIGN.md §9). The map
    # shares the operating system's page cache, so it adds no memory per connection.
    # SQLCipher ignores it (pages are decrypted into the page cache).
    sqlite_mmap_mb: int = Field(default=1024, ge=0, le=2047)
    # SQLite: how long a writer waits for this process's write turn (then 503).
    sqlite_write_wait_s: float = Field(default=5.0, gt=0)
    # SQLite encrypted with SQLCipher (app/sqlcipher.py). Set it as MEMBRANE_ENCRYPTION_KEY;
    # Settings copies it here so that every engine made from these settings is keyed.
    encryption_key: SecretStr = SecretStr("")
    # PostgreSQL: the statements marked in the code (whose plan does not depend on their
    # values: app/db.py PREPARED) are prepared on their connection. Off for a PgBouncer in
    # transaction mode older than 1.21 or without max_prepared_statements.
    pg_prepared_statements: bool = True
    # Deadlines of a request's database work (app/deadline.py, docs/operations.md): on
    # PostgreSQL each statement stops after statement_timeout_ms and each lock wait after
    # lock_timeout_ms (server side); a call the database has not answered within
    # request_deadline_s is cancelled from this side (both stores). Then 503.
    statement_timeout_ms: int = Field(default=4000, ge=0, le=3_600_000)
    lock_timeout_ms: int = Field(default=2000, ge=0, le=3_600_000)
    request_deadline_s: float = Field(default=5.0, gt=0, le=3600)
    # Read replicas (PostgreSQL streaming standbys, docs/scaling.md): read-only requests go
    # to a healthy one whose replay lag is at most max_replica_lag_s, else to the primary.
    # A list: JSON, or URLs separated by commas.
    read_urls: Annotated[list[str], NoDecode] = Field(default_factory=list)
    max_replica_lag_s: float = Field(default=5.0, gt=0, le=3600)
    replica_check_interval_s: float = Field(default=1.0, gt=0, le=600)

    @field_validator("read_urls", mode="before")
    @classmethod
    def _url_list(cls, value: object) -> object:
        return comma_separated(value)

    @field_validator("read_urls")
    @classmethod
    def _postgres_only(cls, urls: list[str]) -> list[str]:
        if any(not url.startswith(("postgresql", "postgres:")) for url in urls):
            raise ValueError("read replicas are PostgreSQL URLs (postgresql://...)")
        return urls


class CapacitySettings(BaseModel):
    """Load shedding: at most max_in_flight /v1 requests run at once per process; up to
    max_queued more wait at most queue_timeout_s for a turn; the rest get 503 at once,
    with a Retry-After of the time the waiting requests take to drain, between
    retry_after_s and max_retry_after_s (app/backlog.py)."""

    max_in_flight: int = Field(default=4, ge=1, le=10_000)
    max_queued: int = Field(default=256, ge=0, le=100_000)
    queue_timeout_s: float = Field(default=1.0, gt=0)
    retry_after_s: int = Field(default=1, ge=1)
    max_retry_after_s: int = Field(default=10, ge=1, le=3600)
    # Close the keep-alive connection of a request that found this process saturated, so
    # that the client reconnects to a less busy process or pod (app/middleware.py).
    rebalance_connections: bool = True
    # /mcp requests in flight per process, in all and per principal; beyond them 503. The
    # REST call a tool makes is shed by the limits above, like any /v1 request.
    mcp_max_in_flight: int = Field(default=32, ge=1, le=10_000)
    mcp_max_per_principal: int = Field(default=8, ge=1, le=10_000)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="MEMBRANE_",
        env_nested_delimiter="__",
        env_file=".env",
        extra="ignore",
    )

    database_url: str = "sqlite:///./membrane.db"
    # SQLite only: encrypt the database file with SQLCipher under this passphrase (or
    # `raw:` + 64 hex digits). Empty: a plain file. Losing it loses the data.
    encryption_key: SecretStr = SecretStr("")
    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=1, le=65535)
    # uvicorn worker processes of `python -m app.serve` (SQLite: keep 1, one writer).
    workers: int = Field(default=1, ge=1, le=64)
    # in_process: the API process also embeds records and runs scheduled jobs (one
    # process, zero infrastructure). worker: they run in `python -m app.worker` instead.
    background: Literal["in_process", "worker"] = "in_process"
    # `python -m app.worker` lowers its CPU priority by this much, so that on a shared
    # machine embedding records never starves the requests (0 disables).
    worker_nice: int = Field(default=10, ge=0, le=19)
    api_keys: list[ApiPrincipal] = Field(default_factory=list)
    # json: one JSON object a line (what log collectors on Kubernetes expect); text: for a
    # terminal; auto: text when stderr is a terminal, else json. Level of the service's and
    # uvicorn's loggers (other libraries: warnings up).
    log_format: Literal["auto", "json", "text"] = "auto"
    log_level: Literal["critical", "error", "warning", "info", "debug"] = "info"
    # `python -m app.serve` migrates the database at start, under the migration lock
    # (app/migrate.py). false: it only checks that the schema is at head and refuses to
    # start otherwise; migrations then run as `python -m app.migrate` (a Kubernetes Job).
    migrate_on_start: bool = True
    # On SIGTERM the server stops accepting connections and gives the requests in flight
    # this long to finish before cancelling them; keep it below the orchestrator's grace
    # period (Kubernetes terminationGracePeriodSeconds, default 30).
    shutdown_grace_s: int = Field(default=20, ge=1, le=3600)
    # How long an idle keep-alive connection stays open. Longer than the idle timeout of
    # the gateways and load balancers in front (60 s is common): a server that closes
    # first races the gateway reusing the connection, which the client sees as a 502, and
    # a client told to retry after a few seconds (Retry-After) finds its connection gone.
    keep_alive_s: int = Field(default=75, ge=1, le=3600)
    # Addresses (or networks) of the proxies whose X-Forwarded-For / X-Forwarded-Proto this
    # server believes. Empty: none, so a client's address is the connection's and a client
    # cannot pick its own rate-limit bucket by sending the header.
    trusted_proxies: list[str] = Field(default_factory=list, max_length=100)
    # GET /metrics: with a token set, only `Authorization: Bearer <token>` may scrape it.
    metrics_token: SecretStr = SecretStr("")

    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    capacity: CapacitySettings = Field(default_factory=CapacitySettings)
    policy: PolicySettings = Field(default_factory=PolicySettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    ranking: RankingSettings = Field(default_factory=RankingSettings)
    scheduler: SchedulerSettings = Field(default_factory=SchedulerSettings)
    limits: LimitSettings = Field(default_factory=LimitSettings)
    rate_limit: RateLimitSettings = Field(default_factory=RateLimitSettings)
    idempotency: IdempotencySettings = Field(default_factory=IdempotencySettings)
    cors: CorsSettings = Field(default_factory=CorsSettings)
    tls: TlsSettings = Field(default_factory=TlsSettings)

    def listen_host(self) -> str:
        """The address `membrane serve` binds: open mode (no keys) keeps to the loopback
        whatever MEMBRANE_HOST says."""
        if self.open_mode and self.host not in ("127.0.0.1", "localhost", "::1"):
            return "127.0.0.1"
        return self.host

    def address(self) -> str:
        """Where a person on this machine reaches the server: scheme, host and port."""
        host = self.listen_host()
        host = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(host, host)
        host = f"[{host}]" if ":" in host and not host.startswith("[") else host
        scheme = "https" if self.tls.cert_file else "http"
        return f"{scheme}://{host}:{self.port}"

    @field_validator("log_level", "log_format", mode="before")
    @classmethod
    def _lowercase(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _key_the_database(self) -> Settings:
        if self.encryption_key.get_secret_value():
            if not self.database_url.startswith("sqlite"):
                raise ValueError(
                    "MEMBRANE_ENCRYPTION_KEY applies to SQLite only; encrypt PostgreSQL at "
                    "rest on the server or its volume"
                )
            self.database.encryption_key = self.encryption_key
        return self

    @model_validator(mode="after")
    def _replicas_of_postgres(self) -> Settings:
        if self.database.read_urls and self.database_url.startswith("sqlite"):
            raise ValueError(
                "MEMBRANE_DATABASE__READ_URLS are PostgreSQL standbys; the database is SQLite"
            )
        return self

    @property
    def open_mode(self) -> bool:
        return not self.api_keys


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
