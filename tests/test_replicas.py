"""Read replicas (app/replicas.py): reads served by a streaming standby, writes by the
primary; a read with the write's consistency token sees the write even while the standby
stops replaying; a stopped standby leaves every read answered; lag in /metrics. A real
primary and standby (tests/replica_support.py)."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from psycopg.pq import TransactionStatus
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from app import deadline
from app.db import Database
from app.main import create_app
from app.migrate import upgrade
from app.retrieve import pg_matrix_repository as pg_matrix
from tests.conftest import auth, fresh_pg_database, make_settings, transaction_status
from tests.replica_support import Standby, primary_with_standby

pytestmark = pytest.mark.postgres

W = auth("writer")
TOKEN = "Membrane-Consistency-Token"


class Cluster:
    def __init__(self, primary: Any, standby: Standby) -> None:
        self.primary, self.standby = primary, standby
        self.url = fresh_pg_database(str(primary.get_uri()), None)
        upgrade(self.url)
        self.database = str(make_url(self.url).database)
        self.standby_url = standby.uri(self.database)

    def client(self, **database: Any) -> TestClient:
        settings = make_settings(
            self.url,
            database={
                "read_urls": [self.standby_url],
                "replica_check_interval_s": 0.1,
                **database,
            },
        )
        return TestClient(create_app(settings))

    def replicated(self) -> None:
        self.standby.wait_until_replayed(str(self.primary.get_uri()))


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with primary_with_standby() as (primary, standby):
        yield Cluster(primary, standby)


@pytest.fixture
def resumed(cluster: Cluster) -> Iterator[Cluster]:
    """The cluster, replaying and running again after the test whatever it did."""
    yield cluster
    if not cluster.standby.running():
        cluster.standby.start()
    cluster.standby.resume_replay()


def capture(client: TestClient, summary: str) -> tuple[str, str]:
    body = {"source": "t", "source_kind": "event", "summary": summary, "scope": "replicas"}
    response = client.post("/v1/capture", json=body, headers=W)
    assert response.status_code == 201, response.text
    return response.json()["primary_record"]["id"], response.headers[TOKEN]


def reads_by_target(client: TestClient) -> dict[str, int]:
    """The reads each target served, as this app's router counts them."""
    router = client.app.state.membrane.db.router  # type: ignore[attr-defined]
    return {"primary": router.primary_reads, "replica-0": router.replicas[0].reads}


def scraped_reads(client: TestClient) -> dict[str, float]:
    """membrane_reads_total by target, as /metrics reports it."""
    text = client.get("/metrics").text
    pattern = r'membrane_reads_total\{target="([^"]+)"\} (\S+)'
    return {target: float(value) for target, value in re.findall(pattern, text)}


def replica_sessions(standby: Standby, database: str) -> int:
    count: int = standby.sql(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = "
        f"'membrane-replica-read' AND datname = '{database}'"
    )
    return count


def test_reads_are_served_by_the_standby_and_writes_by_the_primary(resumed: Cluster) -> None:
    with resumed.client() as client:
        rid, token = capture(client, "the standby serves this read")
        assert re.fullmatch(r"[0-9A-F]+/[0-9A-F]+", token)
        resumed.replicated()
        before = reads_by_target(client)
        for _ in range(5):
            got = client.get(f"/v1/records/{rid}", headers=W)
            assert got.status_code == 200 and got.json()["id"] == rid
        after = reads_by_target(client)
        assert after["replica-0"] - before["replica-0"] == 5
        assert after["primary"] == before["primary"]
        scraped = scraped_reads(client)  # the scrape's own read is on the replica too
        assert scraped == {"primary": after["primary"], "replica-0": after["replica-0"] + 1}
        assert replica_sessions(resumed.standby, resumed.database) >= 1
        ready = client.get("/readyz").json()
        assert ready["replicas"][0]["healthy"] is True and ready["replicas"][0]["lag_s"] == 0


def test_a_standby_keeps_no_vector_matrix(resumed: Cluster) -> None:
    """A hot standby's snapshots do not list the primary's running transactions, so the
    process keeps no vector matrix of it (app/retrieve/pg_matrix_repository.py): a
    vector committed late could be missed. The primary's is kept."""
    resumed.replicated()
    for url, kept in ((resumed.standby_url, False), (resumed.url, True)):
        db = Database(url)
        try:
            with deadline.serving_request(), db.read_transaction() as session:
                assert pg_matrix.usable(session)
                assert (pg_matrix.view(session) is not None) is kept
                assert pg_matrix.usable(session) is kept
        finally:
            db.dispose()


def test_a_read_with_the_token_sees_the_write_while_replay_is_paused(resumed: Cluster) -> None:
    with resumed.client(max_replica_lag_s=3600) as client:  # the stale standby stays in use
        resumed.standby.pause_replay()
        rid, token = capture(client, "written while the standby stands still")
        stale = client.get(f"/v1/records/{rid}", headers=W)
        assert stale.status_code == 404  # the standby has not replayed it: no token, stale
        fresh = client.get(f"/v1/records/{rid}", headers={**W, TOKEN: token})
        assert fresh.status_code == 200 and fresh.json()["id"] == rid
        resumed.standby.resume_replay()
        resumed.replicated()
        before = reads_by_target(client)
        again = client.get(f"/v1/records/{rid}", headers={**W, TOKEN: token})
        assert again.status_code == 200
        assert reads_by_target(client)["replica-0"] == before["replica-0"] + 1


