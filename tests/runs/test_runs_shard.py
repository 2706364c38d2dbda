"""Deterministic sharding: a partition by item id, part of the run's identity."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections import Counter

import pytest

from incanon.errors import ConfigError
from incanon.runs import ItemOutcome, RunItem, Shard, run_defaults, run_items, shard_index
from incanon.runs.shard import shard_of_config, unsharded
from runs_testutil import make_items


def _ids(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    kinds = ["i{:05d}", "scene-{}", "Harry/{}", "ünïcode-{}", "{}"]
    return [rng.choice(kinds).format(rng.randrange(10**9)) for _ in range(n)]


@pytest.mark.parametrize("count", [1, 2, 3, 4, 7, 16])
def test_every_item_is_in_exactly_one_shard(count):
    ids = _ids(3000, seed=count)
    shards = [Shard(i, count) for i in range(1, count + 1)]
    for item_id in ids:
        owners = [s for s in shards if s.contains(item_id)]
        assert len(owners) == 1
        assert owners[0].index == shard_index(item_id, count) + 1


def test_partition_depends_on_ids_not_positions():
    ids = _ids(2000)
    shard = Shard(2, 5)
    forward = [i for i in ids if shard.contains(i)]
    shuffled = ids[:]
    random.Random(7).shuffle(shuffled)
    assert set(forward) == {i for i in shuffled if shard.contains(i)}
    # Adding items never moves existing ones.
    more = ids + _ids(500, seed=99)
    assert set(forward) <= {i for i in more if shard.contains(i)}


def test_partition_is_stable_across_processes_and_versions():
    # sha256-based: fixed values that neither PYTHONHASHSEED nor a new release may change.
    assert [shard_index(x, 4) for x in ("a", "b", "c", "item-1")] == [2, 2, 2, 0]
    code = "from incanon.runs import shard_index; print([shard_index(f'i{k:04d}', 4) for k in range(12)])"
    outputs = {
        subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": seed},
                       capture_output=True, text=True, check=True).stdout.strip()
        for seed in ("1", "2")
    }
    assert outputs == {str([shard_index(f"i{k:04d}", 4) for k in range(12)])}


def test_shards_are_roughly_balanced():
    counts = Counter(shard_index(i, 4) for i in _ids(8000))
    assert set(counts) == {0, 1, 2, 3}
    assert min(counts.values()) > 8000 / 4 * 0.85


@pytest.mark.parametrize("text,expected", [("1/4", Shard(1, 4)), (" 4 / 4 ", Shard(4, 4)), ("1/1", Shard(1, 1))])
def test_parse(text, expected):
    assert Shard.parse(text) == expected
    assert str(Shard.parse(text)) == f"{expected.index}/{expected.count}"


@pytest.mark.parametrize("text,message", [("0/4", "numbered from 1"), ("5/4", "1 to 4"), ("1/0", "at least 1"),
                                          ("2", "i/n"), ("a/b", "i/n"), ("-1/3", "i/n")])
def test_parse_errors_name_the_problem(text, message):
    with pytest.raises(ConfigError, match=message):
        Shard.parse(text)


def test_shard_is_part_of_the_run_identity(config):
    one, two = Shard(1, 2).config(config), Shard(2, 2).config(config)
    assert len({config.run_id, one.run_id, two.run_id}) == 3
    assert unsharded(one).run_id == config.run_id == unsharded(config).run_id
    assert shard_of_config(two) == Shard(2, 2) and shard_of_config(config) is None
    with pytest.raises(ConfigError, match="already names shard"):
        Shard(1, 2).config(two)


async def _echo(item: RunItem) -> ItemOutcome:
    return ItemOutcome(outputs={"x": item.input["x"]})


async def test_runner_runs_only_its_shard_and_shards_cover_everything(store, config):
    items = make_items(60)
    seen: dict[str, str] = {}
    run_ids = set()
    for i in (1, 2, 3):
        result = await run_items(items, _echo, store=store, config=config, shard=f"{i}/3", progress=False,
                                 epochs=2)
        run_ids.add(result.run_id)
        info = store.get_run(result.run_id)
        assert info.config.params["shard"] == f"{i}/3"
        ids = {s.item_id for s in store.samples(result.run_id)}
        assert info.total == 2 * len(ids) and result.ran == 2 * len(ids)
        for item_id in ids:
            assert item_id not in seen
            seen[item_id] = f"{i}/3"
    assert set(seen) == {it.id for it in items}
    assert len(run_ids) == 3 and config.run_id not in run_ids
    # Resuming one shard runs nothing; shard 1/1 is the whole run.
    again = await run_items(items, _echo, store=store, config=config, shard="2/3", progress=False, epochs=2)
    assert again.ran == 0 and again.skipped > 0
    whole = await run_items(items, _echo, store=store, config=config, shard="1/1", progress=False)
    assert whole.run_id == config.run_id and whole.ran == 60


async def test_shard_from_run_defaults_and_explicit_wins(store, config):
    items = make_items(40)
    with run_defaults(shard="1/2"):
        first = await run_items(items, _echo, store=store, config=config, progress=False)
        second = await run_items(items, _echo, store=store, config=config, progress=False, shard="2/2")
    assert store.get_run(first.run_id).config.params["shard"] == "1/2"
    assert store.get_run(second.run_id).config.params["shard"] == "2/2"
    assert first.ran + second.ran == 40


async def test_streamed_items_are_sharded_too(store, config):
    async def stream():
        for item in make_items(30):
            yield item

    result = await run_items(stream(), _echo, store=store, config=config, shard="3/3", progress=False)
    expected = {it.id for it in make_items(30) if Shard(3, 3).contains(it.id)}
    assert {s.item_id for s in store.samples(result.run_id)} == expected


async def test_per_worker_factory_runs_locally_and_reports_its_templates(store, config, tmp_path):
    from incanon.runs import per_worker
    from incanon.templates import PromptLibrary, fingerprint

    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "probe.j2").write_text("hi {{ x }}")
    built = []

    def factory():
        library = PromptLibrary(tmp_path / "p")
        built.append(library)

        async def task(item: RunItem) -> ItemOutcome:
            return ItemOutcome(outputs={"t": library.render("probe", x=item.input["x"])})

        return task, library.used

    result = await run_items(make_items(5), per_worker(factory), store=store, config=config, progress=False)
    assert len(built) == 1 and result.ok == 5
    assert store.get_run(result.run_id).config.templates == {"probe": fingerprint("hi {{ x }}")}
