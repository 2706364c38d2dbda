"""Read TimeChara items from a local file or a local Hugging Face ``datasets`` folder.

Accepted: ``.jsonl`` (one item per line), ``.json`` (a list, ``{"data": [...]}`` or
``{"validation": [...], "test": [...]}``), ``.parquet`` and ``.arrow`` files, and folders
written by ``datasets``' ``save_to_disk`` (``dataset_dict.json`` + one folder per split, each
with ``state.json`` and arrow files) or downloaded hub layouts (``data/<split>-*.parquet``).
Parquet and arrow need ``pyarrow`` (``pip install pyarrow``); JSON and JSONL need nothing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Iterator

from incanon.bench.timechara.items import TimeCharaItem
from incanon.bench.timechara.validate import Unreadable, validate_rows
from incanon.errors import ConfigError, InputError, NotFoundError
from incanon.files import write_lines_atomic
from incanon.reading import check_file_or_folder, read_json, walk_files
from incanon.jsonlines import iter_jsonl_lenient

_DATA_SUFFIXES = (".jsonl", ".json", ".parquet", ".arrow")
_METADATA = {"dataset_info.json", "state.json", "dataset_dict.json"}
DEFAULT_SPLIT = "validation"
"""The published set's 600-item split (its ``test`` split holds all 10,895)."""

Rows = Iterator[tuple[str, Any]]


def _pyarrow() -> Any:
    try:
        import pyarrow  # noqa: F401
        import pyarrow.ipc  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise ConfigError("reading parquet or arrow files needs pyarrow: pip install pyarrow") from None
    return pyarrow


def _jsonl_rows(path: Path) -> Rows:
    for where, value in iter_jsonl_lenient(path, "items file"):
        if isinstance(value, InputError):
            # The message without its "file (line N): " prefix: the row problem list adds those.
            yield where, Unreadable(str(value).split("): ", 1)[-1])
        else:
            yield where, value


def _json_rows(path: Path, split: str | None) -> Rows:
    data = read_json(path, "items file")
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        data = data["data"]
    elif isinstance(data, dict) and data and all(isinstance(v, list) for v in data.values()):
        data = data[_pick_split(sorted(data), split, str(path))]
    if not isinstance(data, list):
        raise InputError("expected a list of items, {'data': [...]} or {split: [...]}", source=str(path))
    for index, row in enumerate(data):
        yield f"row {index}", row


def _table_rows(path: Path) -> Rows:
    pa = _pyarrow()
    if path.suffix == ".parquet":
        table = pa.parquet.read_table(path)
    else:
        # save_to_disk writes the arrow IPC *stream* format; plain arrow files are IPC files.
        try:
            with pa.memory_map(str(path)) as source:
                table = pa.ipc.open_stream(source).read_all()
        except pa.ArrowInvalid:
            with pa.memory_map(str(path)) as source:
                table = pa.ipc.open_file(source).read_all()
    for index, row in enumerate(table.to_pylist()):
        yield f"{path.name} row {index}", row


def _pick_split(splits: list[str], split: str | None, source: str) -> str:
    if split is not None:
        if split not in splits:
            raise NotFoundError(f"{source} has no split {split!r}; splits: {', '.join(splits)}")
        return split
    if len(splits) == 1:
        return splits[0]
    if DEFAULT_SPLIT in splits:
        return DEFAULT_SPLIT
    raise ConfigError(f"{source} has several splits ({', '.join(splits)}); choose one with --split")


def _split_files(folder: Path, split: str | None) -> list[Path]:
    """The data files of one split of a ``datasets`` folder, in order."""
    dict_file = folder / "dataset_dict.json"
    if dict_file.is_file():
        meta = read_json(dict_file, "datasets split list")
        splits = (meta.get("splits") if isinstance(meta, dict) else None) or sorted(
            p.name for p in folder.iterdir() if p.is_dir())
        return _split_files(folder / _pick_split(list(splits), split, str(folder)), None)
    state = folder / "state.json"
    if state.is_file():
        meta = read_json(state, "datasets state file")
        files = meta.get("_data_files", []) if isinstance(meta, dict) else []
        names = [f["filename"] for f in files if isinstance(f, dict) and isinstance(f.get("filename"), str)]
        if names:
            return [folder / name for name in names]
    files = [p for p in walk_files(folder, "TimeChara data folder") if p.suffix in _DATA_SUFFIXES
             and p.name not in _METADATA and not p.name.startswith(".")]
    # Hub layouts name files by split: data/validation-00000-of-00001.parquet, test/...
    by_split: dict[str, list[Path]] = {}
    for path in files:
        for part in (path.parent.name, path.name.split("-")[0].split(".")[0]):
            if part in ("train", "validation", "test", "dev"):
                by_split.setdefault(part, []).append(path)
                break
    if by_split and len(by_split) > 1 or (by_split and split is not None):
        return by_split[_pick_split(sorted(by_split), split, str(folder))]
    return files


def iter_rows(path: str | Path, split: str | None = None) -> Iterator[tuple[str, Any]]:
    """``(where, raw row)`` pairs of a file or ``datasets`` folder, without validation."""
    path = Path(path).expanduser()
    if not os.path.lexists(path):
        raise NotFoundError(f"no TimeChara data at {path}")
    path = check_file_or_folder(path, "TimeChara data")
    files = _split_files(path, split) if path.is_dir() else [path]
    if not files:
        raise InputError("the folder holds no .jsonl, .json, .parquet or .arrow files", source=str(path))
    for file in files:
        suffix = file.suffix.lower()
        if suffix == ".jsonl":
            yield from _jsonl_rows(file)
        elif suffix == ".json":
            yield from _json_rows(file, split)
        elif suffix in (".parquet", ".arrow"):
            yield from _table_rows(file)
        else:
            raise InputError(f"unknown file type {suffix!r}; expected .jsonl, .json, .parquet or .arrow",
                             source=str(file))


def load_items(path: str | Path, *, split: str | None = None) -> list[TimeCharaItem]:
    """Every item of ``path``, validated; one ``InputError`` lists the bad rows by place and field."""
    return validate_rows(iter_rows(path, split), str(path))


def write_items(items: Iterable[TimeCharaItem], path: str | Path) -> int:
    """Write items as JSON Lines, atomically; returns the count."""
    return write_lines_atomic(path, (json.dumps(item.row(), ensure_ascii=False) for item in items))
