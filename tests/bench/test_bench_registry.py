"""Benchmarks by name: every built-in run's benchmark name has a class with the protocol's members,
plugins register with the decorator, an unknown name lists the known ones."""

from __future__ import annotations

import inspect

import pytest

from incanon.bench import registry
from incanon.errors import ConfigError
from incanon.runs.benchmark import Benchmark

MEMBERS = ("items", "methods", "agent", "score", "config", "estimate", "report")


def test_every_built_in_benchmark_is_registered_under_its_run_name():
    names = registry.benchmark_names()
    assert {"timechara", "rolerag", "sharp", "dialsim", "coser-gca", "coser-judge"} <= set(names)
    for name in ("timechara", "rolerag", "sharp", "dialsim", "coser-gca", "coser-judge"):
        cls = registry.benchmark_class(name)
        assert cls.name == name, name
        missing = [m for m in MEMBERS if not callable(getattr(cls, m, None))]
        assert missing == [], (name, missing)
        assert inspect.iscoroutinefunction(cls.score), name


def test_an_unknown_benchmark_names_the_known_ones():
    with pytest.raises(ConfigError, match=r"unknown benchmark 'nope'; known: .*timechara"):
        registry.benchmark_class("nope")


def test_a_plugin_registers_with_the_decorator(monkeypatch):
    monkeypatch.setattr(registry, "_BENCHMARKS", dict(registry._BENCHMARKS))

    @registry.register_benchmark("toy")
    class Toy:
        name = "toy"

        def items(self): return []
        def methods(self): return ["m"]
        def agent(self, method): return None
        async def score(self, agent, item): return {"outputs": {}}
        def config(self, method): raise NotImplementedError
        def estimate(self): return []
        def report(self, store, run_ids): return None

    assert registry.benchmark_class("toy") is Toy and "toy" in registry.benchmark_names()
    assert isinstance(Toy(), Benchmark)


def test_a_set_up_benchmark_is_a_benchmark(tmp_path):
    from incanon.bench.timechara.benchmark import DryRun, TimeChara

    bench = TimeChara([], ["zero-shot"], lambda: pytest.fail("a dry run makes no setup"),
                      dry_run=DryRun(judge="scripted:x"))
    assert isinstance(bench, Benchmark)
    assert bench.items() == [] and [line.label for line in bench.estimate()][:1] == ["judge: spatiotemporal"]
