"""Row validation for TimeChara item files: every problem of every row, then one clear error.

A file with one bad row in ten thousand should say which row and which field, and a file that is
wrong throughout (another format) should say so in one line, not ten thousand.
"""

from __future__ import annotations

import ast
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from pydantic import ValidationError

from incanon.bench.timechara.items import (
    ALLOWED_TYPES,
    DATA_TYPES,
    NO_LABEL,
    QUESTION_GENERATIONS,
    SPATIAL_TYPES,
    TimeCharaItem,
)
from incanon.canon.position import Position
from incanon.errors import InputError

_REQUIRED = ("series", "question_generation", "question", "character", "character_period",
             "data_type", "temporal_label")
_KNOWN = frozenset(TimeCharaItem.model_fields)
_ALIASES = {"event": "event_summary"}  # the reference code writes fake rows with ``event``
_SHOWN = 5


@dataclass(frozen=True)
class Unreadable:
    """A row a reader could not parse at all (e.g. a line that is not JSON)."""

    message: str


@dataclass(frozen=True)
class RowProblem:
    """One problem of one row: where (``line 4``, ``row 3``), which field, what is wrong."""

    where: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}, {self.field}: {self.message}"


def _participants(value: Any) -> Any:
    # Published copies store the list as a list; CSV-ish exports as "['A', 'B']" text.
    if isinstance(value, str):
        text = value.strip()
        if not text or text == NO_LABEL:
            return []
        for parse in (json.loads, ast.literal_eval):
            try:
                parsed = parse(text)
            except (ValueError, SyntaxError):
                continue
            if isinstance(parsed, (list, tuple)):
                return list(parsed)
        return [p.strip() for p in text.split(",") if p.strip()]
    return value


def normalize_row(row: Mapping[str, Any], default_id: str) -> dict[str, Any]:
    """The row with aliases resolved, unknown fields moved to ``extra`` and scalars as text."""
    data: dict[str, Any] = {}
    extra: dict[str, Any] = dict(row.get("extra") or {}) if isinstance(row.get("extra"), Mapping) else {}
    for key, value in row.items():
        alias = _ALIASES.get(key)
        if alias is not None and alias not in row:
            key = alias
        if key == "extra":
            continue
        if key not in _KNOWN:
            extra[key] = value
            continue
        data[key] = value
    for key in ("fake_method", "question_period", "character_period", "series", "id"):
        if isinstance(data.get(key), (int, float)) and not isinstance(data.get(key), bool):
            data[key] = str(data[key])
    if "participants" in data:
        data["participants"] = _participants(data["participants"])
    if data.get("spatial_label") in (None, ""):
        data["spatial_label"] = NO_LABEL
    if data.get("fake_method") in (None, ""):
        data["fake_method"] = NO_LABEL
    for key in ("event_summary", "question_period", "gold_response", "personality_label"):
        if data.get(key) is None:
            data.pop(key, None)
    if not data.get("id"):
        data["id"] = default_id
    data["extra"] = extra
    return data


def check_row(data: Mapping[str, Any], where: str) -> tuple[TimeCharaItem | None, list[RowProblem]]:
    """Validate one normalized row; returns the item (None if any problem) and the problems."""
    problems: list[RowProblem] = []

    def bad(field: str, message: str) -> None:
        problems.append(RowProblem(where, field, message))

    for field in _REQUIRED:
        value = data.get(field)
        if value is None or (isinstance(value, str) and not value.strip()):
            bad(field, "missing or empty")
    qg, dt = data.get("question_generation"), data.get("data_type")
    if isinstance(qg, str) and qg and qg not in QUESTION_GENERATIONS:
        bad("question_generation", f"{qg!r} is not one of {', '.join(QUESTION_GENERATIONS)}")
    if isinstance(dt, str) and dt and dt not in DATA_TYPES:
        bad("data_type", f"{dt!r} is not one of {', '.join(DATA_TYPES)}")
    if qg in ALLOWED_TYPES and dt in DATA_TYPES and dt not in ALLOWED_TYPES[qg]:
        bad("data_type", f"{dt!r} cannot go with question_generation {qg!r} "
                         f"(allowed: {', '.join(sorted(ALLOWED_TYPES[qg]))})")
    if dt in SPATIAL_TYPES and str(data.get("spatial_label", NO_LABEL)).strip() in ("", NO_LABEL):
        bad("spatial_label", f"a {dt} item needs a spatial label")
    participants = data.get("participants", [])
    if not isinstance(participants, list) or not all(isinstance(p, str) for p in participants):
        bad("participants", "expected a list of names")
    if data.get("character_position"):
        try:
            Position.parse(str(data["character_position"]))
        except InputError as exc:
            bad("character_position", str(exc))
    if problems:
        return None, problems
    try:
        return TimeCharaItem.model_validate(data), []
    except ValidationError as exc:
        for error in exc.errors():
            field = ".".join(str(p) for p in error["loc"]) or "row"
            bad(field, error["msg"])
        return None, problems


def raise_problems(problems: list[RowProblem], rows: int, source: str, what: str = "TimeChara items") -> None:
    """One ``InputError`` naming the first few problems and counting the rest, or nothing."""
    if not problems:
        return
    bad_rows = len({p.where for p in problems})
    by_field = Counter(p.field for p in problems)
    shown = "; ".join(str(p) for p in problems[:_SHOWN])
    more = f"; and {len(problems) - _SHOWN} more" if len(problems) > _SHOWN else ""
    fields = ", ".join(f"{name} {count}" for name, count in by_field.most_common())
    raise InputError(
        f"{bad_rows} of {rows} rows are not valid {what} ({len(problems)} problems; "
        f"by field: {fields}): {shown}{more}",
        source=source,
    )


def validate_rows(rows: Iterable[tuple[str, Any]], source: str) -> list[TimeCharaItem]:
    """Validate ``(where, row)`` pairs; all items, or one ``InputError`` listing the problems."""
    items: list[TimeCharaItem] = []
    problems: list[RowProblem] = []
    count = 0
    seen: dict[str, str] = {}
    for index, (where, row) in enumerate(rows):
        count += 1
        if isinstance(row, Unreadable):
            problems.append(RowProblem(where, "row", row.message))
            continue
        if not isinstance(row, Mapping):
            problems.append(RowProblem(where, "row", f"expected a JSON object, got {type(row).__name__}"))
            continue
        item, found = check_row(normalize_row(row, default_id=f"{index:05d}"), where)
        if item is not None and item.id in seen:
            found = [RowProblem(where, "id", f"{item.id!r} repeats the id of {seen[item.id]}")]
            item = None
        problems.extend(found)
        if item is not None:
            seen[item.id] = where
            items.append(item)
    if count == 0:
        raise InputError("no rows: the file holds no TimeChara items", source=source)
    raise_problems(problems, count, source)
    return items
