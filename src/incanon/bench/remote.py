"""What benchmarks share to run their tasks on other machines (``--executor ray``).

A benchmark's task holds models with HTTP clients and response caches, canon stores with open
SQLite handles: none of it can be pickled to a Ray worker. So each benchmark keeps a small,
picklable *worker spec* (model spec strings, file paths, flags) and a module-level factory that
rebuilds its task from it inside the worker; :func:`task_arg` picks that factory only when the
samples really run elsewhere, so a local run builds nothing twice.
"""

from __future__ import annotations

import functools
import importlib
from pathlib import Path
from typing import Any, Callable

from incanon.models.types import ChatModel
from incanon.runs.ambient import current_defaults
from incanon.runs.executor import LocalExecutor, per_worker

CacheSetting = bool | str
"""The response cache as a worker opens it: off (False), the default file (True) or a path."""


def cache_setting(cache: Path | None, no_cache: bool) -> CacheSetting:
    """``--cache`` / ``--no-cache`` as a picklable value (the same file on every node)."""
    if no_cache:
        return False
    return str(cache.expanduser()) if cache is not None else True


def load_models(specs: list[str], cache: CacheSetting) -> dict[str, ChatModel]:
    """Each distinct spec loaded once, with the response cache as set."""
    from incanon.models import load_chat_model

    loaded: dict[str, ChatModel] = {}
    for spec in specs:
        if spec not in loaded:
            loaded[spec] = load_chat_model(spec, cache=cache)
    return loaded


def runs_elsewhere() -> bool:
    """True when the ``run_items`` calls here send their samples to another process (the
    executor set by ``--executor`` is not the local one)."""
    engine = current_defaults().executor
    return engine is not None and not isinstance(engine, LocalExecutor)


def call_by_path(path: str, *args: Any) -> Any:
    """Import ``module:function`` and call it with ``args`` (picklable: the path is a string)."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)(*args)


def task_arg(local: Callable[[], Any], factory: Callable[..., Any] | str, *args: Any) -> Any:
    """The task to give ``run_items``: ``local()`` when samples run in this process, else
    ``per_worker(partial(factory, *args))`` (``factory`` module-level, ``args`` picklable).
    ``factory`` may be named as ``"module:function"``, so a benchmark's evaluation module need
    not import its worker module (which imports it back)."""
    if runs_elsewhere():
        if isinstance(factory, str):
            return per_worker(functools.partial(call_by_path, factory, *args))
        return per_worker(functools.partial(factory, *args))
    return local()


def path_or_none(path: Path | None) -> str | None:
    """An optional path as a plain string (resolved, so workers read the same file)."""
    return str(path.expanduser().resolve()) if path is not None else None


__all__ = ["CacheSetting", "cache_setting", "call_by_path", "load_models", "path_or_none", "runs_elsewhere",
           "task_arg"]
