"""Scale and cost options every benchmark command shares, and how to apply them.

``--executor local|ray``, ``--address``, ``--shard i/n``, ``--max-cost USD``, ``--dry-run``,
``--prices FILE``. A command gets all six with one decorator and a ``run_options`` parameter,
builds its :class:`~incanon.runs.benchmark.Benchmark` and hands it to the one driver::

    @app.command("eval")
    @with_run_options
    def eval_(model: str = typer.Option(...), ..., run_options: RunOptions) -> None:
        bench = MyBench(items, methods, setup=lambda: make_setup(...))
        if run_options.show_dry_run(bench, json_=json_):   # estimate, call nothing, exit
            return
        done = run_options.evaluate(bench, RunSettings(store=RunStore(runs)))
        print_runs(done)
        emit_report(done.report(), None, json_, {"runs": runs_json(done)})

(or use the ``*_OPTION`` constants as parameter defaults and :func:`run_options` to build it).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import typing
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional, Sequence

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from incanon.cli.output import emit_json, err, out
from incanon.errors import ConfigError, IncanonError
from incanon.runs.ambient import RunDefaults, run_defaults
from incanon.runs.config import RunConfig
from incanon.runs.estimate import DEFAULT_PATTERN, CallPattern, EstimateLine, RunEstimate, estimate_run, method_lines
from incanon.runs.executor import ExecutorKind, create_executor, executor_kinds
from incanon.runs.prices import EXAMPLE_PRICES_DATE, Prices, load_prices
from incanon.runs.shard import Shard
from incanon.runs.store import RunStore

if TYPE_CHECKING:  # the driver imports the runner: loaded when a command evaluates, not before
    from incanon.runs.benchmark import Benchmark
    from incanon.runs.driver import Evaluation, RunSettings
    from incanon.runs.records import RunResult

EXECUTOR_OPTION: Any = typer.Option(
    "local", "--executor",
    help="Where samples run: local (this process) or ray (the workers of a Ray cluster; needs "
         "incanon[ray]). Results are written to the run store by this process either way.")
ADDRESS_OPTION: Any = typer.Option(
    None, "--address",
    help="Ray cluster to join (host:6379 or ray://host:10001); default $RAY_ADDRESS, else a new "
         "local Ray instance. Only with --executor ray.")
SHARD_OPTION: Any = typer.Option(
    None, "--shard", metavar="I/N",
    help="Run only shard I of N (1-based, e.g. 2/4): items split by a hash of their id. Each shard "
         "is its own run; join shard stores with `incanon runs merge`.")
MAX_COST_OPTION: Any = typer.Option(
    None, "--max-cost", min=0.0, metavar="USD",
    help="Stop starting samples once a run has spent this much (in-flight ones finish); the run is "
         "marked stopped-budget and resumes with a higher --max-cost. Applies to each run.")
DRY_RUN_OPTION: Any = typer.Option(
    False, "--dry-run", help="Print the estimated calls, tokens and cost; call no model and exit.")
PRICES_OPTION: Any = typer.Option(
    None, "--prices", metavar="FILE",
    help="Prices per model, JSON or TOML: {model: {input_per_1m, output_per_1m}} in USD. Wins over "
         f"the built-in table (local models 0, a few hosted ones as examples from {EXAMPLE_PRICES_DATE}).")

SKIP_BAD_LINES_OPTION: Any = typer.Option(
    False, "--skip-bad-lines",
    help="Skip the lines of JSON Lines inputs that are not UTF-8 or not JSON instead of refusing the "
         "file; how many were skipped, and which, is said at the end.")

_OPTION_PARAMS: list[tuple[str, Any, Any]] = [
    ("executor", str, EXECUTOR_OPTION),
    ("address", Optional[str], ADDRESS_OPTION),
    ("shard", Optional[str], SHARD_OPTION),
    ("max_cost", Optional[float], MAX_COST_OPTION),
    ("dry_run", bool, DRY_RUN_OPTION),
    ("prices", Optional[Path], PRICES_OPTION),
]


@dataclass
class RunOptions:
    """The parsed scale and cost options of one command."""

    executor: str = ExecutorKind.LOCAL
    address: str | None = None
    shard: Shard | None = None
    max_cost: float | None = None
    dry_run: bool = False
    prices: Prices = field(default_factory=Prices.builtin)

    @contextmanager
    def applied(self) -> Iterator[RunDefaults]:
        """Within the block every ``run_items`` call uses these options; a Ray connection
        opened here is shared by the block's runs and closed at its end."""
        engine = create_executor(self.executor, address=self.address)
        try:
            with run_defaults(executor=engine, shard=self.shard, max_cost=self.max_cost,
                              prices=self.prices) as defaults:
                yield defaults
        finally:
            engine.shutdown()

    def estimate(self, items: Iterable[Any], lines: Sequence[EstimateLine], *, epochs: int = 1,
                 store: RunStore | None = None, config: RunConfig | None = None) -> RunEstimate:
        """The estimate of running ``lines`` over ``items`` (this shard; done samples left out
        when ``store`` and ``config`` name an existing run)."""
        return estimate_run(items, lines, epochs=epochs, prices=self.prices, store=store,
                            config=config, shard=self.shard)

    def print_estimate(self, items: Iterable[Any], lines: Sequence[EstimateLine], *, json_: bool = False,
                       epochs: int = 1, store: RunStore | None = None,
                       config: RunConfig | None = None) -> RunEstimate:
        """Estimate and print (a table, or one JSON document with ``json_``); calls no model."""
        return self.show_estimate(self.estimate(items, lines, epochs=epochs, store=store, config=config),
                                  json_=json_)

    def show_dry_run(self, bench: Benchmark, *, json_: bool = False) -> bool:
        """With ``--dry-run``: print what evaluating ``bench`` would call (no model is called,
        nothing is written) and return True; without it, False."""
        if not self.dry_run:
            return False
        from incanon.runs.driver import estimate

        self.show_estimate(estimate(bench, prices=self.prices, shard=self.shard), json_=json_)
        return True

    def evaluate(self, bench: Benchmark, settings: RunSettings) -> Evaluation:
        """Every run of ``bench`` through the one driver, with these options in force."""
        from incanon.runs.driver import evaluate

        with self.applied():
            return asyncio.run(evaluate(bench, settings))

    def show_estimate(self, estimate: RunEstimate, *, json_: bool = False) -> RunEstimate:
        """Print an estimate made by the command itself (one whose units are not plain items,
        such as DialSim's repetitions) as :meth:`print_estimate` does."""
        if json_:
            emit_json({"dry_run": True, "estimate": estimate.to_json(), "max_cost": self.max_cost,
                       "shard": str(self.shard) if self.shard else None})
        else:
            print_estimate(estimate, max_cost=self.max_cost)
        return estimate


