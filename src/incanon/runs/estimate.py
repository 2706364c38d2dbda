"""``--dry-run``: calls, tokens and cost of a run, predicted before any model is called.

Each step of a run that calls a model (the role-play method, each judge) declares a
:class:`CallPattern`: how many calls it makes per item and how many tokens each takes. A
method declares it as a class attribute ``call_pattern`` of its ``Agent`` (or a static/class
method ``estimate_calls(item) -> CallPattern`` when it depends on the item), or with
:func:`register_call_pattern`; built-in methods have defaults below. :func:`estimate_run`
multiplies the patterns by the samples still to run (shard and resume taken into account) and
prices them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence, Union

from pydantic import BaseModel, ConfigDict, Field

from incanon.errors import NotFoundError
from incanon.runs.ambient import current_defaults
from incanon.runs.config import RunConfig
from incanon.runs.prices import Prices, PricesArg, as_prices
from incanon.runs.records import RunItem, input_hash
from incanon.runs.shard import Shard
from incanon.runs.store import RunStore


class CallPattern(BaseModel):
    """The model calls one step makes for one item (one sample)."""

    model_config = ConfigDict(frozen=True)

    calls: float = 1.0
    """Expected calls per item (may be fractional: 2.5 when half the items need a third call)."""
    min_calls: int | None = None
    """Fewest calls per item (default: ``calls`` rounded down)."""
    max_calls: int | None = None
    """Most calls per item (default: ``calls`` rounded up)."""
    prompt_tokens: int = Field(default=500, ge=0)
    """Prompt tokens per call."""
    completion_tokens: int = Field(default=150, ge=0)
    """Completion tokens per call."""
    source: str = "declared"
    """Where the pattern comes from (``declared``, ``built-in``, ``default``)."""

    @property
    def low(self) -> int:
        return self.min_calls if self.min_calls is not None else int(self.calls)

    @property
    def high(self) -> int:
        return self.max_calls if self.max_calls is not None else -int(-self.calls // 1)


Hook = Callable[[RunItem], CallPattern]
PatternArg = Union[CallPattern, Hook]
"""A fixed pattern, or ``estimate_calls(item) -> CallPattern``."""

DEFAULT_PATTERN = CallPattern(source="default")
"""Assumed for a step that declares nothing: one call of average size."""

_PATTERNS: dict[str, PatternArg] = {}


def register_call_pattern(name: str, pattern: PatternArg) -> None:
    """Declare the call pattern of method (or step) ``name``."""
    _PATTERNS[name] = pattern


# Built-in role-play methods (calls per answered turn, from their docstrings; tokens are
# typical sizes with the default templates and a short persona).
for _name, _pattern in {
    "zero-shot": CallPattern(calls=1, prompt_tokens=450, completion_tokens=120),
    "zero-shot-cot": CallPattern(calls=1, prompt_tokens=480, completion_tokens=260),
    "few-shot": CallPattern(calls=1, prompt_tokens=1400, completion_tokens=120),
    "rag": CallPattern(calls=1, prompt_tokens=1600, completion_tokens=120),
    "rag-cutoff": CallPattern(calls=1, prompt_tokens=1400, completion_tokens=120),
    "self-refine": CallPattern(calls=3, min_calls=2, max_calls=7, prompt_tokens=650, completion_tokens=160),
    "narrative-experts": CallPattern(calls=2.5, min_calls=2, max_calls=3, prompt_tokens=600, completion_tokens=170),
    "narrative-experts-rag-cutoff": CallPattern(calls=2.5, min_calls=2, max_calls=3, prompt_tokens=1700,
                                                completion_tokens=170),
    # The experts' calls and the answer, whose prompt also carries the known facts and relations.
    "in-canon": CallPattern(calls=2.5, min_calls=2, max_calls=3, prompt_tokens=1900, completion_tokens=170),
}.items():
    register_call_pattern(_name, _pattern.model_copy(update={"source": "built-in"}))


def _agent_class(name: str) -> Any:
    try:
        from incanon.agents import registry
    except ImportError:  # pragma: no cover
        return None
    registry.agent_names()  # loads built-in and benchmark methods
    return registry._AGENTS.get(name)


def call_pattern_of(method: Any) -> PatternArg:
    """The call pattern of ``method``: an object or class with ``estimate_calls`` or
    ``call_pattern``, or a method name (its agent class's declaration, else one registered
    with :func:`register_call_pattern`, else :data:`DEFAULT_PATTERN`)."""
    target = _agent_class(method) if isinstance(method, str) else method
    if target is not None:
        hook = getattr(target, "estimate_calls", None)
        if callable(hook):
            return hook
        declared = getattr(target, "call_pattern", None)
        if isinstance(declared, CallPattern):
            return declared
    if isinstance(method, str) and method in _PATTERNS:
        return _PATTERNS[method]
    return DEFAULT_PATTERN


@dataclass
class EstimateLine:
    """One step to estimate: a label (``agent: rag``, ``judge``), its model and its pattern."""

    label: str
    model: str
    pattern: PatternArg = field(default_factory=lambda: DEFAULT_PATTERN)
    note: str = ""
    """What the pattern assumes (printed under the line), e.g. how often a conditional call happens."""


def method_lines(methods: Sequence[str], model: str, *, role: str = "agent") -> list[EstimateLine]:
    """One estimate line per role-play method, with the method's declared call pattern."""
    return [EstimateLine(f"{role}: {m}", model, call_pattern_of(m)) for m in methods]


