"""Rescoring evaluation files in CoSER's released layouts, without calling a model."""

from __future__ import annotations

import json

import pytest

from incanon.bench.coser.rescore import rescore_data, rescore_file
from incanon.errors import InputError


def flaws(*severities):
    return {"flaws": [{"instance": f"flaw {i}", "type": "t", "severity": s} for i, s in enumerate(severities)]}


SIM_A = [  # 4 actor rounds (Environment and NSP do not count): credit 1.2 severity points
    {"role": "Mr Bennet", "content": "Mr Bennet: Lizzy, come in."},
    {"role": "Environment", "content": "Environment: The fire crackles."},
    {"role": "Elizabeth Bennet", "content": "What is it, Papa?"},
    {"role": "NSP", "content": "Mr Bennet"},
    {"role": "Mr Bennet", "content": "A letter from Mr Collins."},
    {"role": "Elizabeth Bennet", "content": "From Mr Collins!"},
]
SIM_B = [{"role": "Count Dracula", "content": "Welcome!"}, {"role": "Jonathan Harker", "content": "Count?"}]

# Hand-computed:
#   A: SC 100-5*(7-1.2)=71, AN 100-5*(2-1.2)=96, CF 100-5*(10-1.2)=56, SQ 100 (clamped) → case 80.75
#   B (2 rounds, credit 0.6): SC 100-5*(3-0.6)=88, AN 100-5*(5-0.6)=78, CF 100-5*(0-0.6)→100 ("1" as
#      text counts 0, as the reference sums ints only), SQ 100-5*(2-0.6)=93 (severity missing twice:
#      1 + 1) → case 89.75
CASES = {
    "Pride and Prejudice-70-0": {
        "simulation": SIM_A,
        "critique": {"Storyline Consistency": {**flaws(3, 4), "score": 71.0},
                     "Anthropomorphism": {**flaws(2), "score": 96.0},
                     "Character Fidelity": {**flaws(5, 5), "score": 50.0},  # stored wrongly on purpose
                     "Storyline Quality": {"flaws": [], "score": 100},
                     "bleu": 0.05, "rouge_l": 0.125},
        "score": 80.75,
    },
    "Dracula-3-1": {
        "simulation": SIM_B,
        "critique": {"storyline consistency": flaws(3),
                     "Anthropomorphism": flaws(5),
                     "Character Fidelity": {"flaws": [{"instance": "x", "type": "t", "severity": "1"}]},
                     "Storyline Quality": {"flaws": [{"instance": "x"}, {"instance": "y", "severity": None}]},
                     "bleu": 0.03, "rouge_l": 0.1},
    },
}


def test_coser_layout_recomputed_by_hand():
    result = rescore_data({"scores": {"avg": 1}, "cases": CASES}, source="id_set_gpt-4o.json")
    assert result.layout == "coser" and result.skipped == {}
    a, b = result.cases
    assert (a.model, a.case_id, a.actor_rounds) == ("id_set_gpt-4o", "Pride and Prejudice-70-0", 4)
    assert a.scores == pytest.approx({"Storyline Consistency": 71.0, "Anthropomorphism": 96.0,
                                      "Character Fidelity": 56.0, "Storyline Quality": 100.0,
                                      "bleu": 5.0, "rouge_l": 12.5})
    assert a.score == pytest.approx(80.75)
    assert a.disagreements == ["Character Fidelity"]  # the case score was stored right, the dimension not
    assert b.scores == pytest.approx({"Storyline Consistency": 88.0, "Anthropomorphism": 78.0,
                                      "Character Fidelity": 100.0, "Storyline Quality": 93.0,
                                      "bleu": 3.0, "rouge_l": 10.0})
    assert b.score == pytest.approx(89.75) and b.disagreements == []
    assert result.disagreeing_cases == 1 and result.stored_scores == {"avg": 1}
    (row,) = result.report.rows
    agg = row.splits["all"]
    assert agg.dimensions == pytest.approx({"Storyline Consistency": 79.5, "Anthropomorphism": 87.0,
                                            "Character Fidelity": 78.0, "Storyline Quality": 96.5})
    assert agg.average == pytest.approx((79.5 + 87 + 78 + 96.5) / 4)
    assert agg.bleu == pytest.approx(4.0) and agg.rouge_l == pytest.approx(11.25)
    assert set(row.splits) == {"all"}  # no domains without a test set


