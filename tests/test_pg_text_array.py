"""PostgreSQL: lists of strings bound as one array literal written by the service
(app/models/clauses.py `TextArray`), not by psycopg's list dumper: every value reaches
the server as it was, whatever characters it holds, and `among` finds exactly the rows
it names."""

from __future__ import annotations

import pytest
from sqlalchemy import bindparam, create_engine, text

from app.models.clauses import TextArray, array_literal

pytestmark = pytest.mark.postgres

AWKWARD = ["a", "b,c", 'd"e', "f\\g", "NULL", "null", "", " sp ", "{x}", "é ü", "it's", '\\"']


@pytest.mark.parametrize(
    "values",
    [[], ["01a2280d-8b61-716c-9c0c-4bd004835412", "conv-1"], AWKWARD, [*AWKWARD, None], [None]],
)
def test_values_reach_the_server_unchanged(pg_url: str, values: list[str | None]) -> None:
    engine = create_engine(pg_url)
    stmt = text("SELECT CAST(:v AS VARCHAR[]), cardinality(CAST(:v AS VARCHAR[]))")
    stmt = stmt.bindparams(bindparam("v", type_=TextArray()))
    try:
        with engine.connect() as conn:
            got, count = conn.execute(stmt, {"v": values}).one()
    finally:
        engine.dispose()
    assert got == values and count == len(values)


def test_the_literal_quotes_only_when_it_must() -> None:
    assert array_literal(["a", "b"]) == '{"a","b"}'
    assert array_literal([]) == "{}"
    assert array_literal(None) is None
    assert array_literal(['x"y', None]) == '{"x\\"y",NULL}'