def repeated(line: EstimateLine, times: int, why: str) -> EstimateLine:
    """``line`` made ``times`` times per item (e.g. a judge that runs again in each method's run);
    ``why`` is added to its note."""
    if times == 1:
        return line

    def hook(item: RunItem) -> CallPattern:
        p = line.pattern if isinstance(line.pattern, CallPattern) else line.pattern(item)
        return p.model_copy(update={"calls": p.calls * times, "min_calls": p.low * times,
                                    "max_calls": p.high * times})

    note = f"{line.note}; × {times} {why}" if line.note else f"× {times} {why}"
    return EstimateLine(line.label, line.model, hook, note=note)


class EstimateRow(BaseModel):
    """Predicted totals of one step."""

    label: str
    model: str
    samples: int
    calls: float
    calls_min: int
    calls_max: int
    prompt_tokens: float
    completion_tokens: float
    cost: float | None
    """USD; None when the model has no price."""
    source: str
    note: str = ""
    """What the step's pattern assumes."""


class RunEstimate(BaseModel):
    """What a run would cost: one row per step, and totals."""

    run_id: str | None = None
    items: int
    """Distinct items in the run (in this shard)."""
    samples: int
    """Samples still to run (items × epochs, less those done)."""
    done: int = 0
    """Samples already done in the run (skipped on resume)."""
    rows: list[EstimateRow]
    prices: str = ""
    """Where the prices come from."""
    measured: dict[str, float] | None = None
    """Per-sample means over the run's stored ok samples (calls, tokens, cost, n), when it has
    some: a check on the declared patterns."""

    @property
    def calls(self) -> float:
        return sum(r.calls for r in self.rows)

    @property
    def tokens(self) -> float:
        return sum(r.prompt_tokens + r.completion_tokens for r in self.rows)

    @property
    def cost(self) -> float | None:
        """Total USD, None when some step's model has no price."""
        costs = [r.cost for r in self.rows]
        return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON, with totals."""
        return {**self.model_dump(mode="json"), "calls": self.calls, "tokens": self.tokens, "cost": self.cost}


def _selected(items: Iterable[Any], shard: Shard | None) -> list[RunItem]:
    chosen: dict[str, RunItem] = {}
    for raw in items:
        item = raw if isinstance(raw, RunItem) else RunItem(id=str(raw["id"]), input=dict(raw.get("input") or {}))
        if item.id not in chosen and (shard is None or shard.contains(item.id)):
            chosen[item.id] = item
    return list(chosen.values())


def _measured(store: RunStore, run_id: str) -> dict[str, float] | None:
    n = calls = tokens = cost = 0.0
    for sample in store.samples(run_id, status="ok"):
        n += 1
        calls += sample.usage.calls
        tokens += sample.usage.total_tokens
        cost += sample.usage.cost
    if not n:
        return None
    return {"n": n, "calls": calls / n, "tokens": tokens / n, "cost": cost / n}


def _done(store: RunStore | None, config: RunConfig | None, items: list[RunItem], epochs: int,
          retry_failed: bool) -> tuple[str | None, set[tuple[str, int]]]:
    if store is None or config is None:
        return None, set()
    try:
        run_id = store.get_run(config.run_id).id
    except NotFoundError:
        return config.run_id, set()
    states = store.sample_states(run_id)
    digests = {item.id: input_hash(item.input) for item in items}
    done = {(item_id, epoch) for (item_id, epoch), (status, digest) in states.items()
            if item_id in digests and epoch < epochs and digest == digests[item_id]
            and (status == "ok" or not retry_failed)}
    return run_id, done


def estimate_run(
    items: Iterable[Any],
    lines: Sequence[EstimateLine],
    *,
    epochs: int = 1,
    prices: PricesArg = None,
    store: RunStore | None = None,
    config: RunConfig | None = None,
    shard: Shard | str | None = None,
    retry_failed: bool = True,
) -> RunEstimate:
    """Predict a run's calls, tokens and cost from ``lines`` without calling any model.

    ``items`` as for ``run_items`` (only ids and inputs are read). With ``store`` and
    ``config`` the samples the run already finished are left out (what a resume would run);
    ``shard`` (default: the one :func:`run_defaults` set) keeps only that shard's items.
    """
    defaults = current_defaults()
    shard = Shard.parse(shard) if shard is not None else defaults.shard
    table: Prices = as_prices(prices) if prices is not None else (defaults.prices or Prices.builtin())
    chosen = _selected(items, shard)
    if config is not None and shard is not None and shard.count > 1:
        config = shard.config(config)
    run_id, done = _done(store, config, chosen, epochs, retry_failed)
    todo = [(item, epoch) for item in chosen for epoch in range(epochs) if (item.id, epoch) not in done]
    rows = []
    for line in lines:
        calls = low = high = 0.0
        prompt = completion = 0.0
        source = ""
        for item, epoch in todo:
            pattern = line.pattern if isinstance(line.pattern, CallPattern) else line.pattern(
                item.model_copy(update={"epoch": epoch}))
            calls += pattern.calls
            low += pattern.low
            high += pattern.high
            prompt += pattern.calls * pattern.prompt_tokens
            completion += pattern.calls * pattern.completion_tokens
            source = pattern.source
        if not todo:
            source = line.pattern.source if isinstance(line.pattern, CallPattern) else "declared"
        rows.append(EstimateRow(
            label=line.label, model=line.model, samples=len(todo), calls=calls, calls_min=int(low),
            calls_max=int(high), prompt_tokens=prompt, completion_tokens=completion,
            cost=table.cost(line.model, prompt, completion), source=source, note=line.note))
    measured = _measured(store, run_id) if store is not None and run_id is not None and done else None
    return RunEstimate(run_id=run_id, items=len(chosen), samples=len(todo), done=len(done), rows=rows,
                       prices=table.source, measured=measured)
