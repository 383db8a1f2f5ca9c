"""Query handling (pure): the words a query is matched by, and entity-name candidates.

Lexical matching uses OR semantics over the query's content words: an agent's task
descriptor ("when did Alice move to Berlin?") rarely shares every word with the memory
that answers it, and BM25's idf already weighs rare words above common ones. Function
words are dropped because in OR mode each one would still add a little score to every
record that happens to contain it."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

MAX_TERMS = 32
MIN_SCORED_TERMS = 2
MAX_NAME_WORDS = 4
MAX_NAME_TOKENS = 64  # a long task descriptor must not become thousands of look-ups
_OUTER_PUNCTUATION = "\"'`.,;:!?()[]{}<>"

_WORD = re.compile(r"\w+", re.UNICODE)

_STOPWORD_TEXT = """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not now of off on once only or
    other ought our ours ourselves out over own same shall she should so some such than that
    the their theirs them themselves then there these they this those through to too under
    until up very was we were what when where which while who whom why will with would you
    your yours yourself yourselves s t d ll m re ve don didn doesn isn aren wasn weren hasn
    haven hadn wouldn shouldn couldn mustn let
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _WORD.findall(folded)


def query_terms(text: str) -> list[str]:
    """Distinct content words in query order; all words when the query is only stopwords."""
    tokens = words(text)
    content = [t for t in tokens if t not in STOPWORDS]
    return list(dict.fromkeys(content or tokens))[:MAX_TERMS]


def unscored_names(terms: list[str], names: Iterable[str]) -> list[str]:
    """The query terms that are words of the entity names the query spells out, when at
    least MIN_SCORED_TERMS other terms remain (else none). They still choose the lexical
    candidates but add nothing to their scores: the entity links lift the records that
    mention the entity (an event's speaker, an entity it was captured with), and as a
    word a party's name is in most of its records (a transcript's speaker label), where
    BM25's length normalization ranks its shortest lines ('Alice: thanks!') above the
    ones that hold the question's other words."""
    named = {word for name in names for word in words(name)}
    silent = [t for t in terms if t in named]
    return silent if len(silent) <= most_unscored(terms) else []


def most_unscored(terms: list[str]) -> int:
    """How many of the `terms` may go unscored: all but MIN_SCORED_TERMS (the rule of
    `unscored_names`, which the statements that look the names up apply in SQL)."""
    return len(terms) - MIN_SCORED_TERMS


def name_words(terms: list[str], names: Iterable[str]) -> list[tuple[str, str]]:
    """(name, term) for each of the `terms` that is a word of one of the `names`: what a
    statement that looks the names up needs to apply `unscored_names` itself, to those
    it finds."""
    wanted = set(terms)
    return [(name, word) for name in names for word in dict.fromkeys(words(name)) if word in wanted]


def name_candidates(text: str) -> list[str]:
    """Every run of up to four consecutive words of the query's first MAX_NAME_TOKENS:
    entity names may span several words ('New York', 'Bank of America'), contain
    stopwords, or keep inner punctuation ("O'Brien", 'gpt-4o'), so both the bare words
    and the whitespace-separated tokens (outer punctuation stripped) are tried."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    spellings = (
        _WORD.findall(folded)[:MAX_NAME_TOKENS],
        [t.strip(_OUTER_PUNCTUATION) for t in folded.split()][:MAX_NAME_TOKENS],
    )
    out: list[str] = []
    for tokens in spellings:
        tokens = [t for t in tokens if t]
        for n in range(1, MAX_NAME_WORDS + 1):
            out += [" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
    return list(dict.fromkeys(out))


def coverage(terms: list[str], text: str) -> float:
    """Fraction of query terms present in `text` (with a light plural folding)."""
    if not terms:
        return 0.0
    have = {_fold(w) for w in words(text)}
    return sum(1 for t in terms if _fold(t) in have) / len(terms)


def _fold(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word
