"""Package exports imported on first use (PEP 562), so importing a package stays light.

A package lists its public names as ordinary ``from incanon.x.y import Name`` lines under
``if TYPE_CHECKING:`` (what type checkers and readers see) and ends with::

    __getattr__, __dir__ = lazy_exports(__name__, __file__)

The first time a name is read from the package, those lines are read (once) and the one
submodule that defines it is imported. ``incanon runs list`` then no longer imports the model
clients, and ``import incanon.models`` no longer imports the HTTP stacks.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _table(source: str) -> dict[str, tuple[str, str]]:
    """``{exported name: (module, name in it)}`` from the ``from ... import`` lines under the
    source's ``if TYPE_CHECKING:`` blocks."""
    table: dict[str, tuple[str, str]] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            continue
        for stmt in node.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.level == 0:
                for alias in stmt.names:
                    table[alias.asname or alias.name] = (stmt.module, alias.name)
    return table


def lazy_exports(package: str, file: str) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` (whose ``__init__`` is ``file``)."""
    found: dict[str, dict[str, tuple[str, str]]] = {}

    def table() -> dict[str, tuple[str, str]]:
        if not found:
            found["table"] = _table(Path(file).read_text(encoding="utf-8"))
        return found["table"]

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module hook's name
        where = table().get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where[0]), where[1])
        setattr(sys.modules[package], name, value)  # looked up once
        return value

    def __dir__() -> list[str]:  # noqa: N807 - the module hook's name
        return sorted({*vars(sys.modules[package]), *table()})

    return __getattr__, __dir__


__all__ = ["lazy_exports"]
