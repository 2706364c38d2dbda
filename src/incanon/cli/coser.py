"""``incanon coser``: curation commands and evaluation commands, each side in its own module."""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(help="CoSER: book curation, given-circumstance acting, penalty-based critics.", no_args_is_help=True)

for _module in ("incanon.bench.coser.cli_curate", "incanon.bench.coser.cli_eval"):
    try:
        importlib.import_module(_module).register(app)
    except ModuleNotFoundError as exc:
        if exc.name != _module:
            raise
