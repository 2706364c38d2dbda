"""Run overviews (configuration, progress, usage, score summary) and the tables made of them."""

from __future__ import annotations

from typing import Iterable

from incanon.report.model import Block, RunOverview, Table
from incanon.runs import RunStore


def run_overview(store: RunStore, run_id: str) -> RunOverview:
    """The overview of one stored run (scores summed in SQL, samples not loaded)."""
    info = store.get_run(run_id)
    summary = store.summary(run_id)
    config = info.config
    return RunOverview(
        id=info.id, benchmark=info.benchmark, status=info.status, created=info.created, name=config.name,
        task=config.task, models=dict(config.models), methods=list(config.methods), seeds=list(config.seeds),
        version=config.package_version, templates=dict(config.templates), dataset=dict(config.dataset),
        params=dict(config.params), ok=summary.ok, failed=summary.failed, total=summary.total,
        usage=summary.usage, errors=dict(summary.errors),
        scores={s.name: {"n": s.n, "mean": s.mean, "sem": s.sem, "missing": s.missing} for s in summary.scores},
    )


def mean_sem_text(stat: dict[str, float | int | None], digits: int = 3) -> str:
    """``0.667 ± 0.211`` (``-`` without values)."""
    mean, sem = stat.get("mean"), stat.get("sem")
    if mean is None:
        return "-"
    return f"{mean:.{digits}f}" + (f" ± {sem:.{digits}f}" if sem is not None else "")


def score_table(runs: Iterable[RunOverview]) -> Table:
    """Every numeric score of every run, mean ± SEM over its ok samples."""
    runs = list(runs)
    names = list(dict.fromkeys(name for run in runs for name in run.scores))
    rows = [[run.id, run.label, str(run.ok)] + [mean_sem_text(run.scores[n]) if n in run.scores else "-" for n in names]
            for run in runs]
    return Table(columns=["Run", "Model / method", "n", *names], rows=rows,
                 caption="Scores per run: mean ± SEM over finished samples (SEM = sample std / √n).")


def _tokens(n: int) -> str:
    return f"{n:,}"


def usage_table(runs: Iterable[RunOverview]) -> Table:
    """Calls, tokens, latency and cost of each run, with a total row."""
    runs = list(runs)
    rows = []
    for run in runs:
        u = run.usage
        rows.append([run.id, run.status, f"{run.ok}/{run.total if run.total is not None else run.ok + run.failed}",
                     str(run.failed), _tokens(u.calls), _tokens(u.cached_calls), _tokens(u.prompt_tokens),
                     _tokens(u.completion_tokens), f"{u.latency_s:.1f}", f"{u.cost:.4f}"])
    if len(runs) > 1:
        calls = sum(r.usage.calls for r in runs)
        rows.append(["total", "", f"{sum(r.ok for r in runs)}", str(sum(r.failed for r in runs)), _tokens(calls),
                     _tokens(sum(r.usage.cached_calls for r in runs)),
                     _tokens(sum(r.usage.prompt_tokens for r in runs)),
                     _tokens(sum(r.usage.completion_tokens for r in runs)),
                     f"{sum(r.usage.latency_s for r in runs):.1f}", f"{sum(r.usage.cost for r in runs):.4f}"])
    return Table(columns=["Run", "Status", "Done", "Failed", "Calls", "Cached", "Prompt tokens", "Completion tokens",
                          "Model time (s)", "Cost"], rows=rows,
                 caption="Usage: calls sent to a backend (cache hits apart), tokens, time waiting on models, and "
                         "cost where a price is known.")


def _compact(value: object) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={_compact(v)}" for k, v in value.items()) or "-"
    if isinstance(value, (list, tuple)):
        return ", ".join(_compact(v) for v in value) or "-"
    return str(value)


def config_blocks(runs: Iterable[RunOverview]) -> list[Block]:
    """Run configuration: one table of the essentials, then per-run details (dataset,
    parameters, prompt template fingerprints)."""
    runs = list(runs)
    rows = [[run.id, _compact(run.models), _compact(run.methods), _compact(run.seeds), run.version,
             str(len(run.templates)), run.created.strftime("%Y-%m-%d %H:%M")] for run in runs]
    blocks = [Block(kind="table", table=Table(
        columns=["Run", "Models", "Methods", "Seeds", "incanon", "Templates", "Created (UTC)"], rows=rows))]
    for run in runs:
        items = [f"task: {run.task}"] if run.task else []
        items += [f"dataset: {_compact(run.dataset)}"] if run.dataset else []
        items += [f"params: {_compact(run.params)}"] if run.params else []
        items += [f"template {name}: {digest}" for name, digest in sorted(run.templates.items())]
        items += [f"errors: {_compact(run.errors)}"] if run.errors else []
        if items:
            blocks += [Block(kind="heading", text=f"Run {run.id}", level=4), Block(kind="list", items=items)]
    return blocks
