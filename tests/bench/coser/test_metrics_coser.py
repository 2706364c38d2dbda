"""BLEU and ROUGE-L of simulations against the original, thoughts removed."""

from __future__ import annotations

import pytest

from incanon.bench.coser.metrics import bleu, ngram_scores, rouge_l, strip_name, transcript

REFERENCE = [
    {"character": "Mr Bennet", "message": "[Amused.] Lizzy, I was going to look for you; come into my room."},
    {"character": "Elizabeth Bennet", "message": "[Dread.] (follows her father) What is it, Papa?"},
    {"character": "Environment", "message": "The fire crackles [softly] in the grate."},
]


def test_identical_visible_text_scores_100_whatever_the_thoughts():
    simulation = [
        {"role": "Mr Bennet", "content": "[Something else entirely.] Lizzy, I was going to look for you; come into my room."},
        {"role": "Elizabeth Bennet", "content": "Elizabeth Bennet: (follows her father) What is it, Papa? [I fear the worst.]"},
        {"role": "NSP", "content": "Environment"},
        {"role": "Environment", "content": "The fire crackles [softly] in the grate."},
    ]
    scores = ngram_scores(simulation, REFERENCE)
    assert scores.bleu == pytest.approx(100.0) and scores.rouge_l == pytest.approx(100.0)


def test_transcript_names_speakers_and_keeps_environment_brackets():
    text = transcript(REFERENCE)
    assert text.splitlines()[0] == "Mr Bennet: Lizzy, I was going to look for you; come into my room."
    assert "Amused" not in text and "Dread" not in text
    assert text.endswith("Environment: The fire crackles [softly] in the grate.")
    assert "[Dread.]" in transcript(REFERENCE, thoughts=True)


def test_continue_from_leaves_out_the_copied_messages():
    simulation = [{"role": "Mr Bennet", "content": REFERENCE[0]["message"]},
                  {"role": "Elizabeth Bennet", "content": "Nothing at all like the book."}]
    assert ngram_scores(simulation, REFERENCE).bleu > ngram_scores(simulation, REFERENCE, continue_from=1).bleu
    assert ngram_scores(simulation, REFERENCE, continue_from=1).rouge_l < 50


def test_edge_cases():
    assert bleu("", "reference text") == 0.0 and rouge_l("hypothesis", "") == 0.0
    assert rouge_l("我爱北京天安门", "我爱北京") > 50  # CJK characters are tokens, not dropped
    assert 0 < bleu("the cat sat on a mat", "the cat sat on the mat") < 100
    assert strip_name("Mr Bennet", "Mr Bennet: Hello") == "Hello"
    assert strip_name("Mr Bennet", "Mr Bennet：你好") == "你好"
