"""POST /v1/retrieve: a name the query uses for an entity chooses lexical candidates but
is scored through the entity links, not as a word (both stores, provider none)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.retrieve import pg_terms_repository
from app.retrieve import pg_text_repository as pg_text
from tests.conftest import make_settings
from tests.test_retrieve import capture, create, ids, retrieve


def by_id(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["record"]["id"]: item["components"] for item in result["items"]}


@pytest.mark.parametrize("scoped", [False, True], ids=["every-scope", "one-scope"])
def test_a_name_the_links_match_adds_nothing_to_the_word_scores(
    client: TestClient, scoped: bool
) -> None:
    # A party's name is in most of its lines: as a word, its shortest lines scored high.
    # (SQLite rescores the candidates by rowid within scopes, by id list across them.)
    where: dict[str, Any] = {"scope": "team"} if scoped else {}
    thanks = capture(client, "Alice: thanks, see you", content={"speaker": "Alice"}, **where)
    party = capture(client, "Bob: the garden party was lovely", content={"speaker": "Bob"}, **where)
    told = capture(client, "Bob: I told Alice", content={"speaker": "Bob"}, **where)  # no link
    query: dict[str, Any] = {"query": "Did Alice like the garden party?", "types": ["episodic"]}
    if scoped:
        query["scopes"] = ["team"]
    result = retrieve(client, **query, expand_context=False)
    components = by_id(result)
    assert components[party["id"]]["lexical"] == 1.0
    assert components[thanks["id"]]["lexical"] == 0.0  # only the name: found, not scored
    assert components[thanks["id"]]["entity"] == 0.3  # the link lifts it instead
    # Holding the name without a link to the entity, the word keeps its score.
    assert components[told["id"]]["lexical"] > 0.0
    assert components[told["id"]]["entity"] == 0.0
    assert ids(result) == [party["id"], told["id"], thanks["id"]]


def test_with_fewer_than_two_other_words_the_name_is_scored(client: TestClient) -> None:
    thanks = capture(client, "Alice: thanks, see you", content={"speaker": "Alice"})
    party = capture(client, "Bob: the garden party was lovely", content={"speaker": "Bob"})
    result = retrieve(client, query="Alice party", types=["episodic"], expand_context=False)
    components = by_id(result)
    assert components[thanks["id"]]["lexical"] > 0.0
    assert components[party["id"]]["lexical"] > 0.0


@pytest.mark.parametrize("scoped", [False, True], ids=["every-scope", "one-scope"])
def test_a_name_the_caller_may_not_read_is_scored_as_a_word(
    client: TestClient, scoped: bool
) -> None:
    # One scope: the name look-up runs inside the statement that reads the scope's
    # records (header_repository.every_admitted), under the caller's trust there too.
    where: dict[str, Any] = {"scope": "team"} if scoped else {}
    create(client, {"kind": "entity", "canonical_name": "Zed"}, sensitivity="high", **where)
    thanks = capture(client, "Zed: thanks, see you", content={"speaker": "Zed"}, **where)
    capture(client, "Bob: the garden party was lovely", content={"speaker": "Bob"}, **where)
    query: dict[str, Any] = {
        "query": "Did Zed like the garden party?",
        "types": ["episodic"],
        "expand_context": False,
        **({"scopes": ["team"]} if scoped else {}),
    }
    # The writer may read the entity: its name is matched through the link.
    seen = by_id(retrieve(client, "writer", **query))[thanks["id"]]
    assert seen["lexical"] == 0.0 and seen["entity"] == 0.3
    # The reader may not: nothing about the entity may change its ranking.
    unseen = by_id(retrieve(client, "reader", **query))[thanks["id"]]
    assert unseen["lexical"] > 0.0 and unseen["entity"] == 0.0


def test_the_name_still_chooses_the_candidates(
    db_url: str, make_client: Callable[[Settings], TestClient]
) -> None:
    """Many records tie on the question's other words; the candidate pool (10) holds
    only some of them. The named party's record is chosen for its name, then ranked
    first by its link."""
    client = make_client(make_settings(db_url, ranking={"candidate_pool": 10}))
    for n in (n for n in range(30) if n != 7):
        capture(client, f"Person{n}: works at Acme now", content={"speaker": f"Person{n}"})
    wanted = capture(client, "Person7: works at Acme now", content={"speaker": "Person7"})
    result = retrieve(client, query="Does Person7 work at Acme now?", types=["episodic"], limit=3)
    assert ids(result)[0] == wanted["id"]
    assert by_id(result)[wanted["id"]]["entity"] == 0.3


def test_names_are_only_silenced_in_the_scopes_that_hold_them(client: TestClient) -> None:
    capture(client, "Alice: thanks, see you", content={"speaker": "Alice"}, scope="team-a")
    other = capture(client, "Alice: thanks, see you later", scope="team-b")
    capture(client, "Bob: the garden party was lovely", scope="team-b")
    # team-b has no entity Alice (its record names no speaker): the word is scored.
    result = retrieve(
        client,
        query="Did Alice like the garden party?",
        scopes=["team-b"],
        types=["episodic"],
        expand_context=False,
    )
    assert by_id(result)[other["id"]]["lexical"] > 0.0


def test_across_every_scope_of_a_large_sqlite_store_names_are_scored_as_words(
    sqlite_template: Path,
    tmp_path: Path,
    make_client: Callable[[Settings], TestClient],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When the words match more than MAX_MATCHES records across every scope of a large
    SQLite store, the second full-text pass would be costly: the name keeps its score
    there (PostgreSQL computes both sums in one statement and has no such limit)."""
    shutil.copyfile(sqlite_template, tmp_path / "membrane.db")
    client = make_client(make_settings(f"sqlite:///{tmp_path / 'membrane.db'}"))
    monkeypatch.setattr(pg_terms_repository, "LARGE_STORE", 1)
    monkeypatch.setattr(pg_text, "MAX_MATCHES", 2)
    for n in range(3):
        capture(client, f"Bob: garden party {n}", content={"speaker": "Bob"}, scope="a")
    # The newest: the bounded pass ranks the newest MAX_MATCHES matches.
    thanks = capture(client, "Alice: thanks, see you", content={"speaker": "Alice"}, scope="a")
    query: dict[str, Any] = {"query": "Did Alice like the garden party?", "expand_context": False}
    across = retrieve(client, **query, types=["episodic"])
    assert by_id(across)[thanks["id"]]["lexical"] > 0.0
    within = retrieve(client, **query, types=["episodic"], scopes=["a"])
    assert by_id(within)[thanks["id"]]["lexical"] == 0.0
