"""One option vocabulary across commands, and the older spellings that keep working for a release."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest
import typer.main

from incanon.cli.main import app
from incanon.testing.cli import run_main

#: Older spellings: still accepted (hidden from --help) with a note on stderr, for one release.
RENAMED = {
    ("coser", "simulate"): {"--actor": "--model", "--nsp": "--nsp-model", "--env": "--env-model"},
    ("sharp", "claims"): {"-n": "--limit", "--n": "--limit"},
    ("coser", "sample"): {"--n": "--limit"},
    ("graph", "build"): {"--position": "--at", "--description-budget": "--description-tokens"},
    ("canon", "build"): {"--main": "--main-count"},
    ("dialsim", "questions"): {"--main": "--character"},
    ("scene",): {"--nsp": "--nsp-model"},
    ("runs", "export"): {"-o": "--out"},
    ("canon", "import"): {"--replace": "--fresh"},
    ("dialsim", "ingest"): {"--replace": "--fresh"},
    ("coser", "curate"): {"--max-tokens": "--chunk-tokens", "--model": "--helper"},
    # The retrieval depth is a method option, spelled as in chat: -o k=N.
    ("dialsim", "run"): {"--main": "--character", "--k": "--option"},
    ("rolerag", "eval"): {"--k": "--option"},
}
#: Names the vocabulary gives no command, whatever it is called.
RETIRED = {"--actor", "-n", "--n", "--position", "--replace", "--count", "--num", "--restart", "--overwrite",
           # --main was a count in one command and a name in another; model roles end in -model.
           "--main", "--nsp", "--env", "--description-budget",
           # The retrieval depth is -o k=N everywhere, as in chat and serve.
           "--k"}
#: Every visible token budget: one meaning per name. ``--max-tokens`` is the completion limit of a
#: model call wherever it appears; a budget of anything else says what it bounds.
TOKEN_BUDGETS = {
    "--max-tokens": "completion", "--output-tokens": "completion",  # coser curate: --max-tokens was its chunk budget
    "--chunk-tokens": "chunk", "--overlap": "chunk overlap", "--profile-tokens": "profile call input",
    "--context-tokens": "remembered text in a prompt", "--description-tokens": "merged description",
}
TOKEN_OPTIONS = {
    ("canon", "build"): {"--profile-tokens"},
    ("coser", "curate"): {"--chunk-tokens", "--output-tokens"},
    ("coser", "simulate"): {"--max-tokens"},
    ("coser", "judge"): {"--max-tokens"},
    ("dialsim", "run"): {"--context-tokens"},
    ("graph", "build"): {"--chunk-tokens", "--overlap", "--max-tokens", "--description-tokens"},
    ("sharp", "eval"): {"--max-tokens"},
}
#: Commands that print no result of their own: `run` prints the commands it runs, which take --json.
NO_RESULT = {("run",)}


def _commands() -> Iterator[tuple[tuple[str, ...], Any]]:
    def walk(command: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                yield from walk(sub, (*path, name))
        else:
            yield path, command

    yield from walk(typer.main.get_command(app), ())


def _options(command: Any, hidden: bool) -> dict[str, Any]:
    return {opt: p for p in command.params if type(p).__name__.endswith("Option") and p.hidden == hidden
            for opt in (*p.opts, *p.secondary_opts)}


def test_no_visible_option_uses_a_retired_name() -> None:
    offenders = {" ".join(path): sorted(set(_options(cmd, hidden=False)) & RETIRED) for path, cmd in _commands()}
    assert not {k: v for k, v in offenders.items() if v}


def test_a_short_flag_means_one_long_option_everywhere() -> None:
    meaning: dict[str, set[str]] = {}
    for _, cmd in _commands():
        for param in cmd.params:
            if type(param).__name__.endswith("Option") and not param.hidden:
                longs = {o for o in param.opts if o.startswith("--")}
                for short in (o for o in param.opts if not o.startswith("--")):
                    meaning.setdefault(short, set()).update(longs)
    assert {short: sorted(longs) for short, longs in meaning.items() if len(longs) > 1} == {}
    assert meaning["-o"] == {"--option"}


def test_every_command_that_prints_a_result_takes_json() -> None:
    missing = [" ".join(path) for path, cmd in _commands() if path not in NO_RESULT
               and "--json" not in _options(cmd, hidden=False)]
    assert missing == []


def test_renamed_options_keep_their_old_spelling_hidden() -> None:
    commands = dict(_commands())
    for path, names in RENAMED.items():
        visible, hidden = _options(commands[path], False), _options(commands[path], True)
        for old, new in names.items():
            assert new in visible, (path, new)
            assert old in hidden, (path, old)


def test_the_vocabulary_names() -> None:
    """--model for the model under test, --limit for how many, --at for a position, --fresh to start over."""
    commands = dict(_commands())
    assert "--model" in _options(commands[("coser", "simulate")], False)
    for path in [("sharp", "claims"), ("coser", "sample"), ("sharp", "eval"), ("timechara", "eval"), ("rolerag", "eval")]:
        assert "--limit" in _options(commands[path], False), path
    for path in [("graph", "build"), ("graph", "export"), ("chat",), ("canon", "scope"), ("sharp", "eval")]:
        assert "--at" in _options(commands[path], False), path
    for path in [("canon", "import"), ("dialsim", "ingest"), ("canon", "build"), ("timechara", "eval")]:
        assert "--fresh" in _options(commands[path], False), path


def test_old_count_spelling_works_with_a_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "claims.jsonl"
    assert run_main(["sharp", "claims", "-n", "6", "--seed", "1", "--out", str(out)]) == 0
    assert len(out.read_text(encoding="utf-8").splitlines()) == 6
    assert "-n/--n is deprecated here; use --limit" in capsys.readouterr().err


def test_old_and_new_spellings_that_disagree_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "claims.jsonl"
    assert run_main(["sharp", "claims", "-n", "6", "--limit", "8", "--out", str(out)]) == 2
    assert "disagree" in capsys.readouterr().err and not out.exists()


def test_replace_still_overwrites_a_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from incanon.sample import sample_world

    world = tmp_path / "world.json"
    world.write_text(sample_world().model_dump_json(), encoding="utf-8")
    store = str(tmp_path / "canon")
    assert run_main(["canon", "import", str(world), "--store", store]) == 0
    assert run_main(["canon", "import", str(world), "--store", store]) == 2  # already there
    assert "(--fresh) to overwrite it" in capsys.readouterr().err
    assert run_main(["canon", "import", str(world), "--store", store, "--replace"]) == 0
    assert "--replace is deprecated here; use --fresh" in capsys.readouterr().err
    assert run_main(["canon", "import", str(world), "--store", store, "--fresh", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["scenes"] > 0


def test_exports_print_json_summaries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from incanon.sample import sample_world

    world = tmp_path / "world.json"
    world.write_text(sample_world().model_dump_json(), encoding="utf-8")
    store = str(tmp_path / "canon")
    assert run_main(["canon", "import", str(world), "--store", store]) == 0
    capsys.readouterr()
    back = tmp_path / "back.json"
    assert run_main(["canon", "export", sample_world().work.id, "--store", store, "--out", str(back), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["out"] == str(back) and back.is_file() and summary["counts"]["scenes"] > 0
    assert run_main(["canon", "export", sample_world().work.id, "--store", store, "--out", "-", "--json"]) == 2
    assert "give --out FILE" in capsys.readouterr().err


def test_a_token_budget_name_has_one_meaning() -> None:
    """Every visible option that bounds tokens is listed with what it bounds; `--max-tokens` is
    always a completion limit (coser curate's chunk budget is now --chunk-tokens)."""
    found = {path: names for path, cmd in _commands()
             if (names := {o for o in _options(cmd, hidden=False) if o.endswith("-tokens") or o == "--overlap"})}
    assert found == TOKEN_OPTIONS
    assert set().union(*found.values()) <= set(TOKEN_BUDGETS)


def test_curate_max_tokens_is_the_chunk_budget_still_with_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    books = "examples/coser/curate/books.jsonl"

    def plan(*budget: str) -> tuple[list[dict[str, Any]], str]:
        assert run_main(["coser", "curate", books, "--out", "unused", "--dry-run", "--json", *budget]) == 0
        said = capsys.readouterr()
        return json.loads(said.out)["books"], said.err

    small, _ = plan("--chunk-tokens", "40")
    old, note = plan("--max-tokens", "40")
    assert old == small and small[0]["chunks"] > plan()[0][0]["chunks"]
    assert "--max-tokens is deprecated here; use --chunk-tokens" in note
    assert run_main(["coser", "curate", books, "--out", "unused", "--dry-run", "--max-tokens", "40",
                     "--chunk-tokens", "100"]) == 2
    assert "--max-tokens 40 and --chunk-tokens 100 disagree" in capsys.readouterr().err
