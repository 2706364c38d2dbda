"""``incanon canon``: import, export and inspect the canon store, and show a knowledge scope."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich import box
from rich.table import Table

from incanon.canon import CanonStore, default_store_path, load_world_file, write_world_file
from incanon.cli.canonrefs import CANON_HELP, open_canon
from incanon.cli.output import JSON_HELP, clip, emit_json, err, out
from incanon.errors import ConfigError
from incanon.cli.renamed import renamed
from incanon.printable import json_safe

app = typer.Typer(help="Import, export and inspect the canon store; show what a character knows.", no_args_is_help=True)



def _store_dir(store: Optional[Path]) -> Path:
    return store.expanduser() if store is not None else default_store_path()


def _open_existing(store: Optional[Path]) -> CanonStore:
    """Open a store that must already exist, for reading only (reading commands never create
    a store, and need no write access to one)."""
    return open_canon(_store_dir(store), read_only=True)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _table(title: str, *columns: str) -> Table:
    table = Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, title_justify="left")
    for i, name in enumerate(columns):
        # The first column holds ids and names that get copied into other commands: never wrap.
        table.add_column(name, no_wrap=i == 0, overflow="fold")
    return table


@app.command("import")
def import_cmd(
    file: Path = typer.Argument(..., help="World JSON file."),
    store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP),
    fresh: bool = typer.Option(False, "--fresh", help="Start the work over: overwrite a work of the same id (drops its vectors)."),
    replace_old: bool = typer.Option(False, "--replace", hidden=True, help="Older spelling of --fresh."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Import a world file (all of it, or nothing if any reference is wrong).

    Example: incanon canon import examples/world.json --store canon/
    """
    replace = renamed(fresh, True if replace_old else None, new_flag="--fresh", old_flag="--replace", default=False)
    world = load_world_file(file)
    with CanonStore.open(_store_dir(store)) as canon:
        work = canon.import_world(world, replace=replace, source=str(file))
        counts = canon.counts(work.id)
    if json_:
        emit_json({"store": str(_store_dir(store)), "work": work.to_dict(), "counts": counts})
        return
    summary = ", ".join(f"{n} {name}" for name, n in counts.items())
    out.print(f"imported {clip(work.id)} ({clip(work.title)}): {summary}", highlight=False)


@app.command("export")
def export_cmd(
    work: str = typer.Argument(..., help="Work id."),
    out_file: Path = typer.Option(..., "--out", help="World JSON file to write ('-' for stdout)."),
    store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP),
    json_: bool = typer.Option(False, "--json", help="Print what was written (work, file, counts) as JSON on stdout (needs --out FILE)."),
) -> None:
    """Export a work as a world file (written atomically: a temporary file, then a rename).

    Example: incanon canon export lanterns --store canon/ --out world.json
    """
    if json_ and str(out_file) == "-":
        raise ConfigError("--json prints a summary of the file written: give --out FILE, not '-'")
    with _open_existing(store) as canon:
        world = canon.export_world(work)
        counts = canon.counts(world.work.id)
    if str(out_file) == "-":
        sys.stdout.write(json_safe(world.model_dump_json(indent=2)) + "\n")
        return
    path = write_world_file(world, out_file)
    if json_:
        emit_json({"work": world.work.id, "out": str(path), "counts": counts})
        return
    err.print(f"wrote {path}", highlight=False)


def _work_detail(canon: CanonStore, work_id: str) -> dict[str, Any]:
    return {
        "work": canon.work(work_id).to_dict(),
        "counts": canon.counts(work_id),
        "characters": [c.to_dict() for c in canon.characters(work_id)],
    }


