"""The ``incanon dialsim`` commands, end to end on the sample dialogue with a scripted model."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from incanon.cli.main import app

runner = CliRunner()


def _run(*args):
    result = runner.invoke(app, ["dialsim", *args])
    assert result.exit_code == 0, result.output
    return result


def test_ingest_questions_run_report_rescore(tmp_path):
    store, questions, runs = tmp_path / "canon", tmp_path / "q.jsonl", tmp_path / "runs.sqlite"
    ingested = json.loads(_run("ingest", "--sample", "--store", str(store), "--json").stdout)
    assert ingested["work"] == "lanterns-dialogue" and ingested["main"] == "Wren Callow" and ingested["sessions"] == 11
    made = json.loads(_run("questions", "--store", str(store), "--out", str(questions), "--json").stdout)
    assert made["questions"] > 100 and made["report"]["tkg_source"] == "sample"
    rules = tmp_path / "model.json"
    rules.write_text(json.dumps({"rules": [{"match": "Jory", "response": "(A)"}], "default": "(E)"}))
    out = json.loads(_run("run", "--store", str(store), "--questions", str(questions), "--model", f"scripted:{rules}",
                          "--memory", "bm25-session,oracle", "--time-limit", "6", "--repetitions", "2", "--fast",
                          "--names", "swap", "--runs", str(runs), "--json").stdout)
    assert [r["memory"] for r in out["runs"]] == ["bm25-session", "oracle"]
    assert all(r["simulated"] == [0, 1] for r in out["runs"])
    assert out["report"]["settings"][0]["questions"] == 20 and "## With a time limit" in out["markdown"]
    run_id = out["runs"][0]["run_id"]
    report = _run("report", run_id, "--runs", str(runs), "--md", str(tmp_path / "r.md"))
    assert "By question source and type" in report.stdout and (tmp_path / "r.md").is_file()
    rows = tmp_path / "answers.jsonl"
    rows.write_text('{"answer": "(A)", "gold": "(A)", "type": "cur", "format": "mc"}\n'
                    '{"answer": "(B) (C)", "gold": "(C)", "type": "fu", "format": "mc"}\n')
    rescored = json.loads(_run("rescore", str(rows), "--json").stdout)
    assert rescored["accuracy"] == 0.5 and rescored["statuses"] == {"correct": 1, "ambiguous": 1}


def test_ingest_a_plain_transcript_and_user_errors(tmp_path):
    script = tmp_path / "chat.txt"
    script.write_text("## 2021-05-01\nAna: Hi Ben.\nBen: Hi Ana.\n\n## 2021-05-02\nBen: Bread?\nAna: Please.\n")
    result = _run("ingest", str(script), "--store", str(tmp_path / "canon"))
    assert "work 'chat': 2 sessions, 4 lines" in result.stdout
    bad = runner.invoke(app, ["dialsim", "ingest", "--store", str(tmp_path / "canon")])
    assert bad.exit_code != 0
    pickle_file = tmp_path / "data.pickle"
    pickle_file.write_bytes(b"\x80\x04N.")
    refused = runner.invoke(app, ["dialsim", "ingest", "--published", str(pickle_file), "--store", str(tmp_path / "c2")])
    assert refused.exit_code != 0 and "trust" in str(refused.exception)


def test_run_shows_one_progress_bar_per_repetition_and_a_failure_count(tmp_path):
    store, questions, runs = tmp_path / "canon", tmp_path / "q.jsonl", tmp_path / "runs.sqlite"
    _run("ingest", "--sample", "--store", str(store))
    _run("questions", "--store", str(store), "--out", str(questions))
    rules = tmp_path / "model.json"
    rules.write_text(json.dumps({"default": "(E)"}))
    result = _run("run", "--store", str(store), "--questions", str(questions), "--model", f"scripted:{rules}",
                  "--time-limit", "6", "--repetitions", "2", "--sessions", "3", "--fast", "--runs", str(runs))
    assert "session-2:" not in result.stderr, "no line per session"
    assert "run 1/2" in result.stderr and "run 2/2" in result.stderr
    assert "6 questions asked, 0 failed" in result.stderr
    assert "| time limit |" in result.stdout and "(milliseconds)" in result.stdout


def test_a_run_where_every_question_failed_exits_non_zero(tmp_path, monkeypatch, capsys):
    from dialsim_helpers import cli_exit

    store, questions = tmp_path / "canon", tmp_path / "q.jsonl"
    _run("ingest", "--sample", "--store", str(store))
    _run("questions", "--store", str(store), "--out", str(questions))
    rules = tmp_path / "model.json"
    rules.write_text(json.dumps({"rules": [{"match": "^Hello", "response": "hi"}]}))  # every answer raises
    code = cli_exit(["dialsim", "run", "--store", str(store), "--questions", str(questions), "--model",
                     f"scripted:{rules}", "--sessions", "2", "--fast", "--runs", str(tmp_path / "runs.sqlite")],
                    monkeypatch)
    captured = capsys.readouterr()
    assert code == 2 and "every one of the 2 questions failed" in captured.err
    assert "| 2 questions" not in captured.out


def test_old_option_spellings_still_work_with_a_deprecation_line(tmp_path):
    from incanon.cli.dialsim_compat import runs_and_repetitions as _runs_and_repetitions

    assert _runs_and_repetitions("3", None, 1) == (None, 3)  # --runs N: the repetition count, as before
    assert _runs_and_repetitions(None, tmp_path / "r.sqlite", 2) == (tmp_path / "r.sqlite", 2)  # --run-store
    assert _runs_and_repetitions(str(tmp_path / "r.sqlite"), None, 4) == (tmp_path / "r.sqlite", 4)
