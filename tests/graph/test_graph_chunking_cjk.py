"""Token windows of CJK text: cut by the tokens each character holds, tokenized once, covering
the whole text; and spaced text cut exactly as the span-by-span chunker did."""

from __future__ import annotations

import pytest

import incanon.graph.chunking as chunking
from incanon.graph import count_tokens, windows
from incanon.tokens import EstimateTokenizer, default_tokenizer, token_spans

ZH = "".join(f"第{n}段。却说宝玉听了，忙问：「姐姐往哪里去？」黛玉笑道：“我自回家去，你也早些歇着罢。”" for n in range(400))
EN = " ".join(f"The keeper of lamp {n} wrote every ship's name down, and Mara read them aloud." for n in range(300))


def _reference(text: str, size: int, overlap: int) -> list[str]:
    """The chunker before issue 50: windows of ``size`` spans, shrunk one span per re-count."""
    spans = token_spans(text)
    if not spans or not text.strip():
        return []
    if len(spans) <= size:
        return [text.strip()]
    n = len(spans)

    def word_start(i: int) -> bool:
        return i <= 0 or i >= n or text[spans[i][0]].isspace() or text[spans[i][0] - 1].isspace()

    out = []
    for start in range(0, n, size - overlap):
        end = min(start + size, n)
        a = next((i for i in range(start, min(start + 8, end)) if word_start(i)), start)
        b = next((i for i in range(end, max(end - 8, a + 1), -1) if word_start(i)), end)
        piece = text[spans[a][0]:spans[b - 1][1]].strip()
        while b - 1 > a and count_tokens(piece) > size:
            b -= 1
            piece = text[spans[a][0]:spans[b - 1][1]].strip()
        if piece:
            out.append(piece)
        if end == n:
            break
    return out


@pytest.mark.parametrize("size,overlap", [(600, 100), (120, 30), (50, 10)])
def test_spaced_text_is_cut_exactly_as_before(size: int, overlap: int) -> None:
    assert windows(EN, size, overlap) == _reference(EN, size, overlap)


def _coverage(text: str, parts: list[str]) -> float:
    covered, pos = 0, 0
    for part in parts:
        at = text.find(part, max(0, pos - len(part)))
        assert at >= 0, "a window is not the book's own text"
        covered += max(0, at + len(part) - max(at, pos))
        pos = max(pos, at + len(part))
    return covered / len(text)


def test_cjk_windows_hold_size_tokens_share_the_overlap_and_cover_the_text() -> None:
    parts = windows(ZH, 600, 100)
    tokens = [count_tokens(p) for p in parts]
    assert max(tokens) <= 600 and min(tokens[:-1]) >= 500  # full windows, not half ones
    assert _coverage(ZH, parts) > 0.999  # the span-by-span chunker left a third of a Chinese text out
    for left, right in zip(parts, parts[1:]):  # consecutive windows share text
        assert right[:20] in left


def test_cjk_windows_tokenize_the_text_once_not_once_per_span(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = chunking.count_tokens
    monkeypatch.setattr(chunking, "count_tokens", lambda text: calls.append(1) or real(text))
    parts = windows(ZH, 600, 100)
    assert len(calls) <= 3 * len(parts)  # a few counts per window (was hundreds on CJK)


def test_the_estimate_tokenizer_weighs_every_span_one() -> None:
    spans, weights = EstimateTokenizer().weighted_spans("却说 Mara 笑道。")
    assert len(spans) == len(weights) and set(weights) == {1}


def test_a_multi_token_character_carries_its_tokens() -> None:
    tokenizer = default_tokenizer()
    spans, weights = tokenizer.weighted_spans(ZH[:400]) if hasattr(tokenizer, "weighted_spans") else ([], [])
    assert sum(weights) == tokenizer.count(ZH[:400])
    assert len(spans) == len(weights)
