"""The authors' output files: ``generate.py``'s and ``evaluate.py``'s JSON lists.

Both are JSON lists with one object per dataset row, in dataset order, joined on ``data_idx``
(the row's index in the split), as the authors' ``evaluate.py`` asserts:

* generation (``generated.json``): ``data_idx``, ``response``, ``thought``;
* evaluation (``eval_<mode>/evaluated.json``): those plus ``temporal_eval`` / ``temporal_score``,
  ``spatial_eval`` / ``spatial_score``, ``personality_eval`` / ``personality_score`` (``''``
  when not evaluated).

:func:`evaluate_printout` reproduces ``evaluate.py``'s printout from an evaluation file and the
dataset: per data type ``sum/count (=round(mean, 5))`` of the temporal score (future, past-only)
or temporal × spatial (past-absence, past-presence), the total, and the personality total.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from incanon.bench.timechara.items import DATA_TYPES, SPATIAL_TYPES, TimeCharaItem
from incanon.errors import InputError
from incanon.bench.timechara.scoring import authors_extract, incanon_reading
from incanon.reading import read_json

SCORE_FIELDS = {"temporal": "temporal_score", "spatial": "spatial_score", "personality": "personality_score"}


@dataclass(frozen=True)
class AuthorsRow:
    """One object of an authors' output file."""

    index: int
    response: str
    thought: Any
    scores: dict[str, Any]
    """``temporal`` / ``spatial`` / ``personality`` → the stored value (``''`` when absent)."""
    evals: dict[str, str]
    """The judges' texts, by the same keys."""


def is_authors_output(data: Any) -> bool:
    """True for a JSON list of objects with ``data_idx`` and ``response``."""
    return isinstance(data, list) and bool(data) and all(
        isinstance(r, dict) and "data_idx" in r and "response" in r for r in data)


def read_authors_output(path: str | Path, dataset_size: int) -> list[AuthorsRow]:
    """The rows of an authors' output file for a dataset of ``dataset_size`` rows; every row's
    ``data_idx`` must equal its place (as ``evaluate.py`` asserts)."""
    source = str(Path(path).expanduser())
    data = read_json(path, "authors' output file")
    if not is_authors_output(data):
        raise InputError("expected the authors' output: a JSON list of objects with data_idx and response",
                         source=source)
    if len(data) != dataset_size:
        raise InputError(f"{len(data)} rows but the dataset has {dataset_size} (the authors' files hold one "
                         "row per dataset row, in order)", source=source)
    rows = []
    for index, raw in enumerate(data):
        if raw["data_idx"] != index or isinstance(raw["data_idx"], bool):
            raise InputError(f"data_idx {raw['data_idx']!r} where {index} was expected (rows must follow the "
                             "dataset order)", source=source, where=f"row {index}")
        if not isinstance(raw["response"], str):
            raise InputError("response is not a string", source=source, where=f"row {index}")
        rows.append(AuthorsRow(
            index=index, response=raw["response"], thought=raw.get("thought", ""),
            scores={k: raw.get(f, "") for k, f in SCORE_FIELDS.items()},
            evals={k: raw.get(f"{k}_eval", "") if isinstance(raw.get(f"{k}_eval", ""), str) else ""
                   for k in SCORE_FIELDS},
        ))
    return rows


def _allowed(kind: str) -> set[int] | tuple[int, int]:
    return (1, 7) if kind == "personality" else {0, 1}


def _reread(row: AuthorsRow, kind: str, reading: str) -> int | str | None:
    """The score ``reading`` gives the stored judge text (the authors' reading may give their
    last-character string; incanon's gives None when nothing parses)."""
    text = row.evals[kind]
    if text == "Spatiotemporally inconsistent":  # evaluate.py's own short-circuit text
        return 0
    return authors_extract(text) if reading == "authors" else incanon_reading(text, _allowed(kind))


