"""``incanon canon card``: export a point-in-time Character Card (V2 or V3), import a V3, V2 or V1 card."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from incanon.errors import ConfigError

from incanon.cli.canonrefs import CANON_HELP, open_canon
from incanon.cli.output import JSON_HELP, clip, emit_json, err, out

app = typer.Typer(help="Character cards (Character Card V2 and V3, as SillyTavern reads them): export what a "
                       "character knows at a point of the story; import a V3, V2 or V1 card.", no_args_is_help=True)



def _store_dir(store: Optional[Path]) -> Path:
    from incanon.canon.store import default_store_path

    return store.expanduser() if store is not None else default_store_path()


@app.command("export")
def export_cmd(
    work: Optional[str] = typer.Option(None, "--work", help="Work id (needed only when the store holds several works with that character)."),
    character: str = typer.Option(..., "--character", help="Character name or alias."),
    at: str = typer.Option(..., "--at", help="Story position (e.g. 1-3) or one of the character's time-point labels."),
    out_file: Path = typer.Option(..., "--out", help="Card file to write: NAME.json or NAME.png."),
    image: Optional[Path] = typer.Option(None, "--image", help="PNG picture for a .png card (default: a plain gradient)."),
    examples: int = typer.Option(3, "--examples", min=0, help="Example exchanges of witnessed dialogue in mes_example."),
    spec: str = typer.Option("v2", "--spec", help="v2 (chara_card_v2, what every front end reads) or v3 (chara_card_v3; a .png also carries the v2 chunk)."),
    store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Write a Character Card (V2, or V3 with --spec v3) holding only what the character knows at that point.

    Description, personality, scenario, greeting, example dialogue and lorebook come from the
    character's knowledge scope: nothing from later in the story, nothing from scenes they
    missed, and lorebook keys only under names they have heard by then. A .png card carries
    the card in its 'chara' text chunk, as SillyTavern writes it (and a V3 card in 'ccv3' too).
    A character imported from a card comes back as that card, every field kept.

    Example: incanon canon card export --work lanterns --character Wren --at "end of book 1" --out wren.png
    """
    from incanon.cards import CardOptions, build_card, write_card
    from incanon.cards.files import card_format

    card_format(out_file)  # a bad --out fails before any work is done
    if spec not in ("v2", "v3"):
        raise ConfigError(f"--spec must be v2 or v3, not {spec!r}")
    from incanon.chat.session import resolve_work

    with open_canon(_store_dir(store)) as canon:
        card = build_card(canon, resolve_work(canon, work, character), character, at, CardOptions(examples=examples))
    path = write_card(card, out_file, image, version=int(spec[1]))
    record = card.data.extensions["incanon"]
    if json_:
        emit_json({"card": str(path), "extensions": record})
        return
    counts = record["card"]
    # What the file holds: an imported card's own entries and the store's beyond them.
    lore = card.data_dict().get("character_book")
    entries = len(lore.get("entries") or []) if isinstance(lore, dict) else 0
    withheld = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in counts["withheld"].items() if n) or "nothing"
    out.print(f"wrote {path}: {clip(record['character'])} at {clip(record['when'])} ({record['at']}) in "
              f"{clip(record['work_title'])}; {counts['facts']} known facts, {entries} lorebook entries",
              highlight=False, soft_wrap=True)
    err.print(f"left out as unknown at that point: {withheld}", style="dim", highlight=False, soft_wrap=True)
    if not counts["names_dated"]:
        err.print("note: the work has no story text to date names by, so every alias counts as known",
                  style="yellow", highlight=False, soft_wrap=True)


@app.command("import")
def import_cmd(
    card_file: Path = typer.Argument(..., help="Card file: a V3, V2 or V1 card as .json, or a .png with a 'ccv3' or 'chara' chunk."),
    work: str = typer.Option(..., "--work", help="Work to add the character to (created if missing)."),
    at: Optional[str] = typer.Option(None, "--at", help="Story position for the card's facts and scenes "
                                     "(default: the start of the axis, before anything in the story)."),
    merge: bool = typer.Option(False, "--merge", help="Add to an existing work (re-imports it: its embeddings "
                               "and knowledge graph must be rebuilt)."),
    store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Add a character from a Character Card V3, V2 or V1 to a work.

    The name becomes the character, the description its profile, the personality its
    personality, the example dialogue scenes with the user; each lorebook entry becomes an
    entity with a fact the character knows. A bad card writes nothing.

    Example: incanon canon card import wren.png --store cards/ --work wren
    """
    from incanon.cards import import_card, read_card

    card, version = read_card(card_file)  # a bad card fails before the store is opened
    with open_canon(_store_dir(store), create=True) as canon:
        summary = import_card(canon, card, work=work, at=at, merge=merge, source=str(card_file))
    for note in summary.notes:
        err.print(note, style="dim", highlight=False, soft_wrap=True)
    if json_:
        emit_json({"card_version": version, **summary.to_dict()})
        return
    verb = "created work" if summary.created_work else "added to work"
    out.print(f"imported {clip(summary.character)} (card V{version}) at {summary.at}: {verb} {clip(summary.work)}; "
              f"{summary.facts} lorebook facts, {summary.entities} entities, {summary.scenes} scenes",
              highlight=False, soft_wrap=True)
