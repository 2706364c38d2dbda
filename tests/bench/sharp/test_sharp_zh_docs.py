"""docs/sharp.md's Chinese section: its commands run as written and print its Table 4."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path
from incanon.testing.cli import run_cli

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "sharp.md"


def _section() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("## Chinese claims, a Chinese script")
    return text[start:text.index("## On the embedded model")]


def _commands(section: str) -> list[str]:
    joined = section.replace("\\\n", " ")
    return [line[2:].strip() for line in joined.splitlines() if line.startswith("$ incanon ")]


def test_chinese_section_runs_as_written(tmp_path):
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    env = dict(os.environ, INCANON_HOME=str(tmp_path / "home"))
    section = _section()
    outputs = []
    for command in _commands(section):
        args = shlex.split(command)[1:]
        res = run_cli(args, cwd=tmp_path, env=env, timeout=300)
        assert res.returncode == 0, (command, res.stderr)
        outputs.append(res.stdout)
    assert len(outputs) == 8
    table4 = re.findall(r"^\| scripted:examples/sharp/agent_zh\.json .*$", section, re.M)
    assert len(table4) == 2 and all(row in outputs[-1] for row in table4)
    assert "| Factual | - | +100.00% (adv.) | +0.00% (adv.) | - | +100.00% (adv.) |" in outputs[-1]
    assert "周伯                      2 scenes  high  师叔 [mapping]" in outputs[4]
