"""The paper600 sampler: counts, determinism, proportional scaling with a shortfall warning."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from incanon.bench.timechara import PAPER_MIX, TimeCharaItem, parse_sample_spec, sample_items
from incanon.errors import ConfigError, InputError


def _items(per_cell: dict[tuple[str, str], int]) -> list[TimeCharaItem]:
    out = []
    for (qg, dt), n in per_cell.items():
        for i in range(n):
            out.append(TimeCharaItem(
                id=f"{qg}/{dt}/{i:04d}", series="s", question_generation=qg, data_type=dt,
                question="Q?", character="C", character_period="p", temporal_label="L",
                spatial_label="S" if dt in ("past-presence", "past-absence") else "-"))
    return out


def _cells(items):
    return Counter((i.question_generation, i.data_type) for i in items)


def test_paper600_takes_100_of_each_cell():
    pool = _items({cell: 150 for cell in PAPER_MIX})
    result = sample_items(pool, "paper600", seed=0)
    assert len(result.items) == 600 and result.scale == 1.0 and not result.warnings
    assert _cells(result.items) == {cell: 100 for cell in PAPER_MIX}
    assert len({i.id for i in result.items}) == 600


def test_same_seed_same_sample_whatever_the_order():
    pool = _items({cell: 130 for cell in PAPER_MIX})
    shuffled = pool[:]
    random.Random(1).shuffle(shuffled)
    a = [i.id for i in sample_items(pool, seed=7).items]
    b = [i.id for i in sample_items(shuffled, seed=7).items]
    c = [i.id for i in sample_items(pool, seed=8).items]
    assert a == b and a != c


def test_smaller_work_scales_the_mix_and_lists_the_shortfall():
    available = dict(zip(PAPER_MIX, [50, 100, 300, 100, 100, 20]))
    result = sample_items(_items(available), "paper600", seed=0)
    assert result.scale == pytest.approx(0.2)
    assert _cells(result.items) == {cell: 20 for cell in PAPER_MIX}
    (warning,) = result.warnings
    assert "120 items instead of 600" in warning
    assert "fact_structured/future: 50 available of 100 (took 20)" in warning
    assert "fake_freeform/past-only: 20 available of 100 (took 20)" in warning
    assert "past-absence" not in warning  # 300 available: no shortfall
    assert [c.taken for c in result.cells] == [20] * 6


def test_an_empty_cell_is_reported_and_does_not_zero_the_rest():
    available = {cell: 40 for cell in PAPER_MIX}
    available[("fake_freeform", "past-only")] = 0
    result = sample_items(_items(available), "paper60", seed=0)
    assert _cells(result.items)[("fake_freeform", "past-only")] == 0
    assert sum(_cells(result.items).values()) == 50
    assert "fake_freeform/past-only: 0 available of 10 (took 0)" in result.warnings[0]


def test_every_cell_keeps_at_least_one_item_when_scaling_is_steep():
    available = {cell: 200 for cell in PAPER_MIX}
    available[("fact_freeform", "future")] = 1
    result = sample_items(_items(available), "paper600", seed=0)
    assert result.scale == pytest.approx(0.01)
    assert set(_cells(result.items).values()) == {1}


def test_sample_specs():
    assert parse_sample_spec("paper600") == PAPER_MIX
    assert sum(parse_sample_spec("paper60").values()) == 60
    assert list(parse_sample_spec("paper8").values()) == [2, 2, 1, 1, 1, 1]
    for bad in ("random", "paper5", "paper"):
        with pytest.raises(ConfigError, match="paper600"):
            parse_sample_spec(bad)
    with pytest.raises(InputError):
        sample_items([], "paper600")
