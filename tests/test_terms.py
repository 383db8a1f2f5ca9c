"""Query terms (app/retrieve/terms.py, pure)."""

from __future__ import annotations

from app.retrieve.terms import name_candidates, query_terms, unscored_names


def test_query_terms_are_content_words_in_order() -> None:
    assert query_terms("What kind of art does Caroline make?") == [
        "kind",
        "art",
        "caroline",
        "make",
    ]
    assert query_terms("what is it") == ["what", "is", "it"]  # only stopwords: all kept


def test_name_candidates_are_word_runs_up_to_four_long() -> None:
    runs = name_candidates("met Grace Hopper today")
    assert {"grace hopper", "grace", "met grace hopper today"} <= set(runs)
    assert "met grace hopper today extra" not in runs
    assert "o'brien" in name_candidates("Did O'Brien call?")  # inner punctuation kept


def test_unscored_names_are_the_words_of_matched_names_when_two_others_remain() -> None:
    terms = query_terms("What kind of art does Caroline Smith make?")
    assert unscored_names(terms, ["caroline smith"]) == ["caroline", "smith"]
    assert unscored_names(terms, []) == []
    assert unscored_names(query_terms("Caroline Smith art"), ["caroline smith"]) == []
    assert unscored_names(query_terms("Caroline art work"), ["caroline"]) == ["caroline"]
