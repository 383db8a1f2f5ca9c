"""A record's vector pools its whole text with its sentences (app/embedding/passages.py)."""

from __future__ import annotations

import numpy as np

from app.embedding.passages import passages, pooled
from app.records.search_text import passage_text, searchable_text


def test_sentences_become_passages_with_the_speaker_label() -> None:
    text = "Maria: Last year I took a solo trip. I took this pic in Spain! Wow."
    assert passages(text) == [
        "Maria: Last year I took a solo trip.",
        "Maria: I took this pic in Spain!",
    ]


def test_a_text_without_a_label_splits_plainly_and_repeats_once() -> None:
    text = "The deploy failed. Rolled back to v2. The deploy failed."
    assert passages(text) == ["The deploy failed.", "Rolled back to v2."]


def test_lines_are_passages_too() -> None:
    text = "deploy log\n  step 1 built the image\nstep 2 pushed it\n\n"
    assert passages(text) == ["deploy log", "step 1 built the image", "step 2 pushed it"]


def test_a_long_text_gives_at_most_the_limit() -> None:
    text = " ".join(f"Sentence number {i} here." for i in range(40))
    found = passages(text, limit=5)
    assert found == [f"Sentence number {i} here." for i in range(5)]


def test_a_line_that_names_another_speaker_keeps_its_own_label() -> None:
    text = "user: what is the plan? assistant: We ship on Friday."
    assert passages(text) == ["user: what is the plan?", "assistant: We ship on Friday."]


def test_pooled_is_the_unit_sum_of_the_whole_and_the_passage_mean() -> None:
    whole = [3.0, 0.0, 0.0]
    got = pooled(whole, [[0.0, 2.0, 0.0], [0.0, 0.0, 5.0]])
    mean = np.array([0.0, 0.5, 0.5]) / np.linalg.norm([0.0, 0.5, 0.5])
    want = np.array([1.0, 0.0, 0.0]) + mean
    assert np.allclose(got, want / np.linalg.norm(want))
    assert np.allclose(pooled(whole, []), [1.0, 0.0, 0.0])


def test_passage_text_is_the_episode_without_its_date_words() -> None:
    payload = {
        "summary": "Ana: I adopted a cat yesterday.",
        "timeline": [{"t": "2023-05-08T13:56:00Z", "summary": "Ana: I adopted a cat yesterday."}],
    }
    assert "may 2023" in searchable_text("episodic", payload)
    assert "2023" not in passage_text("episodic", payload)
    assert passages(passage_text("episodic", payload)) == ["Ana: I adopted a cat yesterday."]


def test_an_episodes_words_are_searched_and_embedded_once() -> None:
    """An event captured alone is its episode's summary and its one timeline event: the
    text holds those words once (the embedder read them twice, at twice the cost)."""
    said = "Ana: I adopted a cat yesterday."
    alone = {"summary": said, "timeline": [{"t": "2023-05-08T13:56:00Z", "summary": said}]}
    assert searchable_text("episodic", alone).count("adopted") == 1
    assert passage_text("episodic", alone) == said
    several = {
        "summary": "moved house",
        "timeline": [
            {"t": "2023-05-08T13:56:00Z", "summary": "packed the boxes"},
            {"t": "2023-05-09T09:00:00Z", "summary": "moved house"},
            {"t": "2023-05-09T18:00:00Z", "summary": "unpacked"},
        ],
    }
    assert passage_text("episodic", several) == "moved house packed the boxes unpacked"
