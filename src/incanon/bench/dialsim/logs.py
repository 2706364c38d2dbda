"""The two log layouts the DialSim authors released (their ``results/*.json``), and answer rows.

* the full log, ``entire_log-*.json``: ``score``, ``calibrated_score``, ``result_list`` and
  ``calibrated_result_list`` (one verdict per question: ``Correct``, ``Wrong``, ``Ambiguous``,
  ``Wrong (Timeout)``, ``Wrong (Timeout in saving history)``...), ``answer_list``,
  ``gold_answer_list``, ``target_level_list`` (``{"current_type": ...}``), the timing lists
  (``save_time_list``, ``retrieve_search_time_list``, ``ans_time_list``, ``result_time_list``)
  and ``ret_histories_question_answer_list`` (retrieved history, question as asked, gold answer,
  distilled answer);
* the summary, ``results-*.json``: the scores, both verdict lists, ``result_time_list`` and
  ``avg_answer_time``; no answers and no question types.

Besides these, incanon reads JSON Lines rows of ``{answer, gold, type, format}`` (and an older
full log without verdicts). Every file goes through :mod:`incanon.reading`, so a bad file is one
line naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from incanon.errors import InputError
from incanon.reading import parse_json, read_text
from incanon.jsonlines import iter_jsonl

Layout = str
"""``entire_log``, ``results`` or ``rows``."""


@dataclass
class Row:
    """One question of a log: what was answered, the gold answer, and the recorded verdicts."""

    answer: str | None = None
    gold: str | None = None
    type: str = ""
    question: str = ""
    format: str | None = None
    recorded: str | None = None
    """The log's verdict as incanon names it (correct, wrong, ambiguous, timeout), if it has one."""
    recorded_calibrated: str | None = None
    stage: str | None = None
    """Where a recorded timeout happened (memory, retrieval, answer)."""
    times: dict[str, float] = field(default_factory=dict)


@dataclass
class Log:
    """A file read for rescoring."""

    source: str
    layout: Layout
    rows: list[Row]
    recorded_score: float | None = None
    recorded_calibrated_score: float | None = None
    recorded_mean_time: float | None = None


_STAGES = {"saving history": "memory", "searching history": "retrieval", "answering": "answer"}


def verdict(value: Any, *, source: str, where: str) -> tuple[str, str | None]:
    """(incanon status, timeout stage) of one recorded verdict of the reference."""
    if not isinstance(value, str):
        raise InputError(f"expected a verdict string, found {type(value).__name__}", source=source, where=where)
    text = value.strip()
    simple = {"Correct": "correct", "Wrong": "wrong", "Ambiguous": "ambiguous"}
    if text in simple:
        return simple[text], None
    if text.startswith("Wrong (Timeout"):
        inner = text.removeprefix("Wrong (Timeout").rstrip(")").strip().removeprefix("in ").strip()
        return "timeout", _STAGES.get(inner, "answer")
    raise InputError(f"unknown verdict {text[:40]!r} (expected Correct, Wrong, Ambiguous or Wrong (Timeout...))",
                     source=source, where=where)


def _list(data: dict[str, Any], key: str, n: int | None, source: str) -> list[Any] | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, list):
        raise InputError(f"expected a list, found {type(value).__name__}", source=source, where=f"field {key}")
    if n is not None and len(value) != n:
        raise InputError(f"has {len(value)} entries where result_list has {n}", source=source, where=f"field {key}")
    return value


def _number(data: dict[str, Any], key: str, source: str) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"expected a number, found {type(value).__name__}", source=source, where=f"field {key}")
    return float(value)


def _from_object(data: dict[str, Any], source: str) -> Log:
    results = _list(data, "result_list", None, source)
    answers = _list(data, "answer_list", None if results is None else len(results), source)
    if results is None and answers is None:
        raise InputError("neither result_list nor answer_list: not a DialSim log", source=source)
    n = len(results if results is not None else answers)  # type: ignore[arg-type]
    golds = _list(data, "gold_answer_list", n, source)
    if answers is not None and golds is None:
        raise InputError("answer_list without gold_answer_list", source=source)
    levels = _list(data, "target_level_list", n, source)
    calibrated = _list(data, "calibrated_result_list", n, source)
    questions = _list(data, "ret_histories_question_answer_list", n, source)
    timing = {name: _list(data, key, n, source) for name, key in (
        ("update_s", "save_time_list"), ("retrieve_s", "retrieve_search_time_list"),
        ("answer_s", "ans_time_list"), ("total_s", "result_time_list"))}
    rows: list[Row] = []
    for i in range(n):
        row = Row()
        if answers is not None and golds is not None:
            row.answer, row.gold = str(answers[i]), str(golds[i])
        level = levels[i] if levels is not None else None
        if isinstance(level, dict):
            row.type = str(level.get("current_type", ""))
        entry = questions[i] if questions is not None else None
        if isinstance(entry, list) and len(entry) > 1:
            row.question = str(entry[1])
        if results is not None:
            row.recorded, row.stage = verdict(results[i], source=source, where=f"result_list[{i}]")
        if calibrated is not None:
            row.recorded_calibrated, _ = verdict(calibrated[i], source=source, where=f"calibrated_result_list[{i}]")
        row.times = {name: float(values[i]) for name, values in timing.items()
                     if values is not None and isinstance(values[i], (int, float)) and not isinstance(values[i], bool)}
        rows.append(row)
    layout = "entire_log" if answers is not None else "results"
    return Log(source=source, layout=layout, rows=rows, recorded_score=_number(data, "score", source),
               recorded_calibrated_score=_number(data, "calibrated_score", source),
               recorded_mean_time=_number(data, "avg_answer_time", source) or _number(data, "result_time_mean", source))


def read_log(path: str | Path) -> Log:
    """A released log (either layout) or a JSON Lines file of answer rows."""
    p = Path(path).expanduser()
    text = read_text(p, "log file")
    if text.lstrip().startswith("{") and (p.suffix.lower() == ".json" or "\n{" not in text.strip()):
        data = parse_json(text, str(p))
        if isinstance(data, dict) and ("result_list" in data or "answer_list" in data):
            return _from_object(data, str(p))
        if p.suffix.lower() == ".json":
            raise InputError("neither result_list nor answer_list: not a DialSim log", source=str(p))
    rows: list[Row] = []
    for where, value in iter_jsonl(p, "answers file"):
        if not isinstance(value, dict) or "answer" not in value or "gold" not in value:
            raise InputError("expected an object with answer and gold", source=str(p), where=where)
        rows.append(Row(answer=str(value["answer"]), gold=str(value["gold"]), type=str(value.get("type", "")),
                        question=str(value.get("question", "")),
                        format=str(value["format"]) if value.get("format") else None))
    return Log(source=str(p), layout="rows", rows=rows)
