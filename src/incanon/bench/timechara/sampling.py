"""The paper's evaluation sample: 600 items in six cells, stratified and seeded (§5.1).

Structured questions: 100 future, 100 past-presence, 100 past-absence; fact free-form: 100
future, 100 past-only; fake free-form: 100 past-only. A work with fewer items gets the same mix
scaled down by one factor (the smallest cell's share that is available), and a warning that
lists the shortfall of every cell.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, field
from typing import Sequence

from incanon.bench.timechara.items import TimeCharaItem
from incanon.errors import ConfigError, InputError

Cell = tuple[str, str]
"""(question_generation, data_type)."""

PAPER_MIX: dict[Cell, int] = {
    ("fact_structured", "future"): 100,
    ("fact_structured", "past-presence"): 100,
    ("fact_structured", "past-absence"): 100,
    ("fact_freeform", "future"): 100,
    ("fact_freeform", "past-only"): 100,
    ("fake_freeform", "past-only"): 100,
}


@dataclass(frozen=True)
class CellDraw:
    """What one cell asked for, had, and got."""

    question_generation: str
    data_type: str
    requested: int
    available: int
    taken: int

    @property
    def name(self) -> str:
        """``fact_structured/future``."""
        return f"{self.question_generation}/{self.data_type}"


@dataclass
class SampleResult:
    """The sampled items, in a stable order, and how each cell fared."""

    items: list[TimeCharaItem]
    cells: list[CellDraw]
    scale: float
    """1.0 when every cell was full; else the factor the mix was scaled by."""
    warnings: list[str] = field(default_factory=list)


def parse_sample_spec(spec: str) -> dict[Cell, int]:
    """``paper600`` (the paper's mix) or ``paperN`` (the same six cells, N items in all)."""
    match = re.fullmatch(r"\s*paper(\d+)\s*", spec.lower())
    if not match or int(match.group(1)) < len(PAPER_MIX):
        raise ConfigError(f"unknown sample {spec!r}; use paper600, or paperN for the same mix with N >= 6 items")
    total = int(match.group(1))
    base, extra = divmod(total, len(PAPER_MIX))
    return {cell: base + (1 if i < extra else 0) for i, cell in enumerate(PAPER_MIX)}


def sample_items(items: Sequence[TimeCharaItem], spec: str = "paper600", seed: int = 0) -> SampleResult:
    """Draw the mix of ``spec`` from ``items``; the same items and seed give the same sample,
    whatever the input order."""
    wanted = parse_sample_spec(spec)
    pools: dict[Cell, list[TimeCharaItem]] = {cell: [] for cell in wanted}
    for item in items:
        cell = (item.question_generation, item.data_type)
        if cell in pools:
            pools[cell].append(item)
    shares = [len(pools[c]) / n for c, n in wanted.items() if pools[c]]
    if not shares:
        raise InputError(f"none of the {len(items)} items falls in a cell of sample {spec!r}")
    scale = min(1.0, *shares)
    chosen: list[TimeCharaItem] = []
    cells: list[CellDraw] = []
    for (qg, dt), requested in wanted.items():
        pool = sorted(pools[(qg, dt)], key=lambda i: i.id)
        target = min(len(pool), max(1, math.floor(requested * scale + 1e-9))) if pool else 0
        rng = random.Random(f"{seed}:{qg}:{dt}")
        picked = sorted(rng.sample(pool, target), key=lambda i: i.id)
        chosen.extend(picked)
        cells.append(CellDraw(qg, dt, requested, len(pool), target))
    result = SampleResult(chosen, cells, scale)
    short = [c for c in cells if c.available < c.requested]
    if short:
        detail = "; ".join(f"{c.name}: {c.available} available of {c.requested} (took {c.taken})" for c in short)
        result.warnings.append(
            f"sample {spec}: not enough items for the full mix, scaled to {scale:.0%} of it "
            f"({len(chosen)} items instead of {sum(wanted.values())}); {detail}"
        )
    return result
