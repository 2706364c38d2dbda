"""CoSER files: the per-book JSON and the test-set JSON read (errors name the file and the JSON
path of the first bad field) and written atomically. The layouts are in ``formats``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from incanon import reading
from incanon.bench.coser.formats import BookData, Domain, TestSample
from incanon.errors import InputError, NotFoundError
from incanon.files import write_text_atomic


def write_json(path: str | os.PathLike[str], data: Any) -> Path:
    return write_text_atomic(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def read_json(path: str | os.PathLike[str], what: str = "file") -> Any:
    """Parse a JSON file with ``incanon.reading`` (missing, directory, empty, not UTF-8, a
    pickle, NaN, huge integers, nesting too deep: one NotFoundError / InputError line)."""
    return reading.read_json(path, what)


def _json_path(loc: tuple[int | str, ...], prefix: str = "") -> str:
    out = prefix
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _validate(model: type[BaseModel], data: Any, *, source: str, prefix: str = "") -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = _json_path(tuple(first["loc"]), prefix)
        raise InputError(f"{first['msg']}", source=source, where=where) from None


def book_from_data(data: Any, *, title: str, source: str = "<data>") -> BookData:
    if not isinstance(data, dict):
        raise InputError("expected a JSON object with 'plots'", source=source, where="(top level)")
    if "plots" not in data:
        raise InputError("missing field 'plots'", source=source, where="plots")
    book = _validate(BookData, data, source=source)
    if not book.title:
        book.title = title
    return book


def load_book(path: str | os.PathLike[str]) -> BookData:
    """Read one per-book JSON file; the title is the file name without ``.json``."""
    file = Path(path)
    return book_from_data(read_json(file), title=file.stem, source=str(file))


def load_books(directory: str | os.PathLike[str]) -> list[BookData]:
    """Every ``*.json`` per-book file of a folder, by file name."""
    folder = Path(directory)
    if not folder.is_dir():
        raise NotFoundError(f"{folder} is not a folder of CoSER book files")
    return [load_book(p) for p in sorted(folder.glob("*.json")) if not p.name.startswith(".")]


_HELD_OUT_DOMAINS: dict[str, Domain] = {"id": "in-domain", "ood": "out-of-domain"}


def is_held_out(data: Any) -> bool:
    """True for the released ``held_out_plots.json`` layout: ``{"id"|"ood": {book: {...}}}``."""
    return isinstance(data, dict) and bool(data) and set(data) <= set(_HELD_OUT_DOMAINS) and all(
        isinstance(v, dict) for v in data.values())


def held_out_books(data: Any, *, source: str) -> tuple[list[BookData], dict[str, Domain]]:
    """Books of a ``held_out_plots.json`` document (only held-out plots, each with its ``i_p``;
    profiles as character datasets) and each book's domain."""
    books: list[BookData] = []
    domains: dict[str, Domain] = {}
    for key, entries in data.items():
        for title, entry in entries.items():
            where = f"{key}.{title}"
            if not isinstance(entry, dict) or not isinstance(entry.get("plots"), list):
                raise InputError("expected an object with 'plots' (a list)", source=source, where=f"{where}.plots")
            profiles = entry.get("character_profiles") or {}
            if not isinstance(profiles, dict):
                raise InputError("expected an object of name → profile", source=source,
                                 where=f"{where}.character_profiles")
            book = _validate(BookData, {"plots": entry["plots"], "split_plot_index": 0,
                                        "character_datasets": {n: {"profile": p} for n, p in profiles.items()}},
                             source=source, prefix=where)
            book.title = title
            books.append(book)
            domains[title] = _HELD_OUT_DOMAINS[key]
    return books, domains


def load_sampling_source(path: str | os.PathLike[str]) -> tuple[list[BookData], dict[str, Domain]]:
    """Books to sample a test set from: a folder of per-book files (in the reference's book
    order, no domains) or a ``held_out_plots.json`` file (its domains)."""
    from incanon.bench.coser.sampling import stable_order

    source = Path(path)
    if source.is_dir():
        books = {b.title: b for b in load_books(source)}
        return [books[t] for t in stable_order(books)], {}
    data = read_json(source)
    if not is_held_out(data):
        raise InputError("expected a folder of per-book files or held_out_plots.json "
                         "({\"id\": {book: {\"character_profiles\", \"plots\"}}, \"ood\": {...}})",
                         source=str(source), where="(top level)")
    return held_out_books(data, source=str(source))


def write_book(book: BookData, path: str | os.PathLike[str]) -> Path:
    return write_json(path, book.published())


def load_test_set(path: str | os.PathLike[str]) -> list[TestSample]:
    """Read a test-set JSON list (published or sampled here); motivations from either field name."""
    file = Path(path)
    data = read_json(file)
    if isinstance(data, dict) and isinstance(data.get("samples"), list):
        data = data["samples"]
    if is_held_out(data):
        raise InputError("this is held_out_plots.json (the pool a test set is drawn from), not a test set: "
                         "draw one with `incanon coser sample FILE --out test.json`", source=str(file),
                         where="(top level)")
    if not isinstance(data, list):
        raise InputError("expected a JSON list of test samples", source=str(file), where="(top level)")
    for i, row in enumerate(data):
        check_case(row, source=str(file), prefix=f"[{i}]")
    return [_validate(TestSample, row, source=str(file), prefix=f"[{i}]") for i, row in enumerate(data)]


_MESSAGE_KEYS = ("message", "thought", "description", "content", "text")


def check_case(row: Any, *, source: str, prefix: str) -> None:
    """A test case has what the evaluator reads without defaults: a ``scenario`` (text), a
    non-empty ``dialogues`` list, and a speaker and message text in every turn."""
    if not isinstance(row, dict):
        raise InputError("expected a JSON object (a test case)", source=source, where=prefix)
    if not isinstance(row.get("scenario"), str):
        raise InputError("missing field 'scenario' (text)" if "scenario" not in row else "'scenario' must be text",
                         source=source, where=f"{prefix}.scenario")
    dialogues = row.get("dialogues")
    if not isinstance(dialogues, list) or not dialogues:
        problem = "missing field 'dialogues'" if "dialogues" not in row else "'dialogues' must be a non-empty list"
        raise InputError(problem, source=source, where=f"{prefix}.dialogues")
    for j, turn in enumerate(dialogues):
        where = f"{prefix}.dialogues[{j}]"
        if not isinstance(turn, dict):
            raise InputError("expected an object with 'character' and 'message'", source=source, where=where)
        if not isinstance(turn.get("character", turn.get("name", turn.get("speaker"))), str):
            raise InputError("missing field 'character' (text)", source=source, where=f"{where}.character")
        if not any(isinstance(turn.get(k), str) for k in _MESSAGE_KEYS):
            raise InputError("missing field 'message' (text)", source=source, where=f"{where}.message")


def write_test_set(samples: list[TestSample], path: str | os.PathLike[str]) -> Path:
    return write_json(path, [s.published() for s in samples])
