"""``rolerag eval -o KEY=VALUE``: chat's method options are the one spelling of the retrieval
depth; ``--k`` still works (hidden, with a note) and lands in the same run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.cli.main import app
from incanon.runs import RunStore
from incanon.testing.cli import run_main

runner = CliRunner()


@pytest.fixture(scope="module")
def files(graph_store, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("rolerag-o")
    res = runner.invoke(app, ["rolerag", "questions", "--store", str(graph_store.path), "--out", str(root / "q.jsonl"),
                              "--characters", "Wren", "--per-kind", "1", "--json"])
    assert res.exit_code == 0, res.output
    (root / "agent.json").write_text(json.dumps({"rules": [], "default": "I keep the lamps."}))
    (root / "judge.json").write_text(json.dumps({"rules": [{"match": "keeps to the limits", "response": "Analysis: ok\nRating: 1"}],
                                                 "default": "Analysis: fine\nRating: 6"}))
    return root


def _argv(graph_store, root: Path, runs: Path, *extra: str) -> list[str]:
    return ["rolerag", "eval", "--store", str(graph_store.path), "--questions", str(root / "q.jsonl"),
            "--model", f"scripted:{root / 'agent.json'}", "--judge", f"scripted:{root / 'judge.json'}",
            "--method", "vanilla", "--limit", "1", "--runs", str(runs), "--no-cache", "--json", *extra]


def _eval(graph_store, root: Path, runs: Path, *extra: str):
    return runner.invoke(app, _argv(graph_store, root, runs, *extra))


def _run(graph_store, root: Path, runs: Path, *extra: str) -> dict:
    res = _eval(graph_store, root, runs, *extra)
    assert res.exit_code == 0, res.output
    (run,) = json.loads(res.stdout)["runs"]
    return run


def test_o_k_and_the_older_k_are_one_run_with_k_in_its_config(graph_store, files, tmp_path) -> None:
    runs = tmp_path / "runs.sqlite"
    new = _run(graph_store, files, runs, "-o", "k=3")
    old = _eval(graph_store, files, runs, "--k", "3")
    assert old.exit_code == 0, old.output
    assert "--k is deprecated here; use -o k=N" in old.stderr
    (again,) = json.loads(old.stdout)["runs"]
    assert again["run_id"] == new["run_id"] and again["skipped"] == new["ran"] == 1  # resumed, nothing redone
    config = RunStore(runs).get_run(new["run_id"]).config
    assert config.params["k"] == 3
    # A different depth is a different run; the threshold is the same setting either way.
    assert _run(graph_store, files, runs, "-o", "k=4")["run_id"] != new["run_id"]
    same = _run(graph_store, files, runs, "-o", "threshold=0.7")["run_id"]
    assert _run(graph_store, files, runs, "--threshold", "0.7")["run_id"] == same


@pytest.mark.parametrize(("extra", "expected"), [
    (["-o", "k=zero"], "--option k=zero: expected a whole number of 1 or more"),
    (["-o", "max_rounds=2"], "--option max_rounds: not an option of this benchmark's methods"),
    (["--k", "3", "-o", "k=5"], "--k 3 and -o k=5 disagree; give -o k=N only"),
])
def test_a_bad_option_names_it_and_what_was_expected(graph_store, files, tmp_path, capsys, extra, expected) -> None:
    assert run_main(_argv(graph_store, files, tmp_path / "runs.sqlite", *extra)) == 2
    assert expected in capsys.readouterr().err
    assert not (tmp_path / "runs.sqlite").exists()
