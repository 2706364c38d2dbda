"""TimeChara (Ahn et al., 2024): point-in-time character hallucination of role-playing agents.

Items are interview questions to a character at one point of a story, labelled with what the
character may know (future / past-absence / past-presence / past-only). Load the published set
or build items from any canon store, sample the paper's 600-item mix, evaluate methods, report
Table 5::

    from incanon.bench.timechara import (
        load_items, sample_items, build_items, evaluate, EvalSetup, build_report, rows_from_runs)

    items = load_items("timechara/validation.jsonl")            # or: (await build_items(store, work, helper)).items
    items = sample_items(items, "paper600", seed=0).items
    results = await evaluate(items, ["zero-shot", "narrative-experts"], EvalSetup(...))
    report = build_report(rows_from_runs(run_store, [r.run_id for r in results]))
    print(report.markdown())
"""

from incanon.bench.timechara.assign import Assigner, SceneEvent, was_present
from incanon.bench.timechara.book import BookOptions, book_world, ingest_book
from incanon.bench.timechara.build import BuildFailure, BuildOptions, BuildReport, BuildResult, build_items
from incanon.bench.timechara.characters import CharacterResolver, load_personalities
from incanon.bench.timechara.evaluate import (
    BENCHMARK,
    EvalSetup,
    create_agents,
    Judges,
    evaluate,
    items_fingerprint,
    judge_answer,
    make_task,
    needs_scope,
)
from incanon.bench.timechara.items import (
    ALLOWED_TYPES,
    DATA_TYPES,
    QUESTION_GENERATIONS,
    SPATIAL_TYPES,
    QuestionGeneration,
    TimeCharaItem,
)
from incanon.bench.timechara.judged import (
    JudgedRow,
    read_judged_jsonl,
    rows_from_runs,
    spatiotemporal_score,
    write_judged_jsonl,
)
from incanon.bench.timechara.labels import event_clause, spatial_label, temporal_label
from incanon.bench.timechara.llm_json import HelperOutputError, ask_structured, parse_structured
from incanon.bench.timechara.loader import iter_rows, load_items, write_items
from incanon.bench.timechara.published import SERIES, period_position, question_position, series_info
from incanon.bench.timechara.questions import STRUCTURED_TEMPLATES, QuestionTemplate, structured_question
from incanon.bench.timechara.report import METHOD_ORDER, Stat, TableRow, TimeCharaReport, build_report
from incanon.bench.timechara.sampling import PAPER_MIX, CellDraw, SampleResult, parse_sample_spec, sample_items
from incanon.bench.timechara.steps import FAKE_METHODS, EventExtraction, FakeEvent, FakeQA, FreeformQA

__all__ = [
    "ALLOWED_TYPES",
    "BENCHMARK",
    "DATA_TYPES",
    "FAKE_METHODS",
    "METHOD_ORDER",
    "PAPER_MIX",
    "QUESTION_GENERATIONS",
    "SERIES",
    "SPATIAL_TYPES",
    "STRUCTURED_TEMPLATES",
    "Assigner",
    "BuildFailure",
    "BookOptions",
    "BuildOptions",
    "BuildReport",
    "BuildResult",
    "CellDraw",
    "CharacterResolver",
    "EvalSetup",
    "EventExtraction",
    "FakeEvent",
    "FakeQA",
    "FreeformQA",
    "HelperOutputError",
    "JudgedRow",
    "Judges",
    "QuestionGeneration",
    "QuestionTemplate",
    "SampleResult",
    "SceneEvent",
    "Stat",
    "TableRow",
    "TimeCharaItem",
    "TimeCharaReport",
    "ask_structured",
    "book_world",
    "build_items",
    "build_report",
    "create_agents",
    "evaluate",
    "ingest_book",
    "event_clause",
    "items_fingerprint",
    "iter_rows",
    "judge_answer",
    "load_items",
    "load_personalities",
    "make_task",
    "needs_scope",
    "parse_sample_spec",
    "parse_structured",
    "period_position",
    "question_position",
    "read_judged_jsonl",
    "rows_from_runs",
    "sample_items",
    "series_info",
    "spatial_label",
    "spatiotemporal_score",
    "structured_question",
    "temporal_label",
    "was_present",
    "write_items",
    "write_judged_jsonl",
]
