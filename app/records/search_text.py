"""The text a record is searched and embedded by, per type (pure).

`searchable_text` is what full-text search indexes and the embedder reads whole;
`passage_text` is the record's own words without the date words searchable_text adds,
which the embedder splits into passages (app/embedding/passages.py). `questions_asked`
are the questions of a record's own words, which capture adds to the search text of the
episode that answers them (app/capture/replies.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from app.records import payload_json as stored
from app.records.dates import dated_terms
from app.records.payload_json import StoredJson

MAX_SEARCH_CHARS = 100_000
MAX_QUESTION_CHARS = 500  # what one episode borrows from the question before it

_QUESTION_MARKS = "?\uff1f\u061f"  # ASCII, full-width, Arabic
# A sentence's end (its mark, maybe a closing quote or bracket, then space), or a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?\uff1f\u061f])\s+|(?<=[.!?\uff1f\u061f][\"')\]])\s+|\s*\n\s*")
# A speaker label ("Maria: ", "user: ", "Élodie: "): one to four words, then ": ".
_LABEL = re.compile(r"^\s*[^\W\d_][\w.'-]*(?: [^\W\d_][\w.'-]*){0,3}: ")


def _texts(parts: Sequence[object]) -> list[str]:
    return [str(p).strip() for p in parts if p not in (None, "", [], {})]


def _join(parts: Sequence[object]) -> str:
    """The parts' texts in order, each once: an event captured alone is its episode's
    summary and its timeline's one event, and the text twice cost the embedder twice the
    tokens (a third of its time per record) while telling the search nothing more."""
    return " ".join(dict.fromkeys(_texts(parts))).strip()


def _compact(value: object) -> str:
    if isinstance(value, str):
        return value
    if value in (None, {}, []):
        return ""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def searchable_text(record_type: str, payload: StoredJson) -> str:
    parts = _own_words(record_type, payload)
    if record_type == "episodic":
        # The events' dates, and the days their words name ("yesterday"), as words.
        timeline = stored.episodic(payload).get("timeline", [])
        parts.append(dated_terms([(e.get("summary") or "", e.get("t")) for e in timeline]))
    return _join(parts)[:MAX_SEARCH_CHARS]


def passage_text(record_type: str, payload: StoredJson) -> str:
    return _join(_own_words(record_type, payload))[:MAX_SEARCH_CHARS]


def _own_words(record_type: str, payload: StoredJson) -> list[object]:
    if record_type == "episodic":
        ep = stored.episodic(payload)
        parts: list[object] = [ep.get("summary")]
        parts += [e.get("summary") for e in ep.get("timeline", [])]
        parts += [c.get("tool") for c in ep.get("tool_graph", [])]
        parts.append(ep.get("outcome"))
    elif record_type == "working":
        wk = stored.working(payload)
        parts = [wk.get("context_summary"), _compact(wk.get("state"))]
        parts.append(_compact(wk.get("state_data")))
        parts += wk.get("next_actions", []) + wk.get("constraints", [])
        parts += wk.get("open_questions", [])
    elif record_type == "entity":
        en = stored.entity(payload)
        parts = [en.get("canonical_name"), *en.get("aliases", [])]
        parts += en.get("types", [])
        parts.append(en.get("summary"))
    elif record_type == "semantic":
        se = stored.semantic(payload)
        parts = [se.get("subject"), se.get("predicate"), _compact(se.get("object"))]
    elif record_type == "competence":
        co = stored.competence(payload)
        parts = [co.get("skill_name")]
        parts += [t.get("signal") for t in co.get("triggers", [])]
        parts += [s.get("action") for s in co.get("recipe", [])]
        parts += co.get("required_tools", [])
    else:  # plan_graph
        plan = stored.plan_graph(payload)
        parts = [plan.get("intent")]
        parts += [n.get("op") for n in plan.get("nodes", [])]
    return parts


def own_texts(record_type: str, payload: StoredJson) -> list[str]:
    """The record's own words field by field (what `passage_text` joins)."""
    return _texts(_own_words(record_type, payload))


def questions_asked(*texts: str) -> str:
    """The sentences of `texts` that end with a question mark, each once and without a
    speaker label, joined, at most MAX_QUESTION_CHARS (whole sentences); "" when they
    ask nothing. Each text is split on its own, so one field's last words never run
    into the next field's question."""
    out: list[str] = []
    size = 0
    for text in texts:
        if not any(mark in text for mark in _QUESTION_MARKS):
            continue  # most texts ask nothing: no sentence split (a capture's costliest regex)
        for piece in _SENTENCE_END.split(text):
            sentence = _LABEL.sub("", piece).strip()
            asks = sentence.rstrip("\"')]!")[-1:] in _QUESTION_MARKS
            if not asks or len(sentence) < 2 or sentence in out:
                continue
            if size + len(sentence) > MAX_QUESTION_CHARS:
                return " ".join(out)
            out.append(sentence)
            size += len(sentence) + 1
    return " ".join(out)
