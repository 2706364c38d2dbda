"""``incanon canon profiles``: write time-point profiles of an imported work from witnessed scenes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Optional

import typer

from incanon.cli.canonrefs import CANON_HELP, open_canon
from incanon.cli.output import JSON_HELP, emit_json, err


def register(app: typer.Typer) -> None:
    """Add ``profiles`` to the ``canon`` group."""

    @app.command("profiles")
    def profiles_cmd(
        helper: str = typer.Option(..., "--helper", help="The model that writes the sheets (see `incanon models`)."),
        work: Optional[str] = typer.Option(None, "--work", help="Work id (needed only when the store holds several)."),
        character: list[str] = typer.Option([], "--character", "-c", help="Write for this character even if its persona is not thin (repeatable; default: every character whose persona keeps too little somewhere)."),
        every: bool = typer.Option(False, "--all", help="Write for every character."),
        store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP),
        cache: Optional[Path] = typer.Option(None, "--cache", help="Response cache file (default: $INCANON_HOME/cache.sqlite): a rerun pays nothing twice."),
        no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the response cache."),
        json_: bool = typer.Option(False, "--json", help=JSON_HELP),
    ) -> None:
        """Write the profile of each time point from the scenes the character witnessed.

        For an imported work whose profiles tell the whole story (CoSER's books, cards, world
        files written from the end), the scoped character keeps only what names nothing hidden,
        and may keep nothing. This runs canon build's profile stage on the stored scenes: one
        sheet per time point (a character without time points gets its first appearance and the
        end of each chapter it is in), written from its witnessed scenes up to there, each on the
        one before, and stored as its time points.

        Example: incanon canon profiles --store canon --work othello --helper openai:gpt-4o-mini
        """
        from incanon.canon.store import default_store_path
        from incanon.canonbuild.reprofile import reprofile
        from incanon.chat.session import resolve_work
        from incanon.models import load_chat_model
        from incanon.templates import default_library

        llm = load_chat_model(helper, cache=False if no_cache else (cache or True))
        say = lambda line: err.print(line, soft_wrap=True, highlight=False, markup=False)  # noqa: E731
        with open_canon((store or default_store_path()).expanduser()) as canon:
            chosen = resolve_work(canon, work, character[0] if character else "")
            done = asyncio.run(reprofile(canon, chosen, llm, default_library(), characters=character or None,
                                         every=every, say=say))
        if json_:
            emit_json({"work": chosen, "characters": [
                {"character": d.character, "written": d.points, "thin_at": d.thin_at, "failed": d.failed}
                for d in done]})
        written = sum(len(d.points) for d in done)
        if not done:
            say("no character's persona keeps too little anywhere; nothing written (--all or --character to write anyway)")
            return
        if not written:
            say("error: no sheet could be written (every helper answer failed); the store is unchanged")
            raise typer.Exit(1)
