"""``dialsim run -o KEY=VALUE``: chat's method options are the one spelling of the retrieval
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
def files(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("dialsim-o")
    for args in (["ingest", "--sample", "--store", str(root / "canon"), "--json"],
                 ["questions", "--store", str(root / "canon"), "--out", str(root / "q.jsonl"), "--json"]):
        res = runner.invoke(app, ["dialsim", *args])
        assert res.exit_code == 0, res.output
    (root / "model.json").write_text(json.dumps({"rules": [], "default": "(E)"}))
    return root


def _argv(root: Path, runs: Path, *extra: str) -> list[str]:
    return ["dialsim", "run", "--store", str(root / "canon"), "--questions", str(root / "q.jsonl"),
            "--model", f"scripted:{root / 'model.json'}", "--memory", "bm25-session", "--time-limit", "0",
            "--sessions", "2", "--fast", "--no-cache", "--runs", str(runs), "--json", *extra]


def _run(root: Path, runs: Path, *extra: str) -> tuple[dict, str]:
    res = runner.invoke(app, _argv(root, runs, *extra))
    assert res.exit_code == 0, res.output
    (run,) = json.loads(res.stdout)["runs"]
    return run, res.stderr


def test_o_k_and_the_older_k_are_one_run_with_k_in_its_config(files, tmp_path) -> None:
    runs = tmp_path / "runs.sqlite"
    new, _ = _run(files, runs, "-o", "k=3")
    old, note = _run(files, runs, "--k", "3")
    assert "--k is deprecated here; use -o k=N" in note
    assert old["run_id"] == new["run_id"] and old["skipped"] == new["simulated"] == [0]  # resumed, not redone
    assert RunStore(runs).get_run(new["run_id"]).config.params["k"] == 3
    assert _run(files, runs)[0]["run_id"] != new["run_id"]  # the default depth is another run
    # The command's own options and -o are one setting, whichever way it is given.
    both = _run(files, runs, "-o", "context_tokens=2000", "-o", "constrain_choices=true")[0]["run_id"]
    assert _run(files, runs, "--context-tokens", "2000", "--constrain-choices")[0]["run_id"] == both
    params = RunStore(runs).get_run(both).config.params
    assert (params["context_tokens"], params["constrain_choices"]) == (2000, True)


@pytest.mark.parametrize(("extra", "expected"), [
    (["-o", "k=0"], "--option k=0: expected a whole number of 1 or more"),
    (["-o", "threshold=0.5"], "--option threshold: not an option of this benchmark's methods; they take k=N"),
    (["-o", "context_tokens=10"], "--option context_tokens=10: expected a whole number of 100 or more"),
    (["--k", "3", "-o", "k=5"], "--k 3 and -o k=5 disagree; give -o k=N only"),
])
def test_a_bad_option_names_it_and_what_was_expected(files, tmp_path, capsys, extra, expected) -> None:
    assert run_main(_argv(files, tmp_path / "runs.sqlite", *extra)) == 2
    assert expected in capsys.readouterr().err
    assert not (tmp_path / "runs.sqlite").exists()
