"""``incanon runs``: list, inspect, export and merge stored runs."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich import box
from rich.table import Table

from incanon.cli.runrefs import RUNS_HELP
from incanon.cli.output import JSON_HELP, clip, emit_json, err, out
from incanon.errors import ConfigError, InputError, NotFoundError
from incanon.paths import default_runs_path
from incanon.runs.export import FORMATS, export_samples, model_under_test, write_csv, write_jsonl
from incanon.runs.records import RunInfo, RunSummary
from incanon.runs.store import RunStore

app = typer.Typer(help="List, inspect, export and merge benchmark runs.", no_args_is_help=True)



def _open(path: Optional[Path]) -> RunStore | None:
    """The store at ``path``; None when the default store was never created."""
    target = path.expanduser() if path is not None else default_runs_path()
    if not target.is_file():
        if path is not None:
            raise NotFoundError(f"no run store at {target}")
        return None
    return RunStore(target, create=False, read_only=True)  # list, show, export only read


def _require(path: Optional[Path]) -> RunStore:
    store = _open(path)
    if store is None:
        raise NotFoundError(f"no runs yet: the run store {default_runs_path()} does not exist")
    return store


def _when(info: RunInfo) -> str:
    return info.created.astimezone().strftime("%m-%d %H:%M")


def _model(info: RunInfo) -> str:
    """The model under test (the same in ``runs list`` and in exports)."""
    return model_under_test(info)


def _row(info: RunInfo) -> dict[str, Any]:
    return {
        "id": info.id, "benchmark": info.benchmark, "model": _model(info),
        "method": ",".join(info.config.methods), "status": info.status, "done": info.done,
        "ok": info.ok, "failed": info.failed, "total": info.total,
        "created": info.created.isoformat(), "updated": info.updated.isoformat(),
    }


@app.command("list")
def list_runs(
    runs: Optional[Path] = typer.Option(None, "--runs", help=RUNS_HELP),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """List runs, newest first: benchmark, model, method, status and how many samples are done,
    failed, planned.

    Example: incanon runs list --runs runs.sqlite
    """
    store = _open(runs)
    infos = store.runs() if store is not None else []
    if json_:
        emit_json({"runs": [_row(i) for i in infos]})
        return
    if not infos:
        err.print("no runs yet")
        return
    # No borders: the table fits 80 columns with 20-character run ids.
    table = Table(title="runs", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    # Ids and dates are copied into other commands: never wrap them.
    table.add_column("id", no_wrap=True)
    table.add_column("model", overflow="fold", min_width=12)
    table.add_column("method", overflow="fold", min_width=9)
    table.add_column("status", overflow="fold", min_width=8)
    table.add_column("ok/failed/total", justify="right", no_wrap=True)
    table.add_column("created", overflow="ellipsis")
    for i in infos:
        failed = f"{i.failed}" if i.failed else "0"
        total = "?" if i.total is None else str(i.total)
        # The benchmark starts every run id (timechara-..., sharp-...): the id column says it.
        table.add_row(i.id, clip(_model(i), 40), ",".join(i.config.methods), i.status,
                      f"{i.done}/{failed}/{total}", _when(i))
    out.print(table)


def _config_lines(info: RunInfo) -> list[tuple[str, str]]:
    c = info.config
    lines = [("run", info.id), ("benchmark", c.benchmark), ("status", info.status),
             ("created", info.created.isoformat()), ("incanon", c.package_version)]
    if c.name:
        lines.append(("name", c.name))
    if c.task:
        lines.append(("task", c.task))
    if c.dataset:
        lines.append(("dataset", json.dumps(c.dataset, ensure_ascii=False)))
    if c.models:
        lines.append(("models", ", ".join(f"{role}={spec}" for role, spec in c.models.items())))
    if c.methods:
        lines.append(("methods", ", ".join(c.methods)))
    if c.seeds:
        lines.append(("seeds", ", ".join(map(str, c.seeds))))
    if c.params:
        lines.append(("params", json.dumps(c.params, ensure_ascii=False, sort_keys=True)))
    if c.templates:
        lines.append(("templates", ", ".join(f"{k}@{v[:8]}" for k, v in sorted(c.templates.items()))))
    if c.stripped:
        lines.append(("not stored", ", ".join(c.stripped) + " (looked like credentials)"))
    return lines


def _print_summary(info: RunInfo, summary: RunSummary) -> None:
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column(overflow="fold")
    for key, value in _config_lines(info):
        head.add_row(key, value)
    total = "?" if summary.total is None else str(summary.total)
    head.add_row("samples", f"{summary.ok} ok, {summary.failed} failed, {total} planned"
                 f" ({summary.attempts} attempts)")
    out.print(head)

    if summary.scores:
        scores = Table(title="scores (ok samples)")
        for col, justify in (("score", "left"), ("n", "right"), ("mean ± SEM", "right"), ("missing", "right")):
            scores.add_column(col, justify=justify)  # type: ignore[arg-type]
        for s in summary.scores:
            scores.add_row(s.name, str(s.n), s.format(), str(s.missing))
        out.print(scores)

    u = summary.usage
    usage = Table(title="usage (stored samples)")
    for col in ("calls", "cached", "prompt tok", "completion tok", "model time (s)", "cost"):
        usage.add_column(col, justify="right")
    usage.add_row(f"{u.calls:,}", f"{u.cached_calls:,}", f"{u.prompt_tokens:,}",
                  f"{u.completion_tokens:,}", f"{u.latency_s:,.1f}", f"{u.cost:,.4f}")
    spent = info.totals.get("spent")
    if spent and spent.get("calls", 0) != u.calls:
        usage.caption = f"all attempts, including retried failures: {spent['calls']:,} calls"
    out.print(usage)

    if summary.errors:
        errors = Table(title="errors by type")
        errors.add_column("type")
        errors.add_column("samples", justify="right")
        for name, count in summary.errors.items():
            errors.add_row(name, str(count))
        out.print(errors)


@app.command("show")
def show(
    run: str = typer.Argument(..., help="Run id, or a unique prefix of one."),
    runs: Optional[Path] = typer.Option(None, "--runs", help=RUNS_HELP),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Show a run: its configuration, score means ± SEM, usage totals and errors by type.

    Example: incanon runs show timechara-9de --json
    """
    with _require(runs) as store:
        info = store.get_run(store.resolve(run))
        summary = store.summary(info.id)
    if json_:
        emit_json({"run": _row(info), "config": info.config.model_dump(mode="json"),
                   "totals": info.totals, "summary": summary.model_dump(mode="json")})
    else:
        _print_summary(info, summary)