def test_multi_model_layout_skips_cases_without_critique():
    data = {"scores": {}, "cases": {
        "groundtruth": {"Pride and Prejudice-70-0": {"scenario": "s", "groundtruth": "text", "score": 100}},
        "gpt-4o": {"Pride and Prejudice-70-0": CASES["Pride and Prejudice-70-0"]},
        "claude": {"Dracula-3-1": CASES["Dracula-3-1"]},
    }}
    result = rescore_data(data, source="x.json")
    assert result.layout == "coser-multi"
    assert [(r.label, r.splits["all"].cases) for r in result.report.rows] == [("gpt-4o", 1), ("claude", 1)]
    assert result.skipped == {"no critique (e.g. ground truth)": 1}
    assert any("skipped" in note for note in result.report.notes)


def test_a_test_set_recomputes_ngrams_and_gives_domains(tmp_path):
    test = [{"book": "Pride and Prejudice", "i_c": 0, "tag": "id", "scenario": "s",
             "dialogues": [{"character": "Mr Bennet", "message": "[t] Lizzy, come in."},
                           {"character": "Environment", "message": "The fire crackles."},
                           {"character": "Elizabeth Bennet", "message": "What is it, Papa?"},
                           {"character": "Mr Bennet", "message": "A letter from Mr Collins."},
                           {"character": "Elizabeth Bennet", "message": "From Mr Collins!"}],
             "plot": {"summary": "p", "i_p": 70}}]
    (tmp_path / "test.json").write_text(json.dumps(test))
    (tmp_path / "eval.json").write_text(json.dumps({"scores": {}, "cases": CASES}))
    result = rescore_file(tmp_path / "eval.json", test=tmp_path / "test.json")
    a, b = result.cases
    # The reference's figures: names on the reference side only (the simulation has two of five).
    assert a.ngram_source == "recomputed" and 0 < a.scores["bleu"] < 100
    assert a.scores["sacrebleu"] == pytest.approx(100.0)  # incanon's symmetric figure: names on both sides
    assert a.domain == "in-domain" and b.domain is None and b.ngram_source == "stored"
    assert set(result.report.rows[0].splits) == {"all", "in-domain"}
    assert any("not in the test set" in n for n in result.report.notes)


def test_not_an_evaluation_file(tmp_path):
    path = tmp_path / "sim.json"
    path.write_text(json.dumps([{"book_title": "x", "simulation": []}]))
    with pytest.raises(InputError, match="sim.json.*cases"):
        rescore_file(path)


def _released_case(roles, severities, stored):
    """A case of CoSER's released ``exp/evaluation/id_set_gpt-4o.json`` with its speakers, flaw
    severities and stored scores as published (message and flaw texts shortened)."""
    critique = {dim: {"flaws": [{"instance": "…", "type": "…", "severity": s} for s in sev], "score": score}
                for (dim, sev), score in zip(severities.items(), stored[:4])}
    return {"simulation": [{"role": r, "content": f"{r}: …"} for r in roles], "simulation_text": "…",
            "score": stored[4], "critique": {**critique, "score": stored[4]}}


def test_cases_of_coser_released_file_agree_with_their_stored_scores():
    dirk = _released_case(["Sally Mills", "Dirk Gently"] * 5 + ["Environment"],
                          {"Storyline Consistency": [3, 3, 4], "Anthropomorphism": [3, 2, 2, 3],
                           "Character Fidelity": [2, 3, 2, 3], "Storyline Quality": [2, 3, 1]},
                          [65.0, 65.0, 65.0, 85.0, 70.0])
    summoning = _released_case(["Royce", "Chloe Saunders"] * 5 + ["Environment"],
                               {"Storyline Consistency": [3, 2, 4], "Anthropomorphism": [3, 2, 3, 3],
                                "Character Fidelity": [4, 3, 3, 2], "Storyline Quality": [3, 2, 2]},
                               [70.0, 60.0, 55.0, 80.0, 66.25])
    data = {"scores": {"avg": 59.304}, "cases": {
        "groundtruth": {"Dirk Gently's Holistic Detective Agency (Dirk Gently, #1)-68-0": {"scenario": "…", "score": 100}},
        "gpt-4o": {"Dirk Gently's Holistic Detective Agency (Dirk Gently, #1)-68-0": dirk,
                   "The Summoning (Darkest Powers, #1)-67-0": summoning}}}
    result = rescore_data(data, source="id_set_gpt-4o.json")
    assert result.disagreeing_cases == 0 and [c.score for c in result.cases] == [70.0, 66.25]
    (row,) = result.report.rows
    assert row.label == "gpt-4o" and row.splits["all"].average == pytest.approx((70 + 66.25) / 2)
    assert row.splits["all"].bleu is None  # that file keeps no n-gram scores


