"""BLEU and ROUGE-L of simulations against the original: the reference's figures (default) and
incanon's symmetric ones (``sacrebleu`` / ``rouge_score``)."""

from __future__ import annotations

import pytest

from incanon.bench.coser.gca_ngrams import (
    gca_ngram_scores,
    reference_text,
    remove_inner_thoughts,
    rouge_l,
    simulation_text,
)
from incanon.bench.coser.metrics import bleu, ngram_scores, strip_name, transcript
from incanon.bench.coser.nltk_words import word_tokenize

REFERENCE = [
    {"character": "Mr Bennet", "message": "[Amused.] Lizzy, I was going to look for you; come into my room."},
    {"character": "Elizabeth Bennet", "message": "[Dread.] (follows her father) What is it, Papa?"},
    {"character": "Environment", "message": "The fire crackles [softly] in the grate."},
]
SIMULATION = [
    {"role": "Mr Bennet", "content": "[Something else entirely.] Lizzy, I was going to look for you; come into my room."},
    {"role": "NSP", "content": "Elizabeth Bennet"},
    {"role": "Elizabeth Bennet", "content": "(follows her father) What is it, Papa? [I fear the worst.]"},
    {"role": "Environment", "content": "The fire crackles [softly] in the grate."},
]


def test_texts_are_built_as_the_reference_builds_them():
    # Simulation: no NSP, thoughts removed except the Environment's, no speaker names.
    assert simulation_text(SIMULATION) == (
        "Lizzy, I was going to look for you; come into my room.\n\n"
        "(follows her father) What is it, Papa?\n\n"
        "The fire crackles [softly] in the grate.")
    # Reference: "Name: message", thoughts removed except the Environment's.
    assert reference_text(REFERENCE) == (
        "Mr Bennet: Lizzy, I was going to look for you; come into my room.\n\n"
        "Elizabeth Bennet: (follows her father) What is it, Papa?\n\n"
        "Environment: The fire crackles [softly] in the grate.")
    assert simulation_text(SIMULATION, continue_from=1) .startswith("(follows")
    assert reference_text(REFERENCE, continue_from=2) == "Environment: The fire crackles [softly] in the grate."


def test_remove_inner_thoughts_like_the_reference():
    assert remove_inner_thoughts("[a] Yes.\n\n\n  [b] (nods)  ") == "Yes.\n(nods)"
    assert remove_inner_thoughts("<role_thinking>plan</role_thinking> Hello") == "Hello"
    assert remove_inner_thoughts("[multi\nline] kept") == "[multi\nline] kept"  # '.' does not match newlines


def test_rouge_l_by_hand():
    # One sentence each; distinct words ref {X:, a, b, d} (4), hyp {a, b, c} (3); LCS "a b" (2).
    # R = 2/4, P = 2/3, F = 2PR / (P + R) = 4/7.
    assert rouge_l("a b c", "X: a b d") == pytest.approx(400 / 7, abs=1e-5)


def test_word_tokens_are_nltks():
    assert word_tokenize("'My lord,' said Mr. Smith. \"Go!\"") == [
        "'My", "lord", ",", "'", "said", "Mr.", "Smith", ".", "``", "Go", "!", "''"]


def test_speaker_names_count_on_the_reference_side_only():
    scores = ngram_scores(SIMULATION, REFERENCE)
    assert scores.bleu < 100 and scores.rouge_l < 100          # names are missing from the simulation
    assert scores.sacrebleu == pytest.approx(100.0) and scores.rouge_score == pytest.approx(100.0)
    named = [dict(m, content=f"{m['role']}: {m['content']}") if m["role"] != "NSP" else m for m in SIMULATION]
    assert gca_ngram_scores(named, REFERENCE).bleu == pytest.approx(100.0)


def test_a_degenerate_simulation_scores_below_a_real_one():
    real = [{"role": "Mr Bennet", "content": "Lizzy, come into my room; I have a letter."},
            {"role": "Elizabeth Bennet", "content": "(follows) What is it, Papa?"}]
    yes = [{"role": r["role"], "content": "yes."} for r in real]
    assert gca_ngram_scores(yes, REFERENCE).rouge_l < gca_ngram_scores(real, REFERENCE).rouge_l


def test_empty_simulation_scores_zero_with_a_note():
    result = gca_ngram_scores([{"role": "Mr Bennet", "content": "[only a thought]"}], REFERENCE)
    assert (result.bleu, result.rouge_l) == (0.0, 0.0) and "simulation" in (result.note or "")


def test_long_sentences_do_not_hit_the_recursion_limit():
    text = " ".join(f"w{i}" for i in range(1200))
    assert rouge_l(text, text) == pytest.approx(100.0, abs=1e-4)


def test_symmetric_figures_keep_working():
    text = transcript(REFERENCE)
    assert text.splitlines()[0] == "Mr Bennet: Lizzy, I was going to look for you; come into my room."
    assert bleu("", "x") == 0.0
    assert strip_name("Mr Bennet", "Mr Bennet: Hello") == "Hello"
    assert strip_name("Mr Bennet", "Mr Bennet：你好") == "你好"