@app.command("export")
def export(
    run: str = typer.Argument(..., help="Run id, or a unique prefix of one."),
    fmt: str = typer.Option("jsonl", "--format", "-f", help="jsonl (each sample whole), csv or parquet (one flat row per sample: keys, usage.*, scores.*, input.*, outputs.*)."),
    jsonl: bool = typer.Option(False, "--jsonl", hidden=True, help="Same as --format jsonl (older spelling)."),
    out_file: Optional[Path] = typer.Option(None, "--out", help="Write here (atomically) instead of stdout."),
    out_old: Optional[Path] = typer.Option(None, "-o", hidden=True, help="Older spelling of --out (-o is --option elsewhere)."),
    status: Optional[str] = typer.Option(None, "--status", help="Only samples with this status: ok or error."),
    runs: Optional[Path] = typer.Option(None, "--runs", help=RUNS_HELP),
    json_: bool = typer.Option(False, "--json", help="With --out: print what was written (run, file, format, samples) as JSON on stdout."),
) -> None:
    """Export every sample of a run (input, outputs, scores, usage, timings, error).

    Example: incanon runs export demo --format csv --out demo.csv
    """
    from incanon.cli.renamed import renamed

    out_file = renamed(out_file, out_old, new_flag="--out", old_flag="-o", default=None)
    if status not in (None, "ok", "error"):
        raise InputError(f"--status must be ok or error, not {status!r}")
    if fmt not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if fmt == "parquet" and out_file is None:
        raise InputError("--format parquet needs --out FILE (Parquet is not written to a terminal)")
    if json_ and out_file is None:
        raise ConfigError("--json prints a summary of the file written: give --out FILE (without it the samples "
                          "themselves go to stdout)")
    with _require(runs) as store:
        run_id = store.resolve(run)
        if out_file is None:
            try:
                (write_csv if fmt == "csv" else write_jsonl)(store, run_id, sys.stdout, status=status)
                sys.stdout.flush()
            except BrokenPipeError:
                # `incanon runs export X | head`: the reader left; that is not an error.
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        else:
            count = export_samples(store, run_id, out_file, fmt=fmt, status=status)
            if json_:
                emit_json({"run": run_id, "out": str(out_file), "format": fmt, "status": status, "samples": count})
            else:
                err.print(f"wrote {count} samples of {run_id} to {out_file}", highlight=False)


@app.command("merge")
def merge(
    out_store: Path = typer.Argument(..., metavar="OUT_STORE", help="Run store to merge into (created if needed)."),
    shard_stores: list[Path] = typer.Argument(..., metavar="SHARD_STORE...", help="Run stores of the shards."),
    run: Optional[str] = typer.Option(None, "--run", help="Merge only this run (its id, a shard run's id, or a unique prefix)."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Merge shard run stores (--shard i/n) into one run per configuration, atomically.

    An item in two stores is kept once when its input is the same (and reported), else an error.

    Running the command again without --shard on OUT_STORE fills in missing shards.

    Example: incanon runs merge merged.sqlite shard1.sqlite shard2.sqlite
    """
    from incanon.runs.merge import merge_stores

    report = merge_stores(out_store, shard_stores, run=run)
    if json_:
        emit_json(report.model_dump(mode="json"))
        return
    table = Table(title=f"merged into {out_store}", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("run", no_wrap=True)
    table.add_column("sources", justify="right")
    table.add_column("samples", justify="right")
    table.add_column("duplicates", justify="right")
    table.add_column("shards", overflow="fold")
    table.add_column("status")
    for merged in report.runs:
        shards = ", ".join(merged.shards) or "-"
        if merged.missing_shards:
            shards += f" (missing {', '.join(merged.missing_shards)})"
        table.add_row(merged.run_id, str(len(merged.sources)), f"{merged.samples:,}",
                      str(len(merged.duplicates)), shards, merged.status)
    out.print(table)
    for merged in report.runs:
        for dup in merged.duplicates[:5]:
            err.print(f"duplicate: item {dup.item_id!r} epoch {dup.epoch} (same input) in {dup.kept} and "
                      f"{dup.dropped}; kept {dup.kept}", highlight=False, soft_wrap=True)
        if len(merged.duplicates) > 5:
            err.print(f"... and {len(merged.duplicates) - 5} more duplicates in {merged.run_id}", highlight=False)
        for note in merged.notes:
            err.print(f"note: {note}", highlight=False, soft_wrap=True)
