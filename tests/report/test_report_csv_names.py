"""Each CSV of ``incanon report --csv`` is named for its table, not only numbered."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from incanon.testing.cli import run_cli

REPO = Path(__file__).resolve().parents[2]


def _cli(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, INCANON_HOME=str(home))
    env.pop("INCANON_CANON", None)
    return run_cli(args, cwd=cwd, env=env)


def test_tables_under_one_heading_get_names_of_their_own(tmp_path):
    sharp = REPO / "examples" / "sharp"
    ran = _cli("sharp", "eval", "--model", f"scripted:{sharp / 'agent.json'}", "--judge",
               f"scripted:{sharp / 'detector.json'}", "--claims", str(sharp / "claims_en.jsonl"), "--mode", "factual",
               "--runs", "runs.sqlite", "--json", cwd=tmp_path, home=tmp_path / "home")
    assert ran.returncode == 0, ran.stderr
    res = _cli("report", "sharp", "--runs", "runs.sqlite", "--csv", "tables", cwd=tmp_path, home=tmp_path / "home")
    assert res.returncode == 0, res.stderr
    names = sorted(p.name for p in (tmp_path / "tables").iterdir())
    assert len(names) >= 8
    # Without their numbers the names still differ: six tables sat under one heading before.
    unnumbered = [re.sub(r"^sharp-\d\d-", "", name) for name in names]
    assert len(set(unnumbered)) == len(unnumbered), names
    for expected in ("stance-transfer-ratio-difference-by-claim-factuality-table-5.csv", "per-role.csv",
                     "interaction-frequency-sr-and-ar-over-roles-figure-3.csv", "scores-by-run.csv"):
        assert expected in unnumbered, names


def test_a_shared_title_is_told_apart_by_columns():
    from incanon.report.model import Block, Report, Section, Table
    from incanon.report.write import report_tables
    from datetime import datetime, timezone

    one = Table(columns=["Affection", "SR", "AR"], rows=[["high", "1", "0"]])
    two = Table(columns=["Role", "SR"], rows=[["Dace", "1"]])
    section = Section(benchmark="sharp", title="SHARP",
                      blocks=[Block(kind="heading", text="Model A"), Block(kind="table", table=one),
                              Block(kind="table", table=two)])
    names = [name for name, _ in report_tables(Report(title="r", created=datetime.now(timezone.utc), sections=[section]))]
    assert names == ["sharp-01-affection-sr-ar-model-a.csv", "sharp-02-role-sr-model-a.csv"]
