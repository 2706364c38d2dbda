"""Rich consoles as every part of incanon makes them (command output, progress, notes)."""

from __future__ import annotations

import os
from typing import Any, Iterable

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

from incanon.printable import escape_controls

#: Width given to output that is not a terminal: wide enough that no line of a table or
#: message is ever broken, while tables still take only the width their cells need.
PIPE_WIDTH = 100_000


class SafeConsole(Console):
    """A console that prints control characters as escapes (``\\x1b``), whatever it is given.

    User text (a card's name, a world's title, a model's reply) may hold ``ESC[...`` sequences
    that recolour the terminal, retitle the window or write the clipboard. Plain strings are
    escaped before they are measured (so tables keep their columns); everything else is escaped
    segment by segment as it is rendered, a net under ``Text`` objects built elsewhere. Newlines
    and tabs stay: there they are layout. Rich's own control segments (cursor moves of a
    progress bar) are left alone.
    """

    def render_str(self, text: str, **kwargs: Any) -> Text:
        """As Rich's, on ``text`` with its control characters escaped."""
        return super().render_str(escape_controls(text, keep_newlines=True), **kwargs)

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        """As Rich's, with control characters in the rendered text escaped."""
        for segment in super().render(renderable, options):
            if segment.control:
                yield segment
            else:
                safe = escape_controls(segment.text, keep_newlines=True)
                yield segment if safe is segment.text else Segment(safe, segment.style)


def make_console(*, stderr: bool = False) -> Console:
    """A console for stdout (or stderr) that hard-wraps only on a terminal.

    Rich assumes 80 columns when the stream is not a terminal, so a logged command line broke
    in the middle of an argument and ``runs list | cat`` lost a column; pipes and log files get
    whole lines instead. ``$COLUMNS``, when set, still decides the width.
    """
    # markup=False: text is never read as rich markup, so user text (a file called
    # "[draft].json", a title with "[/]") prints as written and cannot crash or restyle output;
    # styles are given with ``style=`` or ``Text`` objects.
    console = SafeConsole(stderr=stderr, markup=False)
    if not console.is_terminal and not os.environ.get("COLUMNS"):
        console.width = PIPE_WIDTH
    return console
