"""``incanon cache stats`` and ``incanon cache clear``."""

from __future__ import annotations

import json
import subprocess
import sys

from typer.testing import CliRunner

from incanon.cli.main import app
from incanon.models import Completion, ResponseCache

runner = CliRunner()


def filled(path):
    cache = ResponseCache(path)
    for i in range(3):
        cache.put_completion(f"a{i}", "model-a", Completion(text="x", model="model-a"))
    cache.put_completion("b0", "model-b", Completion(text="y", model="model-b"))
    cache.close()
    return path


def test_stats_json(tmp_path):
    path = filled(tmp_path / "c.sqlite")
    result = runner.invoke(app, ["cache", "stats", "--cache", str(path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["entries"] == 4 and data["models"]["model-a"]["entries"] == 3


def test_stats_table(tmp_path):
    path = filled(tmp_path / "c.sqlite")
    result = runner.invoke(app, ["cache", "stats", "--cache", str(path)])
    assert result.exit_code == 0
    assert "model-a" in result.stdout and "4 responses" in result.stdout


def test_stats_of_a_missing_cache_creates_nothing(tmp_path):
    path = tmp_path / "none.sqlite"
    result = runner.invoke(app, ["cache", "stats", "--cache", str(path), "--json"])
    assert json.loads(result.stdout)["entries"] == 0
    assert not path.exists()


def test_clear_one_model_then_all(tmp_path):
    path = filled(tmp_path / "c.sqlite")
    result = runner.invoke(app, ["cache", "clear", "--model", "model-a", "--cache", str(path), "--json"])
    assert json.loads(result.stdout) == {"path": str(path), "model": "model-a", "removed": 3}
    result = runner.invoke(app, ["cache", "clear", "--cache", str(path)])
    assert result.exit_code == 0 and "removed 1 entries" in result.stdout
    assert ResponseCache(path).stats().entries == 0


def test_default_path_and_json_purity_in_a_subprocess(tmp_path):
    filled(tmp_path / "cache.sqlite")
    env = {"INCANON_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(
        [sys.executable, "-m", "incanon", "cache", "stats", "--json"],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["entries"] == 4  # stdout is one JSON document, nothing else
