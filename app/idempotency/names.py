"""The idempotency headers' names (app/request_headers.py documents the request's,
app/idempotency/http.py answers with the replay's)."""

IDEMPOTENCY_KEY_HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
