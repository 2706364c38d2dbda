"""BM25 memory that grows one document at a time, never rebuilt.

DialSim's reference code re-indexes its whole history after every utterance (quadratic over a
350k-token script). ``IncrementalBM25`` keeps bm25s's tokenizer and its Lucene BM25 formulas
but stores raw postings (document, term frequency) and document lengths instead of a
precomputed score matrix: adding a document appends to the postings of its own terms only, and
idf and the average length are applied at query time from the current counts. Scores equal
those of a bm25s index freshly built over the same documents (the tests check this).

``RebuildingBM25`` is the reference behaviour (a full bm25s index per added document), kept for
the benchmark that compares the two.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import bm25s
import numpy as np
from bm25s.scoring import _score_idf_lucene
from bm25s.tokenization import Tokenizer


class _Growing:
    """An append-only numpy array that doubles its capacity (amortized O(1) appends)."""

    def __init__(self, dtype: str, capacity: int = 8) -> None:
        self.data = np.empty(capacity, dtype=dtype)
        self.size = 0

    def append(self, value: float) -> None:
        if self.size == len(self.data):
            self.data = np.resize(self.data, 2 * len(self.data))
        self.data[self.size] = value
        self.size += 1

    def view(self) -> np.ndarray:
        return self.data[: self.size]

    def pop(self) -> float:
        self.size -= 1
        return self.data[self.size]


class IncrementalBM25:
    """Lucene-variant BM25 (bm25s's default) over documents added one by one."""

    def __init__(self, *, k1: float = 1.5, b: float = 0.75, stopwords: str | list[str] | None = "en") -> None:
        self.k1, self.b = k1, b
        self.tokenizer = Tokenizer(stopwords=stopwords)
        self._docs: dict[int, _Growing] = {}
        self._tfs: dict[int, _Growing] = {}
        self._lengths = _Growing("float32")
        self._terms: list[list[int]] = []
        """Each document's distinct terms (to take the newest documents out again)."""
        self._total = 0
        self.postings_written = 0
        """Postings appended so far: each ``add`` writes one per distinct term of its document
        (the work of an update is the document's, not the memory's)."""

    def __len__(self) -> int:
        return self._lengths.size

    def tokens(self, text: str, *, learn: bool) -> list[int]:
        return next(self.tokenizer.streaming_tokenize([text], update_vocab=learn, allow_empty=False))

    def add(self, text: str) -> int:
        """Index one document; returns its id (0, 1, 2, ...)."""
        doc = len(self)
        ids = self.tokens(text, learn=True)
        counts = Counter(ids)
        self._terms.append(list(counts))
        for term, tf in counts.items():
            if term not in self._docs:
                self._docs[term], self._tfs[term] = _Growing("int32"), _Growing("float32")
            self._docs[term].append(doc)
            self._tfs[term].append(tf)
            self.postings_written += 1
        self._lengths.append(len(ids))
        self._total += len(ids)
        return doc

    def truncate(self, size: int) -> None:
        """Keep the first ``size`` documents: the newest ones leave (their postings are the last
        of each term's list), as if they had never been added."""
        while len(self) > size:
            for term in self._terms.pop():
                self._docs[term].pop()
                self._tfs[term].pop()
            self._total -= int(self._lengths.pop())

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every document for ``query`` (zeros for an empty memory)."""
        n = len(self)
        out = np.zeros(n, dtype=np.float32)
        if n == 0:
            return out
        avg = self._total / n if self._total else 1.0
        lengths = self._lengths.view()
        for term in self.tokens(query, learn=False):
            if term not in self._docs:
                continue
            docs, tf = self._docs[term].view(), self._tfs[term].view()
            idf = _score_idf_lucene(len(docs), N=n)
            out[docs] += idf * tf / (self.k1 * (1 - self.b + self.b * lengths[docs] / avg) + tf)
        return out

    def top_k(self, query: str, k: int, *, exclude_from: int | None = None) -> list[tuple[int, float]]:
        """Best ``k`` documents with a positive score, best first (ties: older first); documents
        from ``exclude_from`` on are left out."""
        return top_k(self.scores(query), k, exclude_from=exclude_from, positive=True)


def top_k(scores: np.ndarray, k: int, *, exclude_from: int | None = None, positive: bool = False) -> list[tuple[int, float]]:
    """Indices of the ``k`` highest scores, best first, ties broken by lower index."""
    if exclude_from is not None:
        scores = scores[:exclude_from]
    if k <= 0 or len(scores) == 0:
        return []
    order = np.lexsort((np.arange(len(scores)), -scores))[:k]
    return [(int(i), float(scores[i])) for i in order if not positive or scores[i] > 0]


class RebuildingBM25:
    """The reference behaviour: every ``add`` re-indexes all documents with bm25s."""

    def __init__(self, *, k1: float = 1.5, b: float = 0.75, stopwords: str | list[str] | None = "en") -> None:
        self.k1, self.b = k1, b
        self.tokenizer = Tokenizer(stopwords=stopwords)
        self.corpus: list[list[str]] = []
        self.index: bm25s.BM25 | None = None
        self.builds = 0

    def __len__(self) -> int:
        return len(self.corpus)

    def add(self, text: str) -> int:
        ids = next(self.tokenizer.streaming_tokenize([text], update_vocab=True, allow_empty=False))
        self.corpus.append(self.tokenizer.decode([ids])[0] or [""])
        self.index = build_bm25s(self.corpus, k1=self.k1, b=self.b)
        self.builds += 1
        return len(self.corpus) - 1

    def scores(self, query: str) -> np.ndarray:
        if self.index is None:
            return np.zeros(0, dtype=np.float32)
        ids = next(self.tokenizer.streaming_tokenize([query], update_vocab=False, allow_empty=False))
        words = [w for w in self.tokenizer.decode([ids])[0] if w in self.index.vocab_dict]
        if not words:
            return np.zeros(len(self.corpus), dtype=np.float32)
        return self.index.get_scores(words)


def build_bm25s(corpus: Sequence[list[str]], *, k1: float = 1.5, b: float = 0.75) -> bm25s.BM25:
    """A bm25s index over already tokenized documents (no progress bars)."""
    index = bm25s.BM25(k1=k1, b=b, method="lucene")
    index.index(list(corpus), show_progress=False)
    return index
