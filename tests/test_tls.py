"""TLS served by `python -m app.serve` itself (MEMBRANE_TLS__CERT_FILE / __KEY_FILE), with a
certificate authority and a certificate this test makes (trustme); a half or unusable TLS
configuration stops start-up with one line."""

from __future__ import annotations

import ssl
from pathlib import Path

import httpx
import pytest
import trustme

from tests.conftest import auth
from tests.observability_support import run_serve, serve


@pytest.fixture
def sqlite_url(sqlite_template: Path, tmp_path: Path) -> str:
    db = tmp_path / "membrane.db"
    db.write_bytes(sqlite_template.read_bytes())
    return f"sqlite:///{db}"


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def tls_env(ca: trustme.CA, tmp_path: Path) -> dict[str, str]:
    cert = ca.issue_cert("127.0.0.1", "localhost")
    cert_file, key_file = tmp_path / "server.pem", tmp_path / "server.key"
    cert.private_key_pem.write_to_path(str(key_file))
    cert_file.write_bytes(b"".join(blob.bytes() for blob in cert.cert_chain_pems))
    return {"MEMBRANE_TLS__CERT_FILE": str(cert_file), "MEMBRANE_TLS__KEY_FILE": str(key_file)}


def test_serves_https_with_the_configured_certificate(
    sqlite_url: str, tls_env: dict[str, str], ca: trustme.CA, tmp_path: Path
) -> None:
    trusted = ssl.create_default_context()
    ca.configure_trust(trusted)
    with serve(sqlite_url, tls_env, tmp_path / "serve.log", verify=trusted) as served:
        assert served.url.startswith("https://")
        health = httpx.get(served.url + "/healthz", verify=trusted)
        assert health.status_code == 200 and health.json() == {"status": "ok"}
        assert health.http_version == "HTTP/1.1" and health.headers["x-request-id"]
        records = httpx.get(served.url + "/v1/records", verify=trusted, headers=auth("reader"))
        assert records.status_code == 200
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            httpx.get(served.url + "/healthz")  # the system's CAs do not know this one
        plain = served.url.replace("https://", "http://")
        with pytest.raises(httpx.TransportError):
            httpx.get(plain + "/healthz", timeout=5)  # plain HTTP on the TLS port fails


@pytest.mark.parametrize("missing", ["MEMBRANE_TLS__CERT_FILE", "MEMBRANE_TLS__KEY_FILE"])
def test_half_a_tls_configuration_stops_start_up(
    sqlite_url: str, tls_env: dict[str, str], missing: str
) -> None:
    status, stderr = run_serve(sqlite_url, {**tls_env, missing: ""})
    assert status != 0
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "MEMBRANE_TLS__CERT_FILE and MEMBRANE_TLS__KEY_FILE go together" in lines[0]


def test_an_unreadable_certificate_stops_start_up(
    sqlite_url: str, tls_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**tls_env, "MEMBRANE_TLS__KEY_FILE": str(tmp_path / "absent.key")}
    status, stderr = run_serve(sqlite_url, env)
    assert status != 0
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot be loaded" in lines[0], stderr
