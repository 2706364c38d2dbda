"""Run the ``incanon`` console entry point in-process, as a shell would, for tests.

Starting ``python -m incanon`` costs a test a second or more of imports on a busy machine; a
command run in this process costs only its own work. :func:`run_cli` runs one command here the
way ``subprocess.run([sys.executable, "-m", "incanon", *args], capture_output=True, text=True,
env=..., cwd=..., input=...)`` runs it there, and answers with the same ``CompletedProcess``:
the same environment (``env`` replaces ``os.environ`` for the call, as for a child), folder,
standard input (empty unless ``input`` is given), captured output decoded as a child's would be
(universal newlines), exit code from :func:`incanon.cli.main.main` (its error handling, exit
codes and clean-up included), and an uncaught exception printed as a traceback with exit 1.
Everything the call changed in this process's globals that a child would have taken with it
(the environment, the folder, ``sys.argv``, the standard streams, the consoles' width and
colours, the ``incanon`` logger's handlers) is put back afterwards.

Keep a real process where the process is what a test is about: a signal, a kill, a lease held
by another process, a pipe closed early, an installed package, a server.
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import threading
import traceback
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_one_at_a_time = threading.Lock()


def run_main(argv: Sequence[str]) -> int:
    """Run ``incanon ARGV`` through :func:`incanon.cli.main.main` (its error handling, exit codes
    and clean-up of what a failed command created included) and return the exit code. Output goes
    to the process's stdout and stderr (capture it with pytest's ``capsys``)."""
    from incanon.cli.main import main

    old, sys.argv = sys.argv, ["incanon", *argv]
    try:
        main()
    except SystemExit as exc:
        return _exit_code(exc)
    finally:
        sys.argv = old
    return 0


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)  # as the interpreter does with sys.exit("message")
    return 1


def _stream(data: bytes = b"", errors: str = "strict") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors=errors)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    raw = stream.buffer.getvalue()  # type: ignore[attr-defined]
    # A child's output read with text=True: universal newlines.
    return raw.decode("utf-8", errors="strict").replace("\r\n", "\n").replace("\r", "\n")


@contextmanager
def _environment(env: Mapping[str, str] | None) -> Iterator[None]:
    if env is None:
        yield
        return
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in env.items()})
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextmanager
def _folder(cwd: str | os.PathLike[str] | None) -> Iterator[None]:
    if cwd is None:
        yield
        return
    saved = os.getcwd()
    os.chdir(Path(cwd))
    try:
        yield
    finally:
        os.chdir(saved)


@contextmanager
def _fresh_consoles() -> Iterator[None]:
    """The CLI's module-level consoles as a child would make them: for the current streams and
    environment (width from ``$COLUMNS`` or whole lines, no colour on a pipe)."""
    from incanon.cli import output
    from incanon.consoles import make_console

    saved = {name: dict(vars(getattr(output, name))) for name in ("out", "err")}
    for name, stderr in (("out", False), ("err", True)):
        fresh = make_console(stderr=stderr)
        console = getattr(output, name)
        console.__dict__.clear()
        console.__dict__.update(vars(fresh))
    try:
        yield
    finally:
        for name, state in saved.items():
            console = getattr(output, name)
            console.__dict__.clear()
            console.__dict__.update(state)


@contextmanager
def _logger_kept() -> Iterator[None]:
    """The ``incanon`` logger as it was: a command's ``configure`` must not outlive it."""
    from incanon import logs

    logger = logging.getLogger("incanon")
    handlers, level, propagate = list(logger.handlers), logger.level, logger.propagate
    configured = list(logs._handlers)
    try:
        yield
    finally:
        for handler in logger.handlers:
            if handler not in handlers:
                handler.close()  # a --log-file of the command: closed as the process would close it
        logger.handlers[:] = handlers
        logger.setLevel(level)
        logger.propagate = propagate
        logs._handlers[:] = configured


def run_cli(args: Sequence[str | os.PathLike[str]], *, env: Mapping[str, str] | None = None,
            cwd: str | os.PathLike[str] | None = None, input: str | None = None,
            timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """``incanon ARGS`` run in this process as ``subprocess.run([sys.executable, "-m",
    "incanon", *args], capture_output=True, text=True, env=env, cwd=cwd, input=input)`` would
    run it in a child (see the module's docstring). ``timeout`` is accepted for the same
    signature and not enforced (pytest-timeout bounds a test)."""
    del timeout
    argv = [os.fspath(a) for a in args]
    # Imported here, outside the call's environment and streams: the CLI's consoles are made at
    # import, and must be this process's, not those of whichever call came first.
    from incanon.cli.main import main

    stdin, stdout, stderr = _stream((input or "").encode("utf-8")), _stream(), _stream(errors="backslashreplace")
    with _one_at_a_time:
        saved = sys.argv, sys.stdin, sys.stdout, sys.stderr
        code = 0
        try:
            with _environment(env), _folder(cwd), _logger_kept():
                sys.argv = ["incanon", *argv]
                sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
                with _fresh_consoles():
                    try:
                        main()
                    except SystemExit as exc:
                        code = _exit_code(exc)
                    except Exception:  # noqa: BLE001 - a child prints any crash and exits 1
                        traceback.print_exc()
                        code = 1
        finally:
            sys.argv, sys.stdin, sys.stdout, sys.stderr = saved
    return subprocess.CompletedProcess([sys.executable, "-m", "incanon", *argv], code, _text(stdout), _text(stderr))


def cli_env(**overrides: Any) -> dict[str, str]:
    """``os.environ`` with ``overrides`` (a value of None removes the name): the ``env`` of a call."""
    env = dict(os.environ)
    for name, value in overrides.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = str(value)
    return env


__all__ = ["cli_env", "run_cli", "run_main"]
