"""``incanon report`` end to end on the scripted demo and TimeChara runs."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from report_helpers import EXTERNAL
from incanon.testing.cli import run_cli


def _report(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, INCANON_HOME=str(home))
    return run_cli(["report", *args],
                   env=env, timeout=600)


def test_html_and_markdown_from_mixed_runs(report_runs, tmp_path):
    ids = [report_runs["demo"], *(r[:16] for r in report_runs["timechara"])]  # prefixes resolve
    res = _report(*ids, "--runs", str(report_runs["runs_path"]), "--html", str(tmp_path / "r.html"),
                  "--md", str(tmp_path / "r.md"), home=tmp_path)
    assert res.returncode == 0, res.stderr
    assert f"report written to {tmp_path / 'r.html'}" in res.stdout
    html = (tmp_path / "r.html").read_text()
    assert '<img src="data:image/png;base64,' in html and not EXTERNAL.search(html)
    assert "<h2>TimeChara: point-in-time character hallucination (Table 5)</h2>" in html
    assert "<h2>Demo: a character interviewed at two points of the story</h2>" in html
    md = (tmp_path / "r.md").read_text()
    assert "| Model | Method | Future | Past-absence |" in md and "## Demo:" in md


def test_json_is_one_document(report_runs, tmp_path):
    res = _report(*report_runs["timechara"], "--runs", str(report_runs["runs_path"]), "--json", home=tmp_path)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    (section,) = doc["sections"]
    assert section["benchmark"] == "timechara" and section["data"]["items"] == 10
    assert doc["written"] == {} and doc["usage"]["calls"] > 0


def test_user_errors_are_one_line_and_exit_2(report_runs, tmp_path):
    runs = str(report_runs["runs_path"])
    (tmp_path / "blocker").write_text("a file where a folder should be")
    for args, expected in (
        ([report_runs["demo"], "--runs", runs, "--csv", str(tmp_path / "blocker")], "expected a folder"),
        (["no-such-run", "--runs", runs, "--json"], "no-such-run"),
        ([report_runs["demo"], "--runs", str(tmp_path / "none.sqlite"), "--json"], "no run store"),
        ([report_runs["demo"], "--runs", runs, "--html", str(tmp_path / "blocker" / "r.html")], "cannot write"),
    ):
        res = _report(*args, home=tmp_path)
        assert res.returncode == 2, (args, res.stderr)
        assert expected in res.stderr and "Traceback" not in res.stderr


def test_every_table_as_csv_and_markdown_on_stdout_by_default(report_runs, tmp_path):
    import csv

    ids = [report_runs["demo"], *report_runs["timechara"]]
    res = _report(*ids, "--runs", str(report_runs["runs_path"]), "--csv", str(tmp_path / "tables"), home=tmp_path)
    assert res.returncode == 0, res.stderr
    files = sorted(p.name for p in (tmp_path / "tables").iterdir())
    assert any(name.startswith("timechara-01-") for name in files) and "timechara-" in " ".join(files)
    table5 = next((tmp_path / "tables").glob("timechara-01-*.csv"))
    header = next(csv.reader(table5.open()))
    assert header[:3] == ["Model", "Method", "Future"]
    plain = _report(*ids, "--runs", str(report_runs["runs_path"]), home=tmp_path)
    assert plain.returncode == 0 and "| Model | Method | Future |" in plain.stdout and "data:image" not in plain.stdout
