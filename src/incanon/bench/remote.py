"""What benchmarks share to run their tasks on other machines (``--executor ray``).

A benchmark's task holds models with HTTP clients and response caches, canon stores with open
SQLite handles: none of it can be pickled to a Ray worker. So each benchmark keeps a small,
picklable *worker spec* (model spec strings, file paths, flags) and a module-level factory that
rebuilds its task from it inside the worker, named by ``"module:function"`` (:func:`call_by_path`)
in the benchmark's ``remote(method)``; the driver (:func:`incanon.runs.driver.task_for`) picks it
only when the samples really run elsewhere, so a local run builds nothing twice.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from incanon.models.types import ChatModel

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


def call_by_path(path: str, *args: Any) -> Any:
    """Import ``module:function`` and call it with ``args`` (picklable: the path is a string)."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)(*args)


def path_or_none(path: Path | None) -> str | None:
    """An optional path as a plain string (resolved, so workers read the same file)."""
    return str(path.expanduser().resolve()) if path is not None else None


__all__ = ["CacheSetting", "cache_setting", "call_by_path", "load_models", "path_or_none"]
