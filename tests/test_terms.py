"""Query terms (app/retrieve/terms.py, pure)."""

from __future__ import annotations

from app.retrieve.terms import name_candidates, query_terms, without_names


def test_query_terms_are_content_words_in_order() -> None:
    assert query_terms("What kind of art does Caroline make?") == [
        "kind",
        "art",
        "caroline",
        "make",
    ]
    assert query_terms("what is it") == ["what", "is", "it"]  # only stopwords: all kept


def test_names_the_query_spells_out_leave_the_lexical_terms() -> None:
    terms = query_terms("What kind of art does Caroline Smith make?")
    assert without_names(terms, ["caroline smith"]) == ["kind", "art", "make"]
    # a name's words go, whichever run of the query named the entity
    terms = query_terms("Did O'Brien paint the fence?")
    assert without_names(terms, ["o'brien"]) == ["paint", "fence"]


def test_a_query_left_with_fewer_than_two_words_keeps_its_names() -> None:
    # "Tell me about Alice": "tell" alone would rank by a word that says nothing
    assert without_names(query_terms("Tell me about Alice"), ["alice"]) == ["tell", "alice"]
    assert without_names(["alice"], ["alice"]) == ["alice"]
    assert without_names(["budget", "alice"], []) == ["budget", "alice"]


def test_name_candidates_are_word_runs_up_to_four_long() -> None:
    runs = name_candidates("met Grace Hopper today")
    assert {"grace hopper", "grace", "met grace hopper today"} <= set(runs)
    assert "met grace hopper today extra" not in runs