@app.command("show")
def show_cmd(
    work: Optional[str] = typer.Argument(None, help="Work id (omit to list every work)."),
    store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """List the store's works, or show one work's characters, aliases, time points and counts.

    Example: incanon canon show lanterns --store canon/
    """
    with _open_existing(store) as canon:
        if work is None:
            rows = [{**w.to_dict(), "counts": canon.counts(w.id)} for w in canon.works()]
            if json_:
                emit_json({"store": str(canon.path), "works": rows})
                return
            if not rows:
                err.print(f"no works in {canon.path}")
                return
            table = _table(f"works in {canon.path}", "id", "title", "axis", "characters", "scenes", "chunks", "facts")
            for r in rows:
                c = r["counts"]
                table.add_row(clip(r["id"]), clip(r["title"]), r["axis"], *(str(c[k]) for k in ("characters", "scenes", "chunks", "facts")))
            out.print(table)
            return
        detail = _work_detail(canon, work)
    if json_:
        emit_json(detail)
        return
    w = detail["work"]
    out.print(f"{clip(w['id'])}: {clip(w['title'])}" + (f" by {clip(w['author'])}" if w["author"] else "")
              + f" ({w['axis']} axis)", highlight=False)
    out.print(", ".join(f"{n} {name}" for name, n in detail["counts"].items()), highlight=False)
    table = _table("characters", "name", "aliases", "time points")
    for c in detail["characters"]:
        points = "; ".join(f"{t['label']} ({t['position']})" for t in c["time_points"])  # clipped below
        table.add_row(clip(c["name"]), clip(", ".join(c["aliases"])), clip(points))
    out.print(table)


@app.command("scope")
def scope_cmd(
    work: str = typer.Option(..., "--work", help="Work id."),
    at: str = typer.Option(..., "--at", help="Story position (e.g. 2-5) or one of the character's time-point labels."),
    character: Optional[str] = typer.Option(None, "--character", help="Character name or alias (omit for the omniscient reader)."),
    witnessed_only: bool = typer.Option(False, "--witnessed-only", help="Count only scenes and chunks the character witnessed."),
    store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Show what a character can know at a point of the story.

    Lists the scenes so far (seen or missed), the facts the character knows and the relations
    true at that point; counts what stays hidden.

    Example: incanon canon scope --work lanterns --character Stormwren --at "end of book 1"
    """
    with _open_existing(store) as canon:
        data = scope_report(canon, work, character, at, witnessed_only=witnessed_only)
    if json_:
        emit_json(data)
        return
    d = data["scope"]
    who = d["character"] or "the omniscient reader"
    out.print(f"{clip(who)} at {d['at']} in {clip(d['work'])}", highlight=False)
    hidden = d["hidden"]
    out.print(
        "hidden: " + ", ".join(_count(n, noun) + tail for n, noun, tail in (
            (hidden["future_scenes"], "future scene", ""), (hidden["missed_scenes"], "scene", " before now, not witnessed"),
            (hidden["chunks_after_now"], "chunk", " after now"),
            (hidden["chunks_not_witnessed"], "chunk", " before now, not witnessed"),
            (hidden["facts"], "fact", ""), (hidden["relations"], "relation", ""),
        )), soft_wrap=True, highlight=False,
    )
    scenes = _table("scenes witnessed so far" if d["character"] else "scenes so far", "id", "position", "summary")
    for s in data["scenes"]:
        scenes.add_row(clip(s["id"]), s["position"], clip(s["summary"] or s["title"]))
    out.print(scenes)
    if data["missed_scenes"]:
        missed = _table("hidden: before now, not witnessed", "id", "position", "title")
        for s in data["missed_scenes"]:
            missed.add_row(clip(s["id"]), s["position"], clip(s["title"] or s["id"]))
        out.print(missed)
    facts = _table("known facts", "id", "position", "subject", "fact")
    for f in data["facts"]:
        facts.add_row(clip(f["id"]), f["position"], clip(f["subject"]), clip(f["text"], 2000))
    out.print(facts)
    rels = _table("relations the character can know" if d["character"] else "current relations",
                  "source", "relation", "target", "since")
    for r in data["relations"]:
        rels.add_row(clip(r["source"]), clip(r["type"]), clip(r["target"]), r["valid_from"] or "start")
    out.print(rels)


def scope_report(canon: Any, work: str, character: str | None, at: str, *, witnessed_only: bool = False) -> dict[str, Any]:
    """What ``canon scope`` shows: the visible parts (witnessed scenes and chunks, known facts,
    relations the character can know) and the hidden ones, never overlapping."""
    from incanon.canon.horizon import Horizon

    scope = canon.scope(work, character, at, witnessed_only=witnessed_only)
    missed = scope.missed_scenes()
    current = scope.relations_in_force()
    if scope.character is None:
        known_relations, hidden_relations = current, []
        visible_chunks = scope.chunk_ids()
    else:
        horizon = Horizon(canon, work, scope.character, scope.at)
        known_relations = horizon.relations()
        hidden_relations = [r for r in current if r not in known_relations]
        visible_chunks = sorted(horizon.visible_chunks)
    described = scope.describe()
    total_relations = described["visible"]["relations"] + described["hidden"]["relations"]
    described["visible"]["relations"] = len(known_relations)
    described["hidden"]["relations"] = total_relations - len(known_relations)
    return {
        "scope": described,
        "scenes": [s.to_dict() for s in scope.scenes(witnessed_only=scope.character is not None)],
        "missed_scenes": [{**s.to_dict(), "label": "before now, not witnessed"} for s in missed],
        "chunks": visible_chunks,
        "facts": [f.to_dict() for f in scope.facts()],
        "relations": [r.to_dict() for r in known_relations],
        "hidden_relations": [r.to_dict() for r in hidden_relations],
    }


from incanon.cli.audit import register as _register_audit  # noqa: E402
from incanon.cli.canon_build import register as _register_build  # noqa: E402
from incanon.cli.canon_profiles import register as _register_profiles  # noqa: E402
from incanon.cli.card import app as card_app  # noqa: E402  (the sub-app mounts after this group's commands)

_register_audit(app)
_register_build(app)
_register_profiles(app)

app.add_typer(card_app, name="card")