def test_a_requests_read_on_the_standby_runs_outside_a_transaction_block(
    resumed: Cluster,
) -> None:
    """As on the primary: inside a request a read on the standby is not wrapped in BEGIN /
    COMMIT (each statement has its own snapshot at READ COMMITTED); outside one (jobs)
    it is a transaction, where SET LOCAL lifts the request timeouts."""
    with resumed.client() as client:
        db = client.app.state.membrane.db  # type: ignore[attr-defined]
        with deadline.serving_request(), db.read_transaction() as session:
            in_request = _status_and_server(session)
        with db.read_transaction() as session:
            outside = _status_and_server(session)
    assert in_request == (TransactionStatus.IDLE, "membrane-replica-read")
    assert outside == (TransactionStatus.INTRANS, "membrane-replica-read")


def _status_and_server(session: Session) -> tuple[TransactionStatus, str]:
    """After one read: the connection's transaction status and who served it."""
    served_by = str(session.scalar(text("SELECT current_setting('application_name')")))
    return transaction_status(session), served_by


def test_a_stopped_standby_leaves_every_read_answered(resumed: Cluster) -> None:
    with resumed.client() as client:
        rid, _ = capture(client, "read while the standby is down")
        resumed.replicated()
        resumed.standby.stop()
        for _ in range(20):
            assert client.get(f"/v1/records/{rid}", headers=W).status_code == 200
            query = {"query": "standby down", "scopes": ["replicas"], "limit": 5}
            assert client.post("/v1/retrieve", json=query, headers=W).status_code == 200
        ready = client.get("/readyz")
        assert ready.status_code == 200 and ready.json()["replicas"][0]["healthy"] is False
        assert 'membrane_replica_healthy{replica="replica-0"} 0' in client.get("/metrics").text
        resumed.standby.start()
        _wait(lambda: client.get("/readyz").json()["replicas"][0]["healthy"])
        before = reads_by_target(client)["replica-0"]
        assert client.get(f"/v1/records/{rid}", headers=W).status_code == 200
        assert reads_by_target(client)["replica-0"] == before + 1


def test_lag_is_reported_and_a_lagging_standby_is_skipped(resumed: Cluster) -> None:
    with resumed.client(max_replica_lag_s=0.5) as client:
        resumed.standby.pause_replay()
        rid, _ = capture(client, "lag grows while replay is paused")
        _wait(lambda: _lag(client) > 0.5)
        before = reads_by_target(client)
        assert client.get(f"/v1/records/{rid}", headers=W).status_code == 200  # the primary
        after = reads_by_target(client)
        assert after["primary"] == before["primary"] + 1
        assert after["replica-0"] == before["replica-0"]


def test_a_malformed_token_is_a_422_problem(resumed: Cluster) -> None:
    with resumed.client() as client:
        rid, _ = capture(client, "token checked")
        bad = client.get(f"/v1/records/{rid}", headers={**W, TOKEN: "yesterday"})
        assert bad.status_code == 422  # the header's pattern is in the OpenAPI document
        assert bad.headers["content-type"] == "application/problem+json"
        assert TOKEN.lower() in str(bad.json()).lower()


def test_reads_with_tokens_are_never_stale_while_replay_pauses_at_random(
    resumed: Cluster,
) -> None:
    """10,000 operations: captures, reads of a record by its write's token (and of an
    earlier one by the newest token), replay paused and resumed at random."""
    rng = random.Random(20261126)
    written: list[tuple[str, str]] = []
    paused = False
    with resumed.client() as client:
        for step in range(10_000):
            roll = rng.random()
            if roll < 0.02:
                paused = not paused
                resumed.standby.sql(
                    "SELECT pg_wal_replay_pause()" if paused else "SELECT pg_wal_replay_resume()"
                )
            elif roll < 0.30 or not written:
                written.append(capture(client, f"operation {step}"))
            else:
                rid, token = rng.choice(written[-20:])
                newest = written[-1][1]
                got = client.get(
                    f"/v1/records/{rid}", headers={**W, TOKEN: rng.choice([token, newest])}
                )
                assert got.status_code == 200, (step, rid, got.text)
        reads = reads_by_target(client)
    assert reads["replica-0"] > 0 and reads["primary"] > 0  # both served some


def _lag(client: TestClient) -> float:
    match = re.search(
        r'membrane_replica_lag_seconds\{replica="replica-0"\} (\S+)', client.get("/metrics").text
    )
    return float(match.group(1)) if match else -1.0


def _wait(condition: Any, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "condition never held"
        time.sleep(0.05)


def test_sqlite_refuses_read_replicas() -> None:
    with pytest.raises(ValueError, match="READ_URLS"):
        make_settings("sqlite:///x.db", database={"read_urls": ["postgresql://h/db"]})


def test_read_urls_take_a_comma_separated_list() -> None:
    from app.config import DatabaseSettings

    listed: Any = "postgresql://a/db, postgresql://b:5433/db"  # as the environment gives it
    cfg = DatabaseSettings(read_urls=listed)
    assert cfg.read_urls == ["postgresql://a/db", "postgresql://b:5433/db"]
    with pytest.raises(ValueError):
        DatabaseSettings(read_urls=["mysql://a/db"])


def test_a_client_keeps_the_newest_token_and_sends_it() -> None:
    """The MCP stdio server's client (app/mcp/stdio.py) keeps the newest token it was
    answered with, ignores older or malformed ones, and sends it on later requests."""
    import asyncio

    import httpx

    from app.replicas import TokenKeeper

    keeper = TokenKeeper()
    for token in ("0/5000", "1/10", "0/FFFFFFFF", "junk", None):
        keeper.keep(token)
    assert keeper.token == "1/10"

    async def sent() -> str | None:
        request = httpx.Request("GET", "http://t/v1/records/x")
        await keeper.on_request(request)
        value: str | None = request.headers.get(TOKEN)
        return value

    assert asyncio.run(sent()) == "1/10"
