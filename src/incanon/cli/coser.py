"""``incanon coser``: curation commands (:mod:`incanon.cli.coser_curate`) and evaluation commands
(:mod:`incanon.cli.coser_eval`), each side in its own module."""

from __future__ import annotations

import typer

from incanon.cli import coser_curate, coser_eval

app = typer.Typer(help="CoSER: book curation, given-circumstance acting, penalty-based critics.", no_args_is_help=True)

coser_curate.register(app)
coser_eval.register(app)
