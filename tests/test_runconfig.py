"""Run configuration files: resolved like their command lines, overrides, errors, stored source."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from incanon.errors import ConfigError, InputError
from incanon.runconfig import load_run_config, resolve
from incanon.testing.cli import run_cli

REPO = Path(__file__).resolve().parents[1]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(args, cwd=cwd)


def _write(tmp_path: Path, text: str, name: str = "run.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_sections_and_overrides_resolve(tmp_path):
    path = _write(tmp_path, """
[defaults]
runs = "r.sqlite"
limit = 3
[[eval]]
benchmark = "sharp"
model = "embedded"
[[eval]]
benchmark = "dialsim"
limit = 9
""")
    sections = resolve(load_run_config(path), ["model=openai/gpt-4o-mini", "eval[1].limit=4"])
    assert [s["command"] for s in sections] == ["eval", "run"]
    assert [s["limit"] for s in sections] == [3, 4]
    assert all(s["model"] == "openai/gpt-4o-mini" and s["runs"] == "r.sqlite" for s in sections)


@pytest.mark.parametrize(("text", "error", "match"), [
    ("[[eval]]\nbenchmark = 'nope'\n", ConfigError, "eval\\[0\\].benchmark"),
    ("title = 'x'\n", InputError, "\\[\\[eval\\]\\]"),
    ("[[eval]\n", InputError, "not valid TOML"),
])
def test_bad_files_are_one_line_errors(tmp_path, text, error, match):
    with pytest.raises(error, match=match):
        resolve(load_run_config(_write(tmp_path, text)), [])


def test_an_unknown_option_names_the_section_and_the_options(tmp_path):
    path = _write(tmp_path, "[[eval]]\nbenchmark = 'sharp'\nmodle = 'embedded'\n")
    res = _cli("run", str(path), "--show", cwd=tmp_path)
    assert res.returncode == 2 and "eval[0].modle" in res.stderr and "judge" in res.stderr


@pytest.mark.parametrize(("line", "field"), [
    ("limit = 'ten'", "eval[0].limit"),
    ("concurrency = -3", "eval[0].concurrency"),
    ("limit = 0", "eval[0].limit"),
    ("concurrency = true", "eval[0].concurrency"),
])
def test_a_value_the_option_would_refuse_names_the_field(tmp_path, line, field):
    path = _write(tmp_path, f"[[eval]]\nbenchmark = 'sharp'\nmodel = 'embedded'\n{line}\n")
    res = _cli("run", str(path), "--show", cwd=tmp_path)
    assert res.returncode == 2, res.stdout
    assert field in res.stderr and len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr


def test_a_config_runs_as_its_command_line_and_the_run_stores_its_source(tmp_path):
    examples = REPO / "examples" / "sharp"
    assert _cli("canon", "import", str(examples / "zh_world.json"), "--store", "zh-canon", cwd=tmp_path).returncode == 0
    claims = _cli("sharp", "claims", "--conceptnet", str(examples / "conceptnet_zh_en.csv"), "--lang", "zh", "-n", "8",
                  "--seed", "1", "--out", "zh.jsonl", cwd=tmp_path)
    assert claims.returncode == 0, claims.stderr
    text = (examples / "zh.toml").read_text().replace('"scripted:examples/', f'"scripted:{REPO}/examples/')
    config = _write(tmp_path, text)
    shown = _cli("run", str(config), "--show", "--set", "meta=['data=x']", cwd=tmp_path)
    assert shown.returncode == 0 and "--meta data=x" in json.loads(shown.stdout)[0]["command"]
    ran = _cli("run", str(config), "--set", "no_cache=true", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    listed = json.loads(_cli("runs", "list", "--runs", "zh-runs.sqlite", "--json", cwd=tmp_path).stdout)["runs"]
    assert len(listed) == 1
    run_id = listed[0]["id"]
    shown_run = json.loads(_cli("runs", "show", run_id, "--runs", "zh-runs.sqlite", "--json", cwd=tmp_path).stdout)
    assert shown_run["config"]["source"]["section"]["detector"].endswith("detector_zh.json")
    # The same evaluation as a command line is the same run: it resumes with nothing to do.
    again = _cli("sharp", "eval", "--store", "zh-canon", "--model", f"scripted:{examples}/agent_zh.json",
                 "--detector", f"scripted:{examples}/detector_zh.json", "--claims", "zh.jsonl", "--mode", "factual",
                 "--runs", "zh-runs.sqlite", "--no-cache", "--meta", "data=multi-roles", "--meta", "roles=all-in-one",
                 "--meta", "training=sft", "--meta", "inference=zero-shot", cwd=tmp_path)
    assert again.returncode == 0 and f"run {run_id}: finished, ran 0 (0 failed)" in again.stderr


def test_every_shipped_example_config_resolves_to_valid_command_lines():
    configs = sorted((REPO / "examples").glob("*/*.toml"))
    assert REPO / "examples" / "sharp" / "run.toml" in configs, "examples/<benchmark>/run.toml"
    for config in configs:
        res = _cli("run", str(config), "--show", cwd=REPO)
        assert res.returncode == 0, (config, res.stderr)
        assert all(row["command"].startswith("incanon ") for row in json.loads(res.stdout))


def test_the_readme_config_example_runs_in_a_fresh_clone(tmp_path):
    import os
    import shlex
    import shutil

    # The README's line, as written (the .venv prefix and the comment aside).
    (line,) = [raw for raw in (REPO / "README.md").read_text(encoding="utf-8").splitlines()
               if "incanon run examples/sharp/run.toml" in raw]
    args = shlex.split(line.split("#")[0])
    assert args[0].endswith("incanon")
    clone = tmp_path / "clone"
    # Only the shipped files: no canon store, claims or run store made by an earlier step.
    shutil.copytree(REPO / "examples", clone / "examples")
    env = dict(os.environ, INCANON_HOME=str(tmp_path / "home"))
    env.pop("INCANON_CANON", None)
    res = run_cli(args[1:],
                  cwd=clone, env=env)
    assert res.returncode == 0, res.stderr
    assert "zero-shot: run sharp-" in res.stderr and "finished, ran 144 (0 failed)" in res.stderr
    listed = run_cli(["runs", "list", "--json"], cwd=clone, env=env)
    (row,) = json.loads(listed.stdout)["runs"]
    assert (row["benchmark"], row["method"], row["status"]) == ("sharp", "zero-shot", "finished")


def test_the_shipped_english_claims_are_what_incanon_makes(tmp_path):
    # run.toml's header says how the file was made; the command must still make exactly it.
    made = _cli("sharp", "claims", "--lang", "en", "-n", "24", "--seed", "1", "--out", "claims.jsonl", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    shipped = REPO / "examples" / "sharp" / "claims_en.jsonl"
    assert (tmp_path / "claims.jsonl").read_text(encoding="utf-8") == shipped.read_text(encoding="utf-8")
