from fastapi.testclient import TestClient

from tests.conftest import auth


def test_capture_roundtrip(client: TestClient) -> None:
    r = client.post(
        "/v1/capture",
        json={"source": "a", "source_kind": "event", "content": {"text": "hi"}},
        headers=auth("writer"),
    )
    assert r.status_code == 201, r.text
    rid = r.json()["primary_record"]["id"]
    assert client.get(f"/v1/records/{rid}", headers=auth("reader")).status_code == 200
