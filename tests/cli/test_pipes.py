"""Output that is not a terminal keeps whole lines; root options are accepted anywhere."""

import json
import os
import subprocess
import sys

import pytest

from incanon.cli.main import hoist_global_options
from incanon.testing.cli import run_cli


def _env(tmp_path=None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("COLUMNS", None)  # the width rich would read; the test is about its absence
    if tmp_path is not None:
        env["INCANON_HOME"] = str(tmp_path)
    return env


def _run(*args: str, tmp_path=None):
    return run_cli(args, env=_env(tmp_path))


def test_piped_table_keeps_whole_rows_and_columns():
    # A real process writing into a real pipe: the consoles are made as the program starts.
    res = subprocess.run([sys.executable, "-m", "incanon", "models"], capture_output=True, text=True, env=_env())
    assert res.returncode == 0, res.stderr
    rows = [line for line in res.stdout.splitlines() if "slow:examples/dialsim/slow.json?seconds=2" in line]
    # One line holds the row's four cells: nothing folded onto a next line at 80 columns.
    assert len(rows) == 1
    assert rows[0].split()[:2] == ["chat", "slow"]
    assert rows[0].rstrip().endswith("(DialSim time-limit demos).")
    assert max(len(line.rstrip()) for line in res.stdout.splitlines()) > 80


def test_piped_console_is_wide_unless_columns_is_set(monkeypatch):
    from incanon.consoles import PIPE_WIDTH, make_console

    monkeypatch.delenv("COLUMNS", raising=False)
    assert make_console().width == PIPE_WIDTH
    monkeypatch.setenv("COLUMNS", "60")
    assert make_console().width == 60


@pytest.mark.parametrize("where", ["before", "after"])
def test_verbose_and_log_file_in_either_position(tmp_path, where):
    log = tmp_path / "logs" / "incanon.log"
    root = ["-vv", "--log-file", str(log)]
    args = [*root, "models", "--json"] if where == "before" else ["models", "--json", *root]
    res = _run(*args, tmp_path=tmp_path)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["specs"]
    assert log.exists()


def test_hoist_moves_only_root_options():
    assert hoist_global_options(["runs", "list", "-v", "--log-file", "x.log"]) == [
        "-v", "--log-file", "x.log", "runs", "list"]
    assert hoist_global_options(["runs", "list", "--verbose", "--log-file=x"]) == [
        "--verbose", "--log-file=x", "runs", "list"]
    # After "--" everything is an argument of the command.
    assert hoist_global_options(["run", "--", "-v"]) == ["run", "--", "-v"]
    assert hoist_global_options(["runs", "list", "-vx"]) == ["runs", "list", "-vx"]


def test_models_lists_every_registered_backend_kind():
    from incanon.cli.models import _rows
    from incanon.models.registry import chat_backends, embedder_backends

    rows = _rows()
    listed = {(r["role"], r["kind"]) for r in rows}
    for info in chat_backends.all():
        assert ("chat", info.kind) in listed
    for info in embedder_backends.all():
        assert ("embedder", info.kind) in listed
    assert ("chat", "slow") in listed
    # Every row's example is a spec, not the bare form with placeholders.
    for row in rows:
        assert "…" not in row["example"] and "RULES" not in row["example"], row


def test_a_logged_command_line_and_the_run_list_stay_whole(tmp_path):
    import shutil
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    shutil.copytree(repo / "examples" / "sharp", tmp_path / "examples" / "sharp")
    env = dict(os.environ, INCANON_HOME=str(tmp_path / "home"))
    env.pop("COLUMNS", None)
    env.pop("INCANON_CANON", None)

    def run(*args: str) -> subprocess.CompletedProcess:
        return run_cli(args, env=env, cwd=tmp_path)

    ran = run("run", "examples/sharp/run.toml", "--set", "method=zero-shot")
    assert ran.returncode == 0, ran.stderr
    # The command line `incanon run` logs is one line (it was broken at column 80, mid-argument).
    (logged,) = [line for line in ran.stderr.splitlines() if line.startswith("[1/1] incanon sharp eval")]
    assert len(logged) > 80
    assert logged.rstrip().endswith("--meta inference=zero-shot --method zero-shot")
    listed = run("runs", "list")
    assert listed.returncode == 0, listed.stderr
    (row,) = [line for line in listed.stdout.splitlines() if line.startswith("sharp-")]
    # Every column on the row's one line: id, model, method, status, counts, created.
    assert "scripted:examples/sharp/agent.json" in row and "zero-shot" in row and "finished" in row
    assert "144/0/144" in row
