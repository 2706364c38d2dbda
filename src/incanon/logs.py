"""What incanon says while it works: retries, waits, slow calls, long first-time steps.

Everything is standard ``logging`` under the ``incanon`` logger. By default the command line
shows NOTICE and above on stderr (a wait of seconds on a 429, a first retrieval that embeds a
whole book), so nothing long happens in silence; ``-v`` adds INFO (every retry, every slow call),
``-vv`` DEBUG (every model call); ``--log-file FILE`` writes DEBUG to a file as well. Every record
is passed through :func:`incanon.secrets.redact` before it is written anywhere.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

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

        record.msg = redact(record.getMessage())
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


def configure(verbosity: int = 0, log_file: str | Path | None = None) -> None:
    """Set up the ``incanon`` logger for a command: stderr at NOTICE (``verbosity`` 0), INFO (1)
    or DEBUG (2+), and DEBUG to ``log_file`` when given. Calling it again replaces the setup."""
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
    if log_file is not None:
        path = Path(log_file).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        to_file = logging.FileHandler(path, encoding="utf-8")
        to_file.setLevel(logging.DEBUG)
        to_file.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        to_file.addFilter(RedactFilter())
        _handlers.append(to_file)
        lowest = logging.DEBUG
    for handler in _handlers:
        logger.addHandler(handler)
    logger.setLevel(lowest)
    logger.propagate = False
