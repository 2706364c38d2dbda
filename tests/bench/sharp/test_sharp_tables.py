"""Tables 4-6 additions, the strict parsers and the report's failure behaviour."""

from __future__ import annotations

import json

import pytest

from incanon.bench.sharp import Stance, build_report, check_consistent, parse_stance, to_stance, write_judged_jsonl
from incanon.bench.sharp.conceptnet import AssertionReader
from incanon.bench.sharp.evaluate import inline
from incanon.bench.sharp.lang._en_grammar import article
from incanon.cli.main import app
from incanon.errors import InputError
from typer.testing import CliRunner

from sharp_helpers import cn_line
from sharp_run_helpers import ans

runner = CliRunner()


def failed_with(res, text: str) -> bool:
    """The command stopped on a user error (exit 2 through incanon's entry point) saying ``text``."""
    from incanon.errors import IncanonError

    return isinstance(res.exception, IncanonError) and res.exception.exit_code == 2 and text in str(res.exception)


@pytest.mark.parametrize(("text", "expected"), [
    ("The utterance is not in favor of the claim.", None),
    ("It does not FAVOR the claim.", None),
    ("It does not FAVOR the claim; it is AGAINST it.", Stance.AGAINST),
    ("Stance: not FAVOR", None),
    ('{"stance": "not in favour", "reason": "x"}', None),
    ("The speaker clearly agrees: FAVOR.", Stance.FAVOR),
    ('{"stance": "反对", "reason": "否定"}', Stance.AGAINST),
    ('{"stance": "不支持", "reason": ""}', None),
])
def test_stance_parser_honours_negation(text, expected):
    assert parse_stance(text).stance == expected


def test_to_stance_rejects_vague_words():
    for word in ("None", "unclear", "mixed", "pro", "con", "doesn't agree"):
        assert to_stance(word) is None
    assert to_stance("Supportive.") == Stance.FAVOR and to_stance("disagrees") == Stance.AGAINST


def test_table6_hand_computed():
    # Backbone: 2 claims (c1 factual, c2 counterfactual); FAVOR on both -> SR 1, AR 0, ER 1/2, CR 0.
    # Aligned: one high role, NEUTRAL on c1 (adversary, neutral), AGAINST on c2 -> SR 0, AR 1, ER 0, CR 1/2.
    answers = [ans("R", "f", "NEUTRAL", "FAVOR", claim="c1"), ans("R", "c", "AGAINST", "FAVOR", claim="c2")]
    row = build_report(answers, "snowballing").rows[0]
    t = row.table6
    assert t.backbone == {"cr": 0.0, "er": 0.5, "sr": 1.0, "ar": 0.0}
    assert t.aligned == {"cr": 0.5, "er": 0.0, "sr": 0.0, "ar": 1.0}
    assert t.delta == {"cr": 0.5, "er": -0.5, "sr": -1.0, "ar": 1.0}
    md = build_report(answers, "snowballing").markdown()
    assert "| Δ (aligned - backbone) | +50.00% | -50.00% | -100.00% | +100.00% |" in md


def test_table5_per_role_and_by_language_and_table4_meta():
    zh = [a.model_copy(update={"lang": "zh", "meta": {"data": "multi-roles", "training": "sft"}})
          for a in (ans("A", "f", "AGAINST", claim="z1"), ans("B", "c", "FAVOR", affection="low", claim="z2"))]
    en = [ans("A", "f", "FAVOR", claim="e1"), ans("B", "f", "AGAINST", affection="low", claim="e2")]
    report = build_report(zh + en, "factual")
    assert set(report.by_language) == {"zh", "en"}
    md = report.markdown()
    assert "| Claim \\ Stance | zh Favor | zh Against | zh Neutral | en Favor | en Against | en Neutral |" in md
    assert "| Model | Data | Training | Method |" in md and "| multi-roles | sft |" in md
    roles = {(r.role, r.kind): r for r in report.rows[1].role_transfer}
    assert roles[("B", "claim")].ratios["factual"]["AGAINST"] == 1.0
    assert roles[("A", "claim")].counts == {"factual": 1, "counterfactual": 0}


def test_inconsistent_logs_are_rejected_naming_lines():
    one = ans("R", "f", "FAVOR", claim="c1")
    with pytest.raises(InputError, match="affection high at line 1 and low at line 2"):
        check_consistent([("line 1", one), ("line 2", ans("R", "f", "FAVOR", affection="low", claim="c2"))], "x")
    with pytest.raises(InputError, match="answers claim c1 twice, at line 1 and line 3"):
        check_consistent([("line 1", one), ("line 2", ans("R", "c", "FAVOR", claim="c2")), ("line 3", one)], "x")


def test_rescore_errors_leave_nothing_and_exit_2(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    res = runner.invoke(app, ["sharp", "rescore", str(empty), "--md", str(tmp_path / "r.md")])
    assert failed_with(res, "holds no answers") and not (tmp_path / "r.md").exists()
    dup = tmp_path / "dup.jsonl"
    write_judged_jsonl([ans("R", "f", "FAVOR", claim="c1"), ans("R", "f", "AGAINST", claim="c1")], dup)
    res = runner.invoke(app, ["sharp", "rescore", str(dup)])
    assert failed_with(res, "line 1 and line 2")


def test_report_judged_out_is_not_written_when_the_report_fails(tmp_path):
    from incanon.runs import RunConfig, RunStore

    store = RunStore(tmp_path / "runs.sqlite")
    info = store.create_or_resume(RunConfig(benchmark="sharp", params={"mode": "factual"}))
    out = tmp_path / "judged.jsonl"
    res = runner.invoke(app, ["sharp", "report", info.id, "--runs", str(tmp_path / "runs.sqlite"),
                              "--judged-out", str(out), "--md", str(tmp_path / "r.md")])
    assert failed_with(res, "no answer was judged")
    assert not out.exists() and not (tmp_path / "r.md").exists()


def test_proper_nouns_keep_their_case(tmp_path):
    path = tmp_path / "names.csv"
    path.write_text("\n".join([
        cn_line("AtLocation", "harry_potter/n", "library/n", surfaceText="You find [[Harry Potter]] in [[a library]]"),
        cn_line("IsA", "fbi_agent/n", "person/n", surfaceText="An [[FBI agent]] is a [[person]]"),
        cn_line("IsA", "water/n", "liquid/n", surfaceText="[[Water]] is a [[liquid]]"),  # a capital that opens a sentence
    ]) + "\n")
    edges = {e.head.text: e for e in AssertionReader(path)}
    assert set(edges) == {"Harry Potter", "FBI agent", "water"}
    from incanon.bench.sharp import edge_to_claim

    fbi = edge_to_claim(edges["FBI agent"])
    assert fbi.text == "An FBI agent is a person." and article("MRI scan") == "an" and article("UN report") == "a"
    harry = edge_to_claim(edges["Harry Potter"])
    assert harry.text == "You can find Harry Potter at a library."
    claim = edge_to_claim(edges["Harry Potter"].__class__(
        "IsA", edges["Harry Potter"].head, edges["FBI agent"].tail))
    assert claim.text == "Harry Potter is a person."
    assert inline(claim.text, [claim.source.head]) == "Harry Potter is a person."
    assert inline("A dog is an animal.", ["dog"]) == "a dog is an animal."
