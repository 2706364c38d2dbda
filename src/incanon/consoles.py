"""Rich consoles as every part of incanon makes them (command output, progress, notes)."""

from __future__ import annotations

import os

from rich.console import Console

#: Width given to output that is not a terminal: wide enough that no line of a table or
#: message is ever broken, while tables still take only the width their cells need.
PIPE_WIDTH = 100_000


def make_console(*, stderr: bool = False) -> Console:
    """A console for stdout (or stderr) that hard-wraps only on a terminal.

    Rich assumes 80 columns when the stream is not a terminal, so a logged command line broke
    in the middle of an argument and ``runs list | cat`` lost a column; pipes and log files get
    whole lines instead. ``$COLUMNS``, when set, still decides the width.
    """
    # markup=False: text is never read as rich markup, so user text (a file called
    # "[draft].json", a title with "[/]") prints as written and cannot crash or restyle output;
    # styles are given with ``style=`` or ``Text`` objects.
    console = Console(stderr=stderr, markup=False)
    if not console.is_terminal and not os.environ.get("COLUMNS"):
        console.width = PIPE_WIDTH
    return console
