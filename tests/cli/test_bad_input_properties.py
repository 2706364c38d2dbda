"""The bad-input corpus hunts for itself on the command line: Hypothesis writes world files and
character cards (valid ones with one field made hostile, and arbitrary JSON) and builds command
lines of hostile arguments (control characters, lone surrogates, long text, numbers of thousands
of digits). Whatever comes, the command ends with exit 0 or with one line and exit 2; nothing it
prints holds a raw control character or a long argument whole, and there is never a traceback.
Each test is bounded by its example count (a few seconds); INCANON_HYPOTHESIS_EXAMPLES=2000
hunts harder."""

from __future__ import annotations

import itertools
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from incanon.canon import CanonStore
from incanon.testing.cli import run_main
from incanon.testing.worlds import mini_world

SETTINGS = settings(max_examples=int(os.environ.get("INCANON_HYPOTHESIS_EXAMPLES", "40")), deadline=None,
                    database=None, print_blob=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
#: An argument or field this long must never be printed whole.
LONG = 100
#: Characters that must never reach the terminal raw.
RAW_CONTROLS = "\x00\x07\x08\x1b\x7f\x9b\r"

any_text = st.text(st.characters(exclude_categories=()), max_size=30)
hostile_text = st.one_of(
    any_text,
    st.sampled_from(["\x1b[31m", "\x1b]52;c;aGk=\x07", "\x9b2J", "\ud800", "\udcff", "\u202e", "\r", "[/]", "{{char}}",
                     "", " ", "-", "--help"]),
    st.integers(1, 2).map(lambda n: "9" * (4300 * n + 1)),
    st.integers(LONG, 3_000).map(lambda n: "y" * n),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | hostile_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(hostile_text, inner, max_size=3),
    max_leaves=8,
)


# -- the checks ----------------------------------------------------------------------------

def _strings(value: Any) -> list[str]:
    """Every string of ``value`` (keys too)."""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            stack += [*item.keys(), *item.values()]
        elif isinstance(item, (list, tuple)):
            stack += item
    return found


def assert_safe_run(code: int, out: str, err: str, given_: Any) -> None:
    """Exit 0, or one error line and exit 2; no traceback, no raw control character, no long
    string of ``given_`` printed whole."""
    assert "Traceback" not in err, err[-1500:]
    assert code in (0, 2), f"exit {code}: {err[-600:]}"
    if code == 2:
        errors = [line for line in err.strip().splitlines() if line.startswith("error:")]
        assert len(errors) == 1, f"expected one error line: {err[-600:]}"
    printed = out + err
    assert not any(ch in printed for ch in RAW_CONTROLS), f"a raw control character in {printed[-300:]!r}"
    assert not any(0xD800 <= ord(ch) <= 0xDFFF for ch in printed), "a lone surrogate printed"
    for text in _strings(given_):
        if len(text) >= LONG:
            assert text[:LONG] not in err, f"the error echoes {text[:40]!r}…"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A canon store with the mini world, and room for each example's files."""
    root = tmp_path_factory.mktemp("properties")
    with CanonStore.open(root / "canon") as store:
        store.import_world(mini_world())
    (root / "rules.json").write_text('{"rules": [], "default": "ok"}', encoding="utf-8")
    return root


_examples = itertools.count()


def _fresh(workspace: Path) -> Path:
    """A new empty folder for one example."""
    folder = workspace / f"example-{next(_examples)}"
    folder.mkdir()
    return folder


@pytest.fixture(autouse=True)
def _home(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INCANON_HOME", str(workspace / "home"))


# -- documents with one hostile field ------------------------------------------------------

def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside ``doc``."""
    found = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc[:3]):  # the first few items of a list are enough
            found += _paths(value, (*prefix, index))
    return found


def _replaced(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of ``doc`` with the value at ``path`` replaced by ``value``."""
    if not path:
        return value
    copy = json.loads(json.dumps(doc))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return copy


def mutated(base: dict[str, Any]) -> st.SearchStrategy[Any]:
    """``base`` with one value anywhere in it replaced by a hostile one, or any JSON at all."""
    paths = _paths(base)
    return st.one_of(
        st.builds(lambda path, value: _replaced(base, path, value), st.sampled_from(paths), json_values),
        json_values,
    )


WORLD = json.loads(mini_world().model_dump_json())
CARD = {"spec": "chara_card_v2", "spec_version": "2.0",
        "data": {"name": "Mira Vale", "description": "A lamplighter.", "personality": "kind", "scenario": "",
                 "first_mes": "*The harbour.* Hello.", "mes_example": "<START>\n{{user}}: Hi\n{{char}}: Hello",
                 "alternate_greetings": ["Evening."], "tags": ["x"],
                 "character_book": {"entries": [{"keys": ["lamp"], "content": "The lamps are lit at dusk.",
                                                 "enabled": True, "insertion_order": 0}]}}}


def _write_json(path: Path, doc: Any) -> Path:
    # ensure_ascii: lone surrogates are written as the \ud800 escapes a hostile file holds.
    path.write_text(json.dumps(doc, ensure_ascii=True), encoding="utf-8")
    return path


@SETTINGS
@given(doc=mutated(WORLD))
def test_any_world_file_imports_or_is_one_line(workspace, capsys, doc):
    folder = _fresh(workspace)
    try:
        world = _write_json(folder / "world.json", doc)
        code, out, err = _run(["canon", "import", str(world), "--store", str(folder / "store")], capsys)
        assert_safe_run(code, out, err, doc)
        if code == 0:
            code, out, err = _run(["canon", "show", str(doc["work"]["id"]), "--store", str(folder / "store")], capsys)
            assert_safe_run(code, out, err, doc)
    finally:
        shutil.rmtree(folder)


@SETTINGS
@given(doc=mutated(CARD))
def test_any_card_imports_or_is_one_line_and_shows_escaped(workspace, capsys, doc):
    folder = _fresh(workspace)
    try:
        card = _write_json(folder / "card.json", doc)
        store = str(folder / "store")
        code, out, err = _run(["canon", "card", "import", str(card), "--store", store, "--work", "w"], capsys)
        assert_safe_run(code, out, err, doc)
        if code == 0:
            for argv in (["canon", "show", "--store", store], ["canon", "show", "w", "--store", store],
                         ["canon", "scope", "--store", store, "--work", "w", "--at", "1-1-1"]):
                code, out, err = _run(argv, capsys)
                assert_safe_run(code, out, err, doc)
    finally:
        shutil.rmtree(folder)


# -- command lines of hostile arguments ----------------------------------------------------

def _command(kind: str, a: str, b: str, c: str, canon: str, out: str) -> list[str]:
    """A reading command with the hostile arguments ``a``, ``b``, ``c`` in its free slots."""
    return {
        "show": ["canon", "show", a, "--store", canon],
        "scope": ["canon", "scope", "--store", canon, "--work", a, "--character", b, "--at", c],
        "scope-lanterns": ["canon", "scope", "--store", canon, "--work", "lanterns", "--character", "Wren", "--at", c],
        "export": ["canon", "export", a, "--store", canon, "--out", out],
        "card": ["canon", "card", "export", "--store", canon, "--work", "lanterns", "--character", b, "--at", c,
                 "--out", out + ".json"],
        "unknown": [a, b],
        "option": ["canon", "show", "--store", canon, a],
        "runs": ["runs", "show", a, "--runs", out + ".sqlite"],
    }[kind]


@SETTINGS
@given(kind=st.sampled_from(["show", "scope", "scope-lanterns", "export", "card", "unknown", "option", "runs"]),
       a=hostile_text, b=hostile_text, c=st.one_of(hostile_text, st.sampled_from(["1-3", "end of book 1", "2-3-1"])))
def test_any_arguments_give_exit_0_or_one_line(workspace, capsys, kind, a, b, c):
    folder = _fresh(workspace)
    try:
        argv = _command(kind, a, b, c, str(workspace / "canon"), str(folder / "out"))
        code, out, err = _run(argv, capsys)
        assert_safe_run(code, out, err, [a, b, c])
    finally:
        shutil.rmtree(folder)
