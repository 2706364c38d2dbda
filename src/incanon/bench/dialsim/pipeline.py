"""The steps behind ``incanon dialsim ingest`` and ``incanon dialsim questions``.

Ingest puts a dialogue into the canon store (plain transcripts, the sample world, or published
DialSim data) and keeps its side files (TKG, fan quiz, published questions) under
``<store>/dialsim/<work>/``. Questions builds every session's candidate questions: from the TKG
(loaded, or extracted by a helper model and cached), the fan quiz, and published questions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from incanon.bench.dialsim.answerability import Knowledge
from incanon.bench.dialsim.fanquiz import fan_questions, fan_quiz_rows, load_fan_quiz
from incanon.bench.dialsim.files import DialsimFiles
from incanon.bench.dialsim.generate import GenerateOptions, tkg_questions
from incanon.bench.dialsim.ingest import sample_dialogue_world, transcripts_world
from incanon.bench.dialsim.oracle import OracleIndex, find_oracle_files, oracle_path
from incanon.bench.dialsim.published import export_json, load_published, published_world
from incanon.bench.dialsim.questions import Question, read_questions, write_questions
from incanon.bench.dialsim.sample_data import SAMPLE_FAN_QUIZ, SAMPLE_TKG_ROWS
from incanon.bench.dialsim.script import DialScript, load_script
from incanon.bench.dialsim.style import StyleTransfer
from incanon.bench.dialsim.tkg import TKG, TKGExtractor, quads_from_rows
from incanon.canon.store import CanonStore
from incanon.canon.world import World
from incanon.files import write_text_atomic
from incanon.reading import read_json
from incanon.errors import ConfigError, InputError
from incanon.models.types import ChatModel
from incanon.templates import PromptLibrary


@dataclass
class IngestReport:
    work: str
    sessions: int
    lines: int
    characters: int
    main: str
    side_files: list[str] = field(default_factory=list)
    published_questions: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    oracle_files: list[str] = field(default_factory=list)
    """The authors' oracle files read beside the published script."""
    with_evidence: int = 0
    """Published questions given evidence sessions (by the oracle files or their episode)."""


@dataclass
class PreparedIngest:
    """What ``ingest`` will write, read and checked before anything is written."""

    world: World
    questions: list[Question]
    skipped: dict[str, int]
    oracle_files: list[str]
    with_evidence: int
    exports: list[tuple[Path, dict[str, Any]]]
    sample: bool


def prepare_ingest(
    *, scripts: list[Path] | None = None, sample: bool = False, published: Path | None = None,
    trust_pickle: bool = False, export_json_to: Path | None = None, work: str | None = None,
    title: str | None = None,
) -> PreparedIngest:
    """Read the input (exactly one of ``scripts``, ``sample``, ``published``) without writing anything."""
    if sum([bool(scripts), sample, published is not None]) != 1:
        raise ConfigError("give script files, --sample, or --published FILE (exactly one)")
    questions: list[Question] = []
    skipped: dict[str, int] = {}
    oracle_files: list[str] = []
    exports: list[tuple[Path, dict[str, Any]]] = []
    with_evidence = 0
    if sample:
        world = sample_dialogue_world()
        if work:
            world = world.model_copy(update={"work": world.work.model_copy(update={"id": work})})
    elif published is not None:
        data = load_published(published, trust_pickle=trust_pickle)
        oracle = OracleIndex()
        for kind, path in find_oracle_files(published.expanduser()).items():
            loaded = load_published(path, trust_pickle=trust_pickle, what=f"oracle {kind} file", expect_episodes=False)
            setattr(oracle, kind, loaded)
            oracle_files.append(str(path))
            if export_json_to is not None:
                exports.append((oracle_path(export_json_to, kind, ".json"), loaded))
        if export_json_to is not None:
            exports.insert(0, (export_json_to, data))
        stem = published.stem.replace("_dialsim", "")
        world, questions, skipped = published_world(data, work_id=work or stem, title=title or stem.title(), oracle=oracle)
        with_evidence = oracle.found
    else:
        assert scripts
        world = transcripts_world(scripts, work_id=work, title=title)
    return PreparedIngest(world, questions, skipped, oracle_files, with_evidence, exports, sample)


def ingest(
    store: CanonStore, *, scripts: list[Path] | None = None, sample: bool = False, published: Path | None = None,
    trust_pickle: bool = False, export_json_to: Path | None = None, work: str | None = None,
    title: str | None = None, replace: bool = False, prepared: PreparedIngest | None = None,
) -> IngestReport:
    """Import one dialogue (exactly one of ``scripts``, ``sample``, ``published``; or ``prepared``)."""
    ready = prepared or prepare_ingest(scripts=scripts, sample=sample, published=published, trust_pickle=trust_pickle,
                                       export_json_to=export_json_to, work=work, title=title)
    world, questions = ready.world, ready.questions
    store.import_world(world, replace=replace, source="dialsim ingest")
    script = load_script(store, world.work.id)
    files = DialsimFiles.of(store.path, world.work.id)
    side = [str(export_json(data, path)) for path, data in ready.exports]
    if ready.sample:
        files.root.mkdir(parents=True, exist_ok=True)
        quads_from_rows(list(SAMPLE_TKG_ROWS), script, source="sample").save(files.tkg)
        write_text_atomic(files.fan_quiz, json.dumps(list(SAMPLE_FAN_QUIZ), indent=1, ensure_ascii=False))
        side += [str(files.tkg), str(files.fan_quiz)]
    if questions:
        write_questions([q.model_copy(update={"asked_to": ""}) for q in questions], files.published)
        side.append(str(files.published))
    return IngestReport(work=world.work.id, sessions=len(script.sessions), lines=script.line_count(),
                        characters=len(world.characters), main=script.main, side_files=side,
                        published_questions=len(questions), skipped=ready.skipped,
                        oracle_files=ready.oracle_files, with_evidence=ready.with_evidence)