def run_options(executor: str = "local", address: str | None = None, shard: str | None = None,
                max_cost: float | None = None, dry_run: bool = False,
                prices: Path | None = None) -> RunOptions:
    """Check the raw option values and make :class:`RunOptions` (errors name the option)."""
    if executor not in executor_kinds():
        raise ConfigError(f"--executor must be one of {', '.join(executor_kinds())}, not {executor!r}")
    if address and executor != ExecutorKind.RAY:
        raise ConfigError("--address needs --executor ray")
    if max_cost is not None and max_cost < 0:
        raise ConfigError(f"--max-cost must be zero or more, got {max_cost}")
    return RunOptions(executor=executor, address=address, shard=_shard(shard) if shard else None,
                      max_cost=max_cost, dry_run=dry_run, prices=_prices(prices))


def _shard(spec: str) -> Shard:
    """``--shard`` parsed; an error names the option and the expected form."""
    try:
        return Shard.parse(spec)
    except ConfigError as exc:
        message = str(exc)
        if not message.startswith("--shard"):
            message = f"--shard {spec}: {message.removeprefix(f'shard {spec.strip()}: ')}"
        raise ConfigError(message) from None


def _prices(path: Path | None) -> Prices:
    """``--prices`` loaded; an error names the option and what a price file holds."""
    try:
        return load_prices(path)
    except IncanonError as exc:
        shown = str(exc) if str(path) in str(exc) else f"{path}: {exc}"
        raise ConfigError(f"--prices {shown} (expected JSON or TOML: "
                          "{model: {input_per_1m, output_per_1m}} in USD)") from None


def with_run_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator (under ``@app.command``): adds the six options to ``command``, which receives
    them as one ``run_options: RunOptions`` argument, and ``--skip-bad-lines``, which applies
    :func:`incanon.reading.skipping_bad_lines` around the whole command."""
    signature = inspect.signature(command)
    if "run_options" not in signature.parameters:
        raise TypeError(f"{command.__name__} needs a `run_options: RunOptions` parameter")
    hints = typing.get_type_hints(command)
    kept = [p.replace(annotation=hints.get(p.name, p.annotation))
            for p in signature.parameters.values() if p.name != "run_options"]
    added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind)
             for name, kind, default in _OPTION_PARAMS]

    added.append(inspect.Parameter("skip_bad_lines", inspect.Parameter.KEYWORD_ONLY,
                                   default=SKIP_BAD_LINES_OPTION, annotation=bool))

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from incanon.jsonlines import skipping_bad_lines

        values = {name: kwargs.pop(name) for name, _, _ in _OPTION_PARAMS if name in kwargs}
        with skipping_bad_lines(bool(kwargs.pop("skip_bad_lines", False))) as skipped:
            try:
                return command(*args, **kwargs, run_options=run_options(**values))
            finally:
                if skipped.count:  # also when the command fails: the count explains a short run
                    err.print(Text(skipped.summary(), style="yellow"), soft_wrap=True)

    params = kept
    wrapper.__signature__ = signature.replace(parameters=params + added)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {**{p.name: p.annotation for p in params},
                               **{name: kind for name, kind, _ in _OPTION_PARAMS}, "skip_bad_lines": bool,
                               "return": hints.get("return", None)}
    return wrapper


def cost_tail(result: RunResult) -> str:
    """The end of a run's closing line: what it cost."""
    return f"${result.usage.cost:.4f}"


