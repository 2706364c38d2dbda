"""The paper protocol's BM25 and history layout: as the reference's ``simulator.py`` and
``utils/utils.py`` have them.

**Ranking.** The reference ranks with ``rank_bm25``'s ``BM25Okapi`` (k1 1.5, b 0.75, a negative
idf raised to a quarter of the mean idf) over ``nltk.word_tokenize(text.lower())`` tokens, no
stop words, headers included; it takes the ``k`` best documents whatever their score (ties to
the earlier one) and shows them best first. incanon's own BM25 (``bm25.IncrementalBM25``: bm25s,
Lucene idf, English stop words, positive scores only, shown in story order) picks another
session on the same memory. ``OkapiMemory`` keeps the token lists and builds the ``BM25Okapi``
index when it is next queried (the reference rebuilds it after every saved utterance; the
scores are the same, as only the documents at query time count).

**History layout.** Every remembered text starts with the reference's header,
``[Date: <date>, Session #<n>]`` (``n`` counts the sessions of one date in a row, from 1), and is
laid out as the reference lays it out:

* a session: the header, a line break, then each utterance followed by a line break;
* an utterance: ``[Date: <date>, Session #<n>, Utterance #<i>] Speaker: text``;
* a summary: the header, a line break, the summary and a line break (while the session runs,
  the session so far in its place, as the reference keeps its raw text until the summary).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from incanon.bench.dialsim.dates import spoken


def okapi_tokens(text: str) -> list[str]:
    """The reference's tokens: ``nltk.word_tokenize(text.lower())``."""
    from incanon.bench.coser.nltk_words import word_tokenize

    return word_tokenize(text.lower())


class OkapiMemory:
    """``BM25Okapi`` over documents added one by one (same interface as ``IncrementalBM25``)."""

    def __init__(self) -> None:
        self.docs: list[list[str]] = []
        self._index = None
        self._changes = 0
        """Bumped by every add and cut: the index is rebuilt when it was built before one."""
        self._built = -1

    def __len__(self) -> int:
        return len(self.docs)

    def add(self, text: str) -> int:
        self.docs.append(okapi_tokens(text))
        self._changes += 1
        return len(self.docs) - 1

    def truncate(self, size: int) -> None:
        if size < len(self.docs):
            del self.docs[size:]
            self._changes += 1

    def scores(self, query: str) -> np.ndarray:
        """The ``BM25Okapi`` score of every document for ``query`` (empty for no documents)."""
        if not self.docs:
            return np.zeros(0)
        if self._built != self._changes:
            from rank_bm25 import BM25Okapi

            self._index = BM25Okapi(self.docs)
            self._built = self._changes
        return np.asarray(self._index.get_scores(okapi_tokens(query)), dtype=float)  # type: ignore[union-attr]

    def top_k(self, query: str, k: int, *, exclude_from: int | None = None) -> list[tuple[int, float]]:
        """The ``k`` best documents, best first, ties to the earlier (zero and negative scores
        included, as the reference's ``sorted(..., reverse=True)[:k]``)."""
        return ranked(self.scores(query), k, exclude_from=exclude_from)


def ranked(scores: np.ndarray, k: int, *, exclude_from: int | None = None) -> list[tuple[int, float]]:
    """Indices of the ``k`` highest scores, best first, ties to the lower index."""
    if exclude_from is not None:
        scores = scores[:exclude_from]
    order = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)[:max(k, 0)]
    return [(i, float(scores[i])) for i in order]


def header(date: str, number: int) -> str:
    """``[Date: September 22, 1994, Session #1]``."""
    return f"[Date: {spoken(date)}, Session #{number}]"


def session_text(date: str, number: int, lines: Sequence[str]) -> str:
    """A whole session (or the session so far) as the reference stores it."""
    return f"{header(date, number)}\n" + "".join(f"{line}\n" for line in lines)


def utterance_text(date: str, number: int, index: int, line: str) -> str:
    """One utterance as the reference stores it (``index`` from 1 within the session)."""
    return f"[Date: {spoken(date)}, Session #{number}, Utterance #{index}] {line}"


def summary_text(date: str, number: int, summary: str) -> str:
    """A session summary (or, before it is written, the session so far) as the reference stores it."""
    return f"{header(date, number)}\n{summary}\n"
