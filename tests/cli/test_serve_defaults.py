"""``incanon serve``'s option defaults are the library's: the CLI keeps its own literals (so
``incanon --help`` does not import the web stack), and this keeps the two from drifting."""

from __future__ import annotations

from pathlib import Path

import typer.main

from incanon.cli.main import app
from incanon.serve.config import ServeConfig


def test_serve_limits_default_to_the_library_defaults() -> None:
    serve = typer.main.get_command(app).commands["serve"]  # type: ignore[attr-defined]
    defaults = {param.name: param.default for param in serve.params}
    config = ServeConfig(canon=Path("canon"), runs=Path("runs.sqlite"))
    assert defaults["client_concurrency"] == config.client_concurrency == 64
    assert defaults["client_queue"] == config.client_queue
