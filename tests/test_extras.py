"""A lean core: the builder's API runs without any extra, and a command that needs a missing extra
says which in one line (exit 2), never a traceback about a module the user never installed."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from incanon.extras import EXTRAS, MissingExtraError, extra_of, missing_extra, require
from incanon.testing.cli import run_main

ROOT = Path(__file__).resolve().parents[1]


def _hide(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make ``modules`` look uninstalled to find_spec and to import."""
    real = importlib.util.find_spec

    def find_spec(name: str, *args: object, **kwargs: object) -> object:
        return None if name.split(".", 1)[0] in modules else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    for name in list(sys.modules):
        if name.split(".", 1)[0] in modules:
            monkeypatch.setitem(sys.modules, name, None)
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


def test_every_module_belongs_to_one_extra_and_other_imports_are_not_claimed() -> None:
    owners = [m for modules in EXTRAS.values() for m in modules]
    assert len(owners) == len(set(owners))
    assert extra_of("matplotlib.figure") == "plot" and extra_of("fastapi") == "serve" and extra_of("punkt.data") == "bench"
    assert extra_of("incanon.serve") is None and missing_extra(ModuleNotFoundError("no", name="numpyy")) is None
    found = missing_extra(ModuleNotFoundError("No module named 'sacrebleu'", name="sacrebleu"))
    assert found is not None and str(found).endswith("fix: pip install 'incanon[bench]'")


def test_require_names_the_extra_and_another_way(monkeypatch: pytest.MonkeyPatch) -> None:
    _hide(monkeypatch, "matplotlib")
    with pytest.raises(MissingExtraError, match=r"charts needs incanon's 'plot' extra \(matplotlib is not installed\); "
                                                 r"fix: pip install 'incanon\[plot\]' \(or pass --no-plots\)"):
        require("plot", "charts", "or pass --no-plots")
    require("serve", "the server")  # installed here: no error


def test_serve_without_its_extra_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _hide(monkeypatch, "fastapi", "uvicorn", "starlette")
    assert run_main(["serve", "--port", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "incanon serve needs incanon's 'serve' extra" in err[0]
    assert "pip install 'incanon[serve]'" in err[0]


def test_an_import_of_a_missing_extra_anywhere_in_a_command_is_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """No up-front check: the import itself fails inside the command, and the command line maps it."""
    import incanon.cli.report as report_cli

    def needs_charts(*args: object, **kwargs: object) -> None:
        import matplotlib  # noqa: F401  (hidden below: fails as on a lean install)

    _hide(monkeypatch, "matplotlib")
    monkeypatch.setattr("incanon.extras.require", needs_charts)
    monkeypatch.setattr(report_cli, "__name__", report_cli.__name__)  # the module stays imported
    code = run_main(["report", "no-such-run", "--runs", str(tmp_path / "runs.sqlite"), "--html", str(tmp_path / "r.html")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "this needs incanon's 'plot' extra (matplotlib is not installed); fix: pip install 'incanon[plot]'" in err[0]


def test_the_builders_api_runs_with_no_extra_installed(tmp_path: Path) -> None:
    """In a fresh interpreter where every extra's modules fail to import: the store, the scoped
    builder, the agents and a scripted model still work on the sample world."""
    hidden = sorted(m for modules in EXTRAS.values() for m in modules)
    script = textwrap.dedent(f"""
        import sys, json
        for name in {hidden!r}:
            sys.modules[name] = None  # import fails as when the extra is not installed
        from incanon import CanonStore, persona_at, character_at, create_agent, load_chat_model
        from incanon.sample import sample_world
        import asyncio
        from incanon.models import ScriptedModel
        store = CanonStore.open({str(tmp_path / 'canon')!r})
        store.import_world(sample_world())
        persona = persona_at(store, "lanterns", "Wren Callow", "1-2-1")
        who = character_at(store, "lanterns", "Wren Callow", "1-2-1")
        model = load_chat_model(ScriptedModel(default="I keep the lamps."))
        from incanon.agents import Turn
        reply = asyncio.run(create_agent("zero-shot", model).respond(who, [Turn(speaker="user", text="Who are you?")]))
        print(json.dumps({{"name": persona.name, "reply": reply.text,
                           "loaded": sorted(m for m in {hidden!r} if sys.modules.get(m))}}))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"name": "Wren Callow", "reply": "I keep the lamps.", "loaded": []}
