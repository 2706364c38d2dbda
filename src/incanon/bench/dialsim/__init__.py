"""DialSim: a real-time simulator of long multi-party dialogue, and the questions that test memory.

>>> report = ingest(store, sample=True)                                   # doctest: +SKIP
>>> questions, _ = await build_questions(store, report.work)              # doctest: +SKIP
>>> script = load_script(store, report.work)                              # doctest: +SKIP
>>> agent = create_agent("dialsim-bm25-session", model)                   # doctest: +SKIP
>>> result = await Simulator(script, questions, agent, config=SimConfig(fast=True)).run()  # doctest: +SKIP

Pieces: scripts (``load_script``; ``ingest`` of transcripts, the sample world, published data),
the temporal knowledge graph (``TKG``, ``TKGExtractor``), questions (``tkg_questions``,
``fan_questions``, ``Question``), style transfer (``StyleTransfer``), the simulator
(``Simulator``, ``plan_simulation``), memory strategies (``incanon.bench.dialsim.agents``,
registered as ``dialsim-<strategy>``), scoring (``score_mc``, ``AnswerJudge``), adversarial
names (``swap_names``, ``new_names``), runs and the report (``run_setting``, ``DialsimReport``).
"""

from incanon.bench.dialsim.answerability import Knowledge
from incanon.bench.dialsim.bm25 import IncrementalBM25, RebuildingBM25
from incanon.bench.dialsim.fanquiz import FanQuiz, fan_questions, load_fan_quiz, parse_fan_quiz
from incanon.bench.dialsim.formats import FORMATS, AnswerFormat, render_question
from incanon.bench.dialsim.generate import GenerateOptions, GenerateReport, tkg_questions
from incanon.bench.dialsim.ingest import SAMPLE_WORK, sample_dialogue_world, transcripts_world, world_from_sessions
from incanon.bench.dialsim.names import NameMap, name_map, new_names, rename_question, rename_script, swap_names
from incanon.bench.dialsim.outcomes import QuestionOutcome, SessionRecord, SimulationResult
from incanon.bench.dialsim.pipeline import IngestReport, QuestionsReport, build_questions, ingest, load_tkg_file
from incanon.bench.dialsim.plan import Plan, PlannedQuestion, plan_simulation
from incanon.bench.dialsim.published import export_json, load_published, published_world
from incanon.bench.dialsim.questions import CATEGORIES, IDK, MARKERS, Question, read_questions, write_questions
from incanon.bench.dialsim.relations import RELATIONS, normalize_relation
from incanon.bench.dialsim.report import DialsimReport, Setting, settings_from_runs
from incanon.bench.dialsim.calibrate import calibrate_mc
from incanon.bench.dialsim.logs import Log, read_log
from incanon.bench.dialsim.rescore import RescoreReport, rescore
from incanon.bench.dialsim.runs import MEMORIES, RunOutcome, RunSetup, memory_method, run_setting
from incanon.bench.dialsim.scoring import AnswerJudge, Score, exact_match, markers_in, score_mc
from incanon.bench.dialsim.script import DialScript, DialSession, Line, load_script
from incanon.bench.dialsim.simulator import SimConfig, Simulator
from incanon.bench.dialsim.style import StyleTransfer
from incanon.bench.dialsim.tkg import TKG, Quad, TKGExtractor, quads_from_rows

__all__ = [
    "CATEGORIES", "FORMATS", "IDK", "MARKERS", "MEMORIES", "RELATIONS", "SAMPLE_WORK",
    "AnswerFormat", "AnswerJudge", "DialScript", "DialSession", "DialsimReport", "FanQuiz", "GenerateOptions",
    "GenerateReport", "IncrementalBM25", "IngestReport", "Knowledge", "Line", "Log", "NameMap", "Plan", "PlannedQuestion",
    "Quad", "Question", "QuestionOutcome", "QuestionsReport", "RebuildingBM25", "RescoreReport", "RunOutcome",
    "RunSetup", "Score", "SessionRecord", "Setting", "SimConfig", "SimulationResult", "Simulator", "StyleTransfer",
    "TKG", "TKGExtractor",
    "build_questions", "exact_match", "export_json", "fan_questions", "ingest", "load_fan_quiz", "load_published",
    "load_script", "load_tkg_file", "markers_in", "memory_method", "name_map", "new_names", "normalize_relation",
    "parse_fan_quiz", "plan_simulation", "published_world", "quads_from_rows", "read_questions",
    "rename_question", "rename_script", "render_question", "rescore", "read_log", "calibrate_mc", "run_setting", "sample_dialogue_world",
    "score_mc", "settings_from_runs", "swap_names", "tkg_questions", "transcripts_world", "world_from_sessions",
    "write_questions",
]
