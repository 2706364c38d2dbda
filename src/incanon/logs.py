"""What incanon says while it works: retries, waits, slow calls, long first-time steps.

Everything is standard ``logging`` under the ``incanon`` logger. By default the command line
shows NOTICE and above on stderr (a wait of seconds on a 429, a first retrieval that embeds a
whole book), so nothing long happens in silence; ``-v`` adds INFO (every retry, every slow call),
``-vv`` DEBUG (every model call); ``--log-file FILE`` writes DEBUG to a file as well. Every record
is passed through :func:`incanon.secrets.redact` before it is written anywhere, and its control
characters are escaped (a model name or reply cannot drive the terminal).

A log file that cannot be one is refused before the command starts, in one line: an empty name,
a folder, a FIFO nobody reads (opening it would wait forever), a file that cannot be written (a
full disk, ``/dev/full``: the first line is written and flushed at once). A write that fails later
is said once on stderr, and the command then exits non-zero (:func:`log_file_error`).
"""

from __future__ import annotations

import errno
import logging
import os
import sys
from pathlib import Path
from typing import TextIO

from incanon.errors import ConfigError, IncanonError, NoSpaceError, WriteError

NOTICE = 25
"""Between INFO and WARNING: shown by default, for things a user waits on."""
logging.addLevelName(NOTICE, "NOTICE")

#: A call slower than this is logged (INFO).
SLOW_CALL_S = 10.0
#: A retry wait at least this long is a NOTICE (shown by default).
LONG_WAIT_S = 2.0

_handlers: list[logging.Handler] = []


class RedactFilter(logging.Filter):
    """Masks credentials in the formatted message (and drops the args it was built from)."""

    def filter(self, record: logging.LogRecord) -> bool:
        from incanon.secrets import redact

        from incanon.printable import escape_controls

        record.msg = escape_controls(redact(record.getMessage()), keep_newlines=True)
        record.args = None
        return True


class CurrentStderrHandler(logging.StreamHandler):
    """A stream handler that writes to whatever ``sys.stderr`` is when a record arrives.

    A progress bar (rich ``Live``) swaps ``sys.stderr`` for a proxy that prints above the bar;
    a handler holding the stream from before would write into the bar's own line instead.
    """

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property  # type: ignore[override]
    def stream(self):  # noqa: ANN201 - a text stream
        return sys.stderr

    @stream.setter
    def stream(self, value: object) -> None:  # StreamHandler.__init__ assigns it; always current
        pass


class LogFileHandler(logging.StreamHandler):
    """Writes records to the ``--log-file``; a failed write is said once and remembered
    (:func:`log_file_error`), instead of logging's traceback on every record."""

    def __init__(self, path: Path, stream: TextIO) -> None:
        super().__init__(stream)
        self.path = path
        self.error: OSError | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if self.error is None:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        exc = sys.exc_info()[1]
        if not isinstance(exc, OSError):
            super().handleError(record)
            return
        if self.error is None:
            self.error = exc
            sys.stderr.write(f"incanon: {_write_failed(self.path, exc)}; nothing more is logged to it\n")

    def close(self) -> None:
        try:
            self.stream.close()
        except OSError:
            pass  # the failure was said when the write failed
        super().close()


def _write_failed(path: Path, exc: OSError) -> str:
    return f"cannot write the log file {path} ({exc.strerror or exc})"


def _log_error(path: Path, exc: OSError) -> IncanonError:
    """The one-line error for a log file that cannot be written."""
    if exc.errno in (errno.ENOSPC, errno.EFBIG):
        return NoSpaceError(_write_failed(path, exc))
    return WriteError(_write_failed(path, exc))


def open_log_file(log_file: str | Path) -> LogFileHandler:
    """A handler appending to ``log_file``, which is checked first: an empty name, a folder or a
    FIFO that nobody reads is a ``ConfigError``; a file that cannot be created or written (its
    first line is flushed at once) a ``WriteError`` or ``NoSpaceError``. Never blocks."""
    if not str(log_file).strip():
        raise ConfigError("--log-file needs a file name; it was given an empty one")
    path = Path(log_file).expanduser()
    if path.is_dir():
        raise ConfigError(f"--log-file {path} is a folder; give a file, such as {path / 'incanon.log'}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # O_NONBLOCK: opening a FIFO for writing waits until someone reads it; this way it fails
        # at once (ENXIO) instead. A pipe with a reader (``--log-file >(gzip > log.gz)``) opens.
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise ConfigError(f"--log-file {path} is a FIFO (named pipe) that nobody reads; writing to "
                              "it would wait forever") from None
        raise _log_error(path, exc) from None
    os.set_blocking(fd, True)
    stream = os.fdopen(fd, "a", encoding="utf-8", errors="backslashreplace")
    try:
        from incanon import __version__

        stream.write(f"-- incanon {__version__} (pid {os.getpid()}) logging to this file\n")
        stream.flush()  # a full disk or /dev/full says so now, not never
    except OSError as exc:
        try:
            stream.close()
        except OSError:
            pass
        raise _log_error(path, exc) from None
    return LogFileHandler(path, stream)


def log_file_error() -> IncanonError | None:
    """The error of a ``--log-file`` write that failed during the command, or None."""
    for handler in _handlers:
        if isinstance(handler, LogFileHandler) and handler.error is not None:
            return _log_error(handler.path, handler.error)
    return None


def configure(verbosity: int = 0, log_file: str | Path | None = None) -> None:
    """Set up the ``incanon`` logger for a command: stderr at NOTICE (``verbosity`` 0), INFO (1)
    or DEBUG (2+), and DEBUG to ``log_file`` when given (see :func:`open_log_file` for what is
    refused). Calling it again replaces the setup."""
    to_file = open_log_file(log_file) if log_file is not None else None  # refused before anything changes
    logger = logging.getLogger("incanon")
    for handler in _handlers:
        logger.removeHandler(handler)
        handler.close()
    _handlers.clear()
    level = NOTICE if verbosity <= 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    console = CurrentStderrHandler()
    console.setLevel(level)
    console.setFormatter(logging.Formatter("incanon: %(message)s"))
    console.addFilter(RedactFilter())
    _handlers.append(console)
    lowest = level
    if to_file is not None:
        to_file.setLevel(logging.DEBUG)
        to_file.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        to_file.addFilter(RedactFilter())
        _handlers.append(to_file)
        lowest = logging.DEBUG
    for handler in _handlers:
        logger.addHandler(handler)
    logger.setLevel(lowest)
    logger.propagate = False
