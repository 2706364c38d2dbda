"""Judges (parsing, repair), question sets (load, build), evaluation with resume, the report and CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.bench.rolerag import (
    EvalSetup,
    RoleRAGJudges,
    RoleRAGQuestion,
    build_questions,
    build_report,
    evaluate,
    load_questions,
    rows_from_runs,
    write_questions,
)
from incanon.cli.main import app
from incanon.errors import InputError
from incanon.models import ScriptedModel
from incanon.runs import RunStore

from rolerag_helpers import agent_model, entity

JUDGE = ScriptedModel(rules=[
    (r"shows your own knowledge", "Analysis: it fits my life well.\nRating: 8"),
    (r"contains hallucination", "Analysis: **nothing invented**.\n**Rating:** 2"),
    (r"keeps to the limits", "Analysis: declines politely.\nRating: 1"),
])


async def test_judges_play_the_character_and_parse_ratings():
    judges = RoleRAGJudges.on(JUDGE)
    verdicts = await judges.judge(character="Wren Callow", description="a lamplighter", question="Q?", response="A.")
    assert {k: v.score for k, v in verdicts.items()} == {"ke": 8, "kh": 2, "uqj": 1}
    prompt = JUDGE.calls[-1].messages[0].content
    assert "Play the part of Wren Callow, who is a lamplighter" in prompt
    assert all(c.params.temperature == 0.2 for c in JUDGE.calls)


async def test_a_missing_rating_is_repaired_with_a_constrained_reply():
    model = ScriptedModel(queue=["Analysis: good, about eleven out of ten", '{"score": 9}'])
    judges = RoleRAGJudges.on(model)
    verdict = await judges.ke.judge(character="Wren", description="", question="Q", response="A")
    assert verdict.score == 9 and verdict.repaired
    assert model.calls[1].params.response_format["json_schema"]["schema"]["properties"]["score"]["enum"] == list(range(1, 11))
    model = ScriptedModel(queue=["Analysis: fine.\nRating: 7", "no", "no"])
    verdict = await RoleRAGJudges.on(model).uqj.judge(character="W", description="", question="Q", response="A")
    assert verdict.score is None and verdict.repaired  # 7 is not a UQJ value, and the repair said nothing


def test_question_files(tmp_path: Path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"character": "Wren", "question": "Who is Dace?", "scope": "in", "kind": "specific"}\n\n'
                    '{"character": "Wren", "question": "Apollo 11?", "scope": "out", "kind": "general", "at": "1-3"}\n',
                    encoding="utf-8")
    items = load_questions(path)
    assert [i.scope for i in items] == ["in", "out"] and items[0].id.startswith("Wren:") and items[1].at == "1-3"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"character": "Wren", "question": "Q", "scope": "maybe"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"line 1.*scope"):
        load_questions(bad)
    bad.write_text('{"character": "Wren"\n', encoding="utf-8")
    with pytest.raises(InputError, match="line 1"):
        load_questions(bad)


def test_questions_built_from_the_canon(graph_store):
    items = build_questions(graph_store, "lanterns", characters=["Wren", "Jory"], per_kind=2, seed=1)
    assert len(items) == 12 and items == build_questions(graph_store, "lanterns", characters=["Wren", "Jory"],
                                                         per_kind=2, seed=1)
    assert {(i.scope, i.kind) for i in items} == {("in", "specific"), ("in", "general"), ("out", "specific")}
    early = build_questions(graph_store, "lanterns", characters=["Jory"], at="1-2-1", per_kind=10)
    assert not any("Ilse" in i.question and "husband" in i.question for i in early)
    assert all(i.at == "1-2-1" for i in early)


async def test_evaluate_resumes_and_reports(graph_store, embedder, tmp_path: Path):
    items = [RoleRAGQuestion(character="Wren Callow", question="Who taught you?", kind="specific").with_id(),
             RoleRAGQuestion(character="Wren Callow", question="What do you love?", kind="general").with_id(),
             RoleRAGQuestion(character="Wren Callow", question="Do you use a smartphone?", scope="out").with_id()]
    agent = agent_model([entity("Ottilie Brand")])
    runs = RunStore(tmp_path / "runs.sqlite")
    setup = EvalSetup(store=graph_store, agent_model=agent, judge_model=JUDGE, models={"agent": "a", "judge": "j"},
                      runs=runs, work="lanterns", embedder=embedder, progress=False)  # type: ignore[arg-type]
    results = await evaluate(items, ["vanilla", "rolerag-cutoff"], setup)
    assert [r.ok for r in results] == [3, 3]
    again = await evaluate(items, ["vanilla", "rolerag-cutoff"], setup)
    assert [r.skipped for r in again] == [3, 3] and [r.ran for r in again] == [0, 0]
    report = build_report(rows_from_runs(runs, [r.run_id for r in results]))
    assert [(r.method, r.items) for r in report.rows] == [("vanilla", 3), ("rolerag-cutoff", 3)]
    assert report.rows[0].cells["ke"].mean == 8 and report.rows[0].cells["kh"].mean == 2
    assert {r.group for r in report.by_kind} == {"general", "specific"}
    md = report.markdown()
    assert "| a | rolerag-cutoff | 3 | 8.000 ± 0.000 | 2.000 ± 0.000 | 1.000 ± 0.000 |" in md and "General vs specific" in md
    sample = next(runs.samples(results[1].run_id))
    assert sample.extra["details"]["cutoff"] is True


def test_cli_questions_eval_report(graph_store, tmp_path: Path):
    runner = CliRunner()
    store = str(graph_store.path)
    qfile = tmp_path / "q.jsonl"
    result = runner.invoke(app, ["rolerag", "questions", "--store", store, "--out", str(qfile),
                                 "--characters", "Wren", "--per-kind", "1", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["questions"] == 3
    agent_rules = tmp_path / "agent.json"
    agent_rules.write_text(json.dumps({"rules": [], "default": "I keep the lamps and know nothing of that."}))
    judge_rules = tmp_path / "judge.json"
    judge_rules.write_text(json.dumps({"rules": [{"match": "keeps to the limits", "response": "Analysis: ok\nRating: 1"}],
                                       "default": "Analysis: fine\nRating: 6"}))
    runs = tmp_path / "runs.sqlite"
    result = runner.invoke(app, ["rolerag", "eval", "--store", store, "--questions", str(qfile),
                                 "--model", f"scripted:{agent_rules}", "--judge", f"scripted:{judge_rules}",
                                 "--method", "vanilla,profile", "--runs", str(runs), "--no-cache", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [r["ok"] for r in data["runs"]] == [3, 3]
    assert data["report"]["rows"][0]["cells"]["uqj"]["mean"] == 1.0
    ids = [r["run_id"] for r in data["runs"]]
    shown = runner.invoke(app, ["rolerag", "report", *ids, "--runs", str(runs), "--md", str(tmp_path / "t.md")])
    assert shown.exit_code == 0 and "| Model | Method | n | KE↑ | KH↓ | UQJ↑ |" in shown.stdout
    assert (tmp_path / "t.md").read_text(encoding="utf-8").startswith("## RoleRAG")
    write_questions([], tmp_path / "empty.jsonl")
    empty = runner.invoke(app, ["rolerag", "eval", "--store", store, "--questions", str(tmp_path / "empty.jsonl"),
                                "--model", "scripted:x", "--judge", "scripted:x"])
    assert isinstance(empty.exception, InputError)


def test_cli_paper_protocol(graph_store, tmp_path: Path):
    from incanon.errors import ConfigError
    from incanon.runs import RunStore

    runner = CliRunner()
    store = str(graph_store.path)
    qfile = tmp_path / "q.jsonl"
    runner.invoke(app, ["rolerag", "questions", "--store", store, "--out", str(qfile), "--characters", "Wren",
                        "--per-kind", "1"])
    agent_rules = tmp_path / "agent.json"
    agent_rules.write_text(json.dumps({"rules": [
        {"match": "Records:", "response": "(character<|>Wren Callow<|>herself<|>Yes<|>specific)##"
                                          "(character<|>Dace Morrow<|>a friend<|>Yes<|>specific)<|COMPLETE|>"}],
        "default": "I keep the lamps."}))
    judge = tmp_path / "judge.json"
    judge.write_text(json.dumps({"rules": [{"match": "keeps to the limits", "response": "Analysis: ok\nRating: 1"}],
                                 "default": "Analysis: fine\nRating: 6"}))
    runs = tmp_path / "runs.sqlite"
    common = ["rolerag", "eval", "--store", store, "--questions", str(qfile), "--model", f"scripted:{agent_rules}",
              "--judge", f"scripted:{judge}", "--method", "rolerag", "--runs", str(runs), "--no-cache", "--json"]
    result = runner.invoke(app, [*common, "--protocol", "paper"])
    assert result.exit_code == 0, result.output
    run_id = json.loads(result.stdout)["runs"][0]["run_id"]
    with RunStore(runs) as rs:
        assert rs.get_run(run_id).config.params["protocol"] == "paper"
        sample = next(rs.samples(run_id))
        assert sample.extra["details"]["nodes"] == ["Dace Morrow"] and sample.extra["details"]["hypothesis"] == ""
    dry = runner.invoke(app, [*common[:-1], "--protocol", "paper", "--dry-run"])
    text = " ".join(dry.stdout.split())
    assert dry.exit_code == 0 and "paper protocol: one" in text and "rolerag 6 6–21" in text, text  # 3 questions
    bad = runner.invoke(app, [*common, "--protocol", "papers"])
    assert isinstance(bad.exception, ConfigError) and "papers" in str(bad.exception)