@dataclass
class QuestionsReport:
    work: str
    main: str
    counts: dict[str, int] = field(default_factory=dict)
    """Questions by source/category."""
    tkg_source: str = ""
    tkg_quads: int = 0
    tkg_failures: list[dict[str, str]] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    styled: int = 0
    style_fallbacks: int = 0


async def build_questions(
    store: CanonStore, work: str, *, main: str | None = None, tkg_file: Path | None = None,
    helper: ChatModel | None = None, extract: bool = False, fan_file: Path | None = None, seed: int = 0,
    two_hop: bool = True, style: StyleTransfer | None = None, prompts: PromptLibrary | None = None,
) -> tuple[list[Question], QuestionsReport]:
    """Every candidate question of the work (see the module docstring)."""
    script = load_script(store, work, main)
    files = DialsimFiles.of(store.path, work)
    report = QuestionsReport(work=work, main=script.main)
    tkg = await _tkg(script, files, tkg_file=tkg_file, helper=helper, extract=extract, prompts=prompts)
    knowledge = Knowledge(store, script)
    questions: list[Question] = []
    if tkg is not None:
        made, generated = tkg_questions(tkg, script, knowledge, GenerateOptions(seed=seed, two_hop=two_hop))
        questions += [q.model_copy(update={"asked_to": script.main}) for q in made]
        report.tkg_source, report.tkg_quads, report.tkg_failures = tkg.source, len(tkg.quads), tkg.failures
        report.skipped.update(generated.skipped)
    quiz_path = fan_file or (files.fan_quiz if files.fan_quiz.is_file() else None)
    if quiz_path is not None:
        quizzes = load_fan_quiz(quiz_path)
        questions += [q.model_copy(update={"asked_to": script.main})
                      for q in fan_questions(quizzes, script, knowledge, seed=seed)]
        if fan_file is not None:  # keep a copy next to the canon for later runs
            write_text_atomic(files.fan_quiz, json.dumps(fan_quiz_rows(quizzes), indent=1, ensure_ascii=False))
    if files.published.is_file():
        questions += read_questions(files.published)
    if not questions:
        if tkg is not None or quiz_path is not None:
            why = ", ".join(f"{n} {reason}" for reason, n in sorted(report.skipped.items())) or "nothing to ask about"
            raise InputError(f"no question could be made for {script.main} in work {work!r} ({why}); a small "
                             "graph may lack the four distinct choices a question needs")
        raise InputError(f"no questions for work {work!r}: give a TKG (--tkg FILE or --helper MODEL to extract one) "
                         "or a fan quiz (--fan FILE)")
    if style is not None:
        await _pre_style(questions, script, style, report)
    for q in questions:
        key = f"{q.source}/{q.category}"
        report.counts[key] = report.counts.get(key, 0) + 1
    return questions, report


async def _tkg(script: DialScript, files: DialsimFiles, *, tkg_file: Path | None, helper: ChatModel | None,
               extract: bool, prompts: PromptLibrary | None) -> TKG | None:
    if tkg_file is not None:
        return load_tkg_file(tkg_file, script)
    if files.tkg.is_file() and not extract:
        return TKG.load(files.tkg)
    if helper is None:
        if extract:
            raise ConfigError("extracting a TKG needs a helper model (--helper SPEC)")
        return None
    extractor = TKGExtractor(helper, cache_path=files.tkg_cache, prompts=prompts)
    tkg = await extractor.extract(script, script.aliases)
    tkg.save(files.tkg)
    return tkg


def load_tkg_file(path: Path, script: DialScript) -> TKG:
    """A TKG file: incanon's own JSON, or a JSON list of ``[head, relation, tail, session]`` rows."""
    p = path.expanduser()
    data: Any = read_json(p, "TKG file")
    if isinstance(data, dict) and "quads" in data:
        try:
            return TKG.model_validate(data)
        except ValueError as exc:
            raise InputError(f"not a TKG: {str(exc).splitlines()[0]}", source=str(p)) from None
    if isinstance(data, list):
        return quads_from_rows(data, script, source=p.name)
    raise InputError(f"{p}: expected a TKG object or a list of [head, relation, tail, session] rows")


async def _pre_style(questions: list[Question], script: DialScript, style: StyleTransfer, report: QuestionsReport) -> None:
    """Restyle each question for every character who could ask it (the other speakers of its session)."""
    for i, q in enumerate(questions):
        session = script.by_id.get(q.session)
        if session is None:
            continue
        texts = dict(q.texts)
        for asker in sorted(set(session.speakers) - {script.main} - set(texts)):
            styled = await style.restyle(q.texts["default"], asker, script.personalities.get(asker, ""))
            if styled.styled:
                texts[asker] = styled.text
                report.styled += 1
            else:
                report.style_fallbacks += 1
        questions[i] = q.model_copy(update={"texts": texts})
