"""What a record's vector is made of: its whole text and its passages (pure).

One vector of a text that holds several facts blurs them: a question about one sentence of
a long turn matches the turn's average. So a record's vector is the sum of two unit
vectors, scaled to length 1: its whole searchable text's, and the mean of its passages'
(its sentences, each embedded alone). It stays one vector per record (the stores, the
vector index and the search are unchanged) and leans toward each fact it holds. On the
LoCoMo development split, dense-only turn recall@10 went from 0.548 to 0.633 (DESIGN.md §8).

Passages come from the record's own words (`passage_text`), not from the searchable text,
whose date words would join the last sentence and blur it. A transcript line's speaker
label ("Caroline: …", "user: …") is carried onto every sentence of the line, so each
passage still says who said it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

MAX_PASSAGES = 16  # a long record's first sentences; bounds the worker's cost per record
MIN_WORDS = 2  # "Thanks!" or "Wow." says nothing to search by

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\s*\n\s*")  # a sentence's end, or a line break
# A speaker label: one to four words, then ": " (transcripts, chat logs).
_LABEL = re.compile(r"^([A-Za-z][\w.'-]*(?: [A-Za-z][\w.'-]*){0,3}): ")


def passages(text: str, limit: int = MAX_PASSAGES) -> list[str]:
    """The distinct sentences (or lines) of `text` worth embedding, each with the text's
    speaker label, at most `limit`. A text of one sentence has one passage."""
    match = _LABEL.match(text)
    label = match.group(0) if match else ""
    seen: set[str] = set()
    out: list[str] = []
    for sentence in _SENTENCE_END.split(text):
        sentence = sentence.strip()
        if len(sentence.split()) < MIN_WORDS or sentence in seen:
            continue
        seen.add(sentence)
        out.append(sentence if not label or _LABEL.match(sentence) else label + sentence)
        if len(out) >= limit:
            break
    return out


def pooled(
    whole: Sequence[float], passage_vectors: Sequence[Sequence[float]]
) -> npt.NDArray[np.float32]:
    """unit(unit(whole) + unit(mean of the unit passage vectors)); the whole text's unit
    vector when there are no passages."""
    out = _unit(np.asarray(whole, dtype=np.float32))
    if len(passage_vectors):
        rows = np.asarray(passage_vectors, dtype=np.float32)
        rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
        out = _unit(out + _unit(rows.mean(axis=0)))
    return out


def _unit(vec: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    norm = float(np.linalg.norm(vec))
    return vec / norm if norm > 0 else vec
