"""Benchmarks by name: each one class implementing :class:`incanon.runs.benchmark.Benchmark`.

The built-in ones are named below by ``"module:Class"`` and imported on first lookup (their
modules import :func:`register_benchmark` from here: no import cycle). A benchmark shipped as
``incanon.bench.<package>.benchmark`` registers itself when found, and a plugin registers under
the ``incanon.benchmarks`` entry-point group (``name = "package.module:Class"``), so adding a
benchmark never edits this file::

    @register_benchmark("mybench")
    class MyBench:
        name = "mybench"
        ...
"""

from __future__ import annotations

import importlib
from typing import Callable, TypeVar

from incanon.errors import ConfigError

T = TypeVar("T", bound=type)

#: Run-id benchmark name → the class that runs it.
BUILTIN_BENCHMARKS: dict[str, str] = {
    "timechara": "incanon.bench.timechara.benchmark:TimeChara",
    "rolerag": "incanon.bench.rolerag.benchmark:RoleRAG",
    "sharp": "incanon.bench.sharp.benchmark:Sharp",
    "dialsim": "incanon.bench.dialsim.benchmark:DialSim",
    "coser-gca": "incanon.bench.coser.benchmark:CoserSimulation",
    "coser-judge": "incanon.bench.coser.benchmark:CoserJudging",
}
ENTRY_POINTS = "incanon.benchmarks"
"""Entry-point group of plugin benchmarks."""

_BENCHMARKS: dict[str, type] = {}
_loaded = False


def register_benchmark(name: str) -> Callable[[T], T]:
    """Class decorator: make a benchmark class available as ``name`` (its runs' benchmark name)."""

    def wrap(cls: T) -> T:
        _BENCHMARKS[name] = cls
        return cls

    return wrap


def _load(target: str) -> type:
    module_name, _, class_name = target.partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def _discover() -> None:
    # Benchmark packages of incanon.bench with a benchmark module register on import.
    import pkgutil

    import incanon.bench

    for info in pkgutil.iter_modules(incanon.bench.__path__):
        name = f"incanon.bench.{info.name}.benchmark"
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise


def _plugins() -> None:
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINTS):
        _BENCHMARKS.setdefault(point.name, _load(point.value))


def _load_all() -> None:
    global _loaded
    if _loaded:
        return
    for name, target in BUILTIN_BENCHMARKS.items():
        _BENCHMARKS.setdefault(name, _load(target))
    _discover()
    _plugins()
    _loaded = True


def benchmark_names() -> list[str]:
    """Every registered benchmark name."""
    _load_all()
    return sorted(_BENCHMARKS)


def benchmark_class(name: str) -> type:
    """The class of benchmark ``name``; an unknown name lists the known ones."""
    _load_all()
    try:
        return _BENCHMARKS[name]
    except KeyError:
        raise ConfigError(f"unknown benchmark {name!r}; known: {', '.join(sorted(_BENCHMARKS))}") from None


__all__ = ["BUILTIN_BENCHMARKS", "ENTRY_POINTS", "benchmark_class", "benchmark_names", "register_benchmark"]
