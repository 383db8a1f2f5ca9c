"""Read replicas: PostgreSQL streaming standbys that serve read-only requests.

A read goes to a healthy replica whose replay lag is within `max_replica_lag_s`, taken in
turn; when none qualifies, or the one chosen cannot be reached, the primary serves it, so
a replica that stops costs no request an error. A read that carries a consistency token
(the primary's WAL position after a write, `Membrane-Consistency-Token`) is served by a
replica only once that replica has replayed past it: the replica's last known replay
position says so, or one statement on the replica confirms it; else by the primary. So
an agent that writes and then reads with its token never misses its own write.

A thread checks every replica each `replica_check_interval_s`: reachable, replay position,
lag. Lag is zero while the replica has replayed all it received (an idle primary sends
nothing, and the last replayed transaction's age would say nothing about staleness).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from app.config import DatabaseSettings

log = logging.getLogger("membrane.replicas")

TOKEN_HEADER = "Membrane-Consistency-Token"
TOKEN_PATTERN = r"^([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})$"
_LSN = re.compile(TOKEN_PATTERN)  # the header's declared pattern, its halves grouped

PROBE_SQL = text(
    "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text, "
    "CASE WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() "
    "THEN 0 ELSE EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()) END"
)
REPLAYED_SQL = text("SELECT pg_last_wal_replay_lsn()::text")
POSITION_SQL = "SELECT pg_current_wal_lsn()::text"


def parse_lsn(token: str) -> int:
    """A WAL position ('16/B374D848') as a number; ValueError when it is not one."""
    match = _LSN.fullmatch(token.strip())
    if match is None:
        raise ValueError(f"not a consistency token: {token[:40]!r}")
    return (int(match.group(1), 16) << 32) | int(match.group(2), 16)


def format_lsn(position: int) -> str:
    return f"{position >> 32:X}/{position & 0xFFFFFFFF:X}"


@dataclass
class Replica:
    name: str
    engine: Engine
    sessions: sessionmaker[Session]
    # A request's reads: outside a transaction block, as on the primary (Database)
    request_sessions: sessionmaker[Session]
    healthy: bool = False
    lag_s: float | None = None
    replayed: int = 0  # the replay position last seen; it only moves forward
    reads: int = 0
    error: str | None = None

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "healthy": self.healthy,
            "lag_s": None if self.lag_s is None else round(self.lag_s, 3),
            "replayed": format_lsn(self.replayed) if self.replayed else None,
            "reads": self.reads,
            "error": self.error,
        }


def replica_name(url: str, index: int) -> str:
    """host:port of a replica's URL (never its credentials), or its position."""
    parsed = make_url(url)
    if parsed.host:
        return f"{parsed.host}:{parsed.port or 5432}"
    return f"replica-{index}"


class ReadRouter:
    """Which replica serves the next read; their health, kept fresh by a thread."""

    def __init__(
        self, urls: list[str], cfg: DatabaseSettings, make_engine: Callable[..., Engine]
    ) -> None:
        self.cfg = cfg
        self.replicas: list[Replica] = []
        # A replica's connections are pinged at every checkout (app/pool_health.py): a
        # standby that froze or was cut off sends no FIN, and `open_session` must find it
        # dead there, within the ping's deadline, to serve the read from the primary.
        pinged = cfg.model_copy(update={"pg_ping_after_idle_s": 0.0})
        for index, url in enumerate(urls):
            engine = make_engine(url, pinged, application_name="membrane-replica-read")
            sessions = sessionmaker(engine, expire_on_commit=False, autoflush=False)
            autocommit = engine.execution_options(isolation_level="AUTOCOMMIT")
            request_sessions = sessionmaker(autocommit, expire_on_commit=False, autoflush=False)
            name = replica_name(url, index)
            self.replicas.append(Replica(name, engine, sessions, request_sessions))
        self.primary_reads = 0
        self._turn = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Check every replica once now, then every interval in a daemon thread."""
        self.check_all()
        self._thread = threading.Thread(target=self._watch, name="membrane-replicas", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(self.cfg.replica_check_interval_s):
            self.check_all()

    def check_all(self) -> None:
        for replica in self.replicas:
            self.check(replica)

    def check(self, replica: Replica) -> None:
        try:
            with replica.engine.connect() as conn:
                in_recovery, replayed, lag = conn.execute(PROBE_SQL).one()
        except Exception as exc:  # down, refusing, or frozen past the connect timeout
            self.mark_down(replica, exc)
            return
        if not in_recovery or replayed is None:
            replica.healthy, replica.error = False, "not a standby"
            return
        replica.replayed = max(replica.replayed, parse_lsn(replayed))
        replica.lag_s = float(lag or 0.0)
        replica.healthy, replica.error = True, None

    def mark_down(self, replica: Replica, exc: BaseException) -> None:
        if replica.healthy:
            log.warning("read replica %s is unavailable: %s", replica.name, exc)
        replica.healthy = False
        replica.error = type(exc).__name__

    def candidates(self) -> list[Replica]:
        """Healthy replicas within the lag bound, starting at the next in turn."""
        usable = [
            r
            for r in self.replicas
            if r.healthy and r.lag_s is not None and r.lag_s <= self.cfg.max_replica_lag_s
        ]
        if not usable:
            return []
        self._turn = (self._turn + 1) % len(usable)
        return usable[self._turn :] + usable[: self._turn]

    def open_session(
        self, replica: Replica, token: int | None, *, in_request: bool = False
    ) -> Session | None:
        """A read session on `replica` with its connection in hand, or None when the
        replica cannot be reached or has not replayed past `token`. `in_request`: the
        session reads outside a transaction block (each statement has its own snapshot at
        READ COMMITTED anyway; BEGIN and COMMIT would be two more round trips)."""
        session = (replica.request_sessions if in_request else replica.sessions)()
        try:
            session.connection()  # checkout (with its ping): a dead replica fails here
            if token is not None and replica.replayed < token:
                row = session.execute(REPLAYED_SQL).scalar()
                replica.replayed = max(replica.replayed, parse_lsn(row) if row else 0)
                if replica.replayed < token:
                    session.close()
                    return None
        except Exception as exc:
            session.close()
            self.mark_down(replica, exc)
            return None
        replica.reads += 1
        return session

    def describe(self) -> list[dict[str, Any]]:
        return [r.describe() for r in self.replicas]

    def dispose(self) -> None:
        self._stop.set()
        for replica in self.replicas:
            replica.engine.dispose()


class TokenKeeper:
    """Client side: the newest consistency token a client was answered with, sent on its
    later requests (httpx event hooks), so that its reads see its own writes."""

    def __init__(self) -> None:
        self.token: str | None = None

    def hooks(self) -> dict[str, list[Any]]:
        return {"request": [self.on_request], "response": [self.on_response]}

    async def on_request(self, request: Any) -> None:
        if self.token and TOKEN_HEADER not in request.headers:
            request.headers[TOKEN_HEADER] = self.token

    async def on_response(self, response: Any) -> None:
        self.keep(response.headers.get(TOKEN_HEADER))

    def keep(self, token: str | None) -> None:
        if not token or not _LSN.fullmatch(token):
            return
        if self.token is None or parse_lsn(token) > parse_lsn(self.token):
            self.token = token