def _score(row: AuthorsRow, kind: str, reparse: bool, source: str, reading: str = "authors") -> int:
    value = row.scores[kind]
    if reparse:
        value = _reread(row, kind, reading)
        if value is None:
            raise InputError(f"no {kind} score can be read from {kind}_eval", source=source, where=f"row {row.index}")
    if isinstance(value, bool) or not isinstance(value, int):
        if reparse:
            raise InputError(
                f"the authors' reading of {kind}_eval gives {value!r}, not a whole number (its last line has "
                "no digit 0-7, so extract_score returns the last character); evaluate.py cannot sum it: "
                "rescore with --score-reading incanon to read it incanon's way",
                source=source, where=f"row {row.index}")
        raise InputError(
            f"{SCORE_FIELDS[kind]} is {value!r}, not a whole number: the authors' extract_score returns the "
            "last character of the judge's text when its last line has no digit 0-7, and evaluate.py cannot "
            "sum it; rescore with --reparse --score-reading incanon to read the score from the judge's text",
            source=source, where=f"row {row.index}")
    return value


def _present(rows: Sequence[AuthorsRow], kind: str) -> bool:
    return all(r.scores[kind] != "" for r in rows)


def readings_disagree(items: Sequence[TimeCharaItem], rows: Sequence[AuthorsRow]) -> int:
    """Rows where the authors' reading and incanon's give some judge text a different score
    (only the judges the row was scored by; a text neither reads counts as agreeing)."""
    count = 0
    for item, row in zip(items, rows):
        kinds = [k for k in SCORE_FIELDS if row.evals[k] and (k != "spatial" or item.data_type in SPATIAL_TYPES)]
        if any(_reread(row, k, "authors") != _reread(row, k, "incanon") for k in kinds):
            count += 1
    return count


def evaluate_printout(items: Sequence[TimeCharaItem], rows: Sequence[AuthorsRow], *, source: str,
                      reparse: bool = False, reading: str = "authors") -> str:
    """``evaluate.py``'s printout (spatiotemporal and/or personality, whichever the file holds).

    ``reparse`` reads every score from the judges' texts instead of the stored values, the
    ``reading`` way (``authors``: as their ``extract_score`` does, which gives back the stored
    values; ``incanon``: incanon's parser)."""
    if len(items) != len(rows):
        raise InputError(f"{len(rows)} rows but the dataset has {len(items)}", source=source)
    lines: list[str] = []
    if _present(rows, "temporal"):
        by_type: dict[str, list[int]] = {t: [] for t in DATA_TYPES}
        for item, row in zip(items, rows):
            temporal = _score(row, "temporal", reparse, source, reading)
            if item.data_type in SPATIAL_TYPES:
                if row.scores["spatial"] == "" and not reparse:
                    raise InputError("spatial_score is missing for a past-absence/presence row",
                                     source=source, where=f"row {row.index}")
                by_type[item.data_type].append(temporal * _score(row, "spatial", reparse, source, reading))
            else:
                by_type[item.data_type].append(temporal)
        combined = [v for values in by_type.values() for v in values]
        lines += ["", "*** Spatiotemporal Scores ***", ""]
        for kind, values in by_type.items():
            if values:
                lines.append(f"{kind} (max 1.0): {sum(values)}/{len(values)} (={round(sum(values) / len(values), 5)})")
        lines += ["", f"Total (max 1.0): {sum(combined)}/{len(combined)} "
                      f"(={round(sum(combined) / len(combined), 5)})"]
    if _present(rows, "personality"):
        scores = [_score(row, "personality", reparse, source, reading) for row in rows]
        lines += ["", "*** Personality Scores ***", "", "",
                  f"Total (max 7.0): {sum(scores)}/{len(scores)} (={round(sum(scores) / len(scores), 5)})"]
    if not lines:
        raise InputError("the file holds no scores (a generation output? judge it with "
                         "`incanon timechara eval --dataset D --responses FILE`)", source=source)
    return "\n".join(lines)