def print_runs(done: Evaluation, tail: Callable[[RunResult], str] = cost_tail) -> None:
    """One line per run of an evaluation on stderr: method, run id, status, counts, ``tail``."""
    for method, r in zip(done.methods, done.results):
        err.print(f"{method}: run {r.run_id}: {r.status}, ran {r.ran} ({r.failed} failed), "
                  f"{r.skipped} already done, {tail(r)}", style="yellow" if r.failed else "dim",
                  highlight=False, markup=False)


def runs_json(done: Evaluation) -> list[dict[str, Any]]:
    """The runs of an evaluation as the ``runs`` list of a command's ``--json`` document."""
    return [{"run_id": r.run_id, "method": m, "status": r.status, "ran": r.ran, "ok": r.ok, "failed": r.failed,
             "skipped": r.skipped, "resumed": r.resumed, "usage": r.usage.model_dump(),
             "elapsed_s": r.elapsed_s} for m, r in zip(done.methods, done.results)]


def _counted(n: int, noun: str) -> str:
    """``1 item``, ``2 items``, ``1,200 items``."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _num(value: float) -> str:
    """Compact count: 950, 12.5k, 2.55M."""
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= size:
            return f"{value / size:.3g}{suffix}"
    return f"{value:.3g}" if value != int(value) else f"{int(value)}"


def print_estimate(estimate: RunEstimate, *, max_cost: float | None = None) -> None:
    """The estimate as a table on stdout; totals and what it rests on on stderr."""
    table = Table(title="dry run: estimated model use (no model was called)", box=box.SIMPLE_HEAD)
    table.add_column("step / model", overflow="fold")
    for col in ("calls", "min–max", "tokens in", "tokens out", "USD"):
        table.add_column(col, justify="right", no_wrap=True)
    for r in estimate.rows:
        label = Text(r.label)
        label.append(f"\n  {r.model}", style="dim")
        if r.note:
            label.append(f"\n  {r.note}", style="dim italic")
        table.add_row(label, _num(r.calls), f"{_num(r.calls_min)}–{_num(r.calls_max)}",
                      _num(r.prompt_tokens), _num(r.completion_tokens), "?" if r.cost is None else f"{r.cost:,.4f}")
    cost = estimate.cost
    table.add_row("total", _num(estimate.calls), "", _num(sum(r.prompt_tokens for r in estimate.rows)),
                  _num(sum(r.completion_tokens for r in estimate.rows)),
                  "?" if cost is None else f"{cost:,.4f}", style="bold")
    out.print(table)
    lines = [f"{_counted(estimate.items, 'item')}, {_counted(estimate.samples, 'sample')} to run"
             + (f" ({estimate.done:,} already done in {estimate.run_id})" if estimate.done else ""),
             f"prices: {estimate.prices} (built-in hosted prices are examples from {EXAMPLE_PRICES_DATE})"]
    m = estimate.measured
    if m:
        lines.append(f"measured so far in this run: {m['calls']:.2f} calls, {m['tokens']:,.0f} tokens, "
                     f"${m['cost']:.6f} per sample (over {m['n']:,.0f}); the {estimate.samples:,} left at that "
                     f"rate: {m['calls'] * estimate.samples:,.0f} calls, ${m['cost'] * estimate.samples:,.4f}")
    undeclared = [r.label for r in estimate.rows if r.source == "default"]
    if undeclared:
        lines.append(f"no call pattern declared for {', '.join(undeclared)}: assumed 1 call of "
                     f"{DEFAULT_PATTERN.prompt_tokens}+{DEFAULT_PATTERN.completion_tokens} tokens per item")
    unpriced = sorted({r.model for r in estimate.rows if r.cost is None})
    if unpriced:
        lines.append(f"no price for {', '.join(unpriced)}: add it to a --prices file")
    if max_cost is not None and cost is not None and cost > max_cost:
        lines.append(f"the estimate (${cost:,.4f}) exceeds --max-cost ${max_cost:,.4f}: the run would stop "
                     "before the end")
    for line in lines:
        err.print(Text(line), soft_wrap=True)


__all__ = [
    "ADDRESS_OPTION", "DRY_RUN_OPTION", "EXECUTOR_OPTION", "MAX_COST_OPTION", "PRICES_OPTION", "SHARD_OPTION",
    "SKIP_BAD_LINES_OPTION",
    "CallPattern", "EstimateLine", "RunOptions", "cost_tail", "method_lines", "print_estimate",
    "print_runs", "run_options", "runs_json",
    "with_run_options",
]