def test_severity_zero_counts_zero_and_no_length_penalty():
    case = {"simulation": SIM_B, "critique": {
        "Storyline Consistency": {"flaws": [{"instance": "x", "severity": 0}, {"instance": "y", "severity": 2}],
                                  "score": 93.0},
        "Anthropomorphism": flaws(1), "Character Fidelity": flaws(1), "Storyline Quality": flaws(1)}}
    result = rescore_data({"cases": {"Dracula-3-1": case}}, source="x.json")
    assert result.cases[0].scores["Storyline Consistency"] == pytest.approx(100 - 5 * (2 - 0.6))
    assert result.disagreeing_cases == 0
    flat = rescore_data({"cases": {"Dracula-3-1": case}}, source="x_no_length_penalty.json", length_penalty=False)
    assert flat.cases[0].scores["Storyline Consistency"] == pytest.approx(90.0)
    assert any("--no-length-penalty" in n for n in flat.report.notes)


REFERENCE_DIALOGUE = [{"character": "Count Dracula", "message": "[Hungry.] Welcome to my house!"},
                      {"character": "Jonathan Harker", "message": "Count? Is it you?"}]


def test_simulation_files_are_scored_against_the_dialogue_they_carry():
    circumstance = {"book": "Dracula", "scenario": "A castle.", "dialogues": REFERENCE_DIALOGUE, "tag": "ood"}
    data = [{"book_title": "Dracula", "i_p": 3, "i_c": 1, "circumstance": circumstance,
             "simulation": SIM_B + [{"role": "NSP", "content": "<END CHAT>"}]}]
    result = rescore_data(data, source="test_set_model.json")
    (case,) = result.cases
    assert result.layout == "coser-simulation" and case.case_id == "Dracula-3-1" and case.ngram_source == "recomputed"
    assert case.domain == "out-of-domain" and case.scores["Storyline Consistency"] is None
    assert 0 < case.scores["bleu"] < 100 and case.scores["rouge_score"] is not None
    with pytest.raises(InputError, match=r"\[0\]\.circumstance\.dialogues"):
        rescore_data([{**data[0], "circumstance": {"scenario": "s"}}], source="bad.json")


def test_recomputed_ngrams_that_replace_stored_ones_are_reported(tmp_path):
    test = [{"book": "Dracula", "plot": {"i_p": 3, "summary": "s"}, "i_c": 1, "scenario": "A castle.",
             "dialogues": REFERENCE_DIALOGUE}]
    path = tmp_path / "test.json"
    path.write_text(json.dumps(test))
    case = {**CASES["Dracula-3-1"]}
    result = rescore_data({"cases": {"Dracula-3-1": case}}, source="e.json", test=path)
    (rescored,) = result.cases
    assert rescored.ngram_source == "recomputed" and set(rescored.disagreements) == {"bleu", "rouge_l"}
    assert result.disagreeing_cases == 1
    assert any(n.startswith("ROUGE-L recomputed differs from the stored figure in 1 case(s) (mean over them: stored 10.00")
               for n in result.report.notes)


def test_a_file_without_any_scorable_case_is_an_error():
    with pytest.raises(InputError, match="no case to rescore"):
        rescore_data({"cases": {"groundtruth": {"x": {"scenario": "s"}}}}, source="gt.json")


def test_scores_above_100_are_explained_by_the_uncapped_first_evaluator():
    # 6 actor rounds credit 1.8 severity points: one flaw of severity 1 gives 100 - 5*(1-1.8) = 104
    # uncapped (the first released evaluator), 100 capped. A stored 130 matches no formula.
    sim = [{"role": r, "content": "..."} for r in ("Ann", "Bob") * 3]
    data = {"cases": {
        "Book-1-0": {"simulation": sim, "critique": {
            "Storyline Consistency": {**flaws(1), "score": 104.0}, "Anthropomorphism": {**flaws(), "score": 109.0},
            "Character Fidelity": {**flaws(4), "score": 89.0}, "Storyline Quality": {**flaws(2), "score": 99.0}}},
        "Book-2-0": {"simulation": sim, "critique": {
            "Storyline Consistency": {**flaws(1), "score": 130.0}, "Anthropomorphism": {**flaws(), "score": 100.0},
            "Character Fidelity": {**flaws(4), "score": 89.0}, "Storyline Quality": {**flaws(2), "score": 99.0}}}}}
    result = rescore_data(data, source="old.json")
    first, second = result.cases
    assert first.scores["Storyline Consistency"] == 100.0
    assert first.uncapped == ["Storyline Consistency", "Anthropomorphism"]
    assert second.uncapped == [] and "Storyline Consistency" in second.disagreements
    note = next(n for n in result.report.notes if "above 100" in n)
    assert note.startswith("1 of them store dimension scores above 100 (up to 109)")
    assert "without the upper cap" in note and "0e11992" in note
