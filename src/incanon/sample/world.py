"""The packaged sample world, *The Lanterns of Harrowmere*: its files and the ``World`` built from them."""

from __future__ import annotations

import atexit
import contextlib
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from incanon.canon.world import World
from incanon.ingest.markdown_book import ParsedBook, parse_markdown_book
from incanon.ingest.transcript import Session, parse_transcript
from incanon.sample.assemble import assemble_world, fold

SAMPLE_WORK_ID = "lanterns"
_BOOK_FILES = ("book1.md", "book2.md", "book3.md")
_SCRIPT_FILE = "script.txt"
_ANNOTATIONS_FILE = "annotations.json"


@dataclass(frozen=True)
class SamplePaths:
    """Where the sample world's files are on disk."""

    root: Path
    books: tuple[Path, ...]
    script: Path
    annotations: Path


@cache
def _root() -> Path:
    traversable = resources.files("incanon").joinpath("data", "sample_world")
    if isinstance(traversable, Path):
        return traversable
    # A zipped install: extract once and keep the files for the life of the process.
    stack = contextlib.ExitStack()
    atexit.register(stack.close)
    return Path(stack.enter_context(resources.as_file(traversable)))


def sample_paths() -> SamplePaths:
    """The paths of the three books, the script and the annotations."""
    root = _root()
    return SamplePaths(
        root=root,
        books=tuple(root / name for name in _BOOK_FILES),
        script=root / _SCRIPT_FILE,
        annotations=root / _ANNOTATIONS_FILE,
    )


@cache
def _text(name: str) -> str:
    return (_root() / name).read_text(encoding="utf-8")


@cache
def sample_books() -> tuple[ParsedBook, ...]:
    """The three books, parsed."""
    return tuple(parse_markdown_book(_text(name), source=name) for name in _BOOK_FILES)


@cache
def sample_sessions() -> tuple[Session, ...]:
    """The dated dialogue sessions of the script, parsed."""
    return tuple(parse_transcript(_text(_SCRIPT_FILE), source=_SCRIPT_FILE))


def ground_truth() -> dict[str, Any]:
    """The hand-written annotations as plain JSON data (a fresh copy each call)."""
    return json.loads(_text(_ANNOTATIONS_FILE))


@cache
def _world() -> World:
    return assemble_world(
        ground_truth(), books=sample_books(), sessions=sample_sessions(), source=_ANNOTATIONS_FILE
    )


def sample_world() -> World:
    """The whole sample canon, validated: annotations + chunks of the books + the script's dialogue.

    Built once per process; each call returns a deep copy, so callers may change it freely.
    """
    return _world().model_copy(deep=True)


def name_index(world: World, *, entities: bool = True) -> dict[str, str]:
    """Every character (and, with ``entities``, entity) name and alias, folded → canonical name."""
    table: dict[str, str] = {}
    if entities:
        for entity in world.entities:
            for name in [entity.name, *entity.aliases]:
                table[fold(name)] = entity.name
    for character in world.characters:  # characters win over same-named entities
        for name in [character.name, *character.aliases]:
            table[fold(name)] = character.name
    return table
