"""``incanon graph build`` past its option parsing: the store locked, the corpus indexed, a report
printed, and what a failed build created removed again; and its dry run."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from incanon.canonbuild.interrupt import run_stoppable
from incanon.cli.canonrefs import open_canon, pick_work
from incanon.cli.output import emit_json, err, out
from incanon.errors import IncanonError, NotFoundError

NO_WORK_HINT = "give --work NAME to create one"


class BuildFailedError(IncanonError):
    """Every chunk of a build failed or yielded nothing."""

    exit_code = 1


def _new_world(work: str, title: Optional[str], axis: str, specs: list[Any]) -> Any:
    from incanon.canon.world import WorkInfo, World

    return World(work=WorkInfo(id=work, title=title or work, axis=axis), characters=[s.character() for s in specs])


def build_locked(store: Path, work: Optional[str], title: Optional[str], axis: str, specs: list[Any], model: str,
                  cache: Optional[Path], no_cache: bool, corpus: Optional[list[Path]], found: Any, config: Any,
                  overlap: int, limit: Optional[int], library: Any, retry_empty: bool, store_existed: bool,
                  json_: bool) -> None:
    """``graph build`` once the store is locked: index the chunks, report, or undo what it made."""
    from incanon.canonbuild.progress import Progress
    from incanon.graph import GraphBuilder, canon_chunks
    from incanon.graph.characters import declare
    from incanon.models import load_chat_model

    llm = load_chat_model(model, cache=False if no_cache else (cache or True))
    canon = open_canon(store, create=bool(corpus))
    known_works = {w.id for w in canon.works()}
    created_work = None
    if corpus and work and work not in known_works:
        canon.import_world(_new_world(work, title, axis, specs))
        created_work = work
        err.print(f"created work {work!r} ({axis} axis) in {canon.path}", style="dim")
    work_id = pick_work(canon, work, none_hint=NO_WORK_HINT)
    chunks = found.chunks
    if not corpus:
        chunks = canon_chunks(canon, work_id, config.chunk_tokens, overlap)
        if not chunks:
            raise NotFoundError(f"work {work_id!r} has no chunks: give CORPUS files to index")
    if limit:
        chunks = chunks[:limit]
    added = declare(canon, work_id, specs) if specs and created_work is None else []
    for name in added:
        err.print(f"declared character {name!r} in {work_id!r}", style="dim")
    # A line every few seconds (with an estimate) once a phase runs longer than that.
    progress = Progress(lambda line: err.print(line, style="dim", highlight=False), "graph")
    builder = GraphBuilder(canon, work_id, llm, config=config, prompts=library,
                           progress=lambda what, done, total: progress.update(done, total, what))
    err.print(f"indexing {len(chunks)} chunks of {work_id!r} with {model}", style="dim")

    async def run() -> Any:
        async with progress.ticking():
            return await builder.add(chunks, retry_empty=retry_empty,
                                     documents=[] if limit else [d.id for d in found.documents])

    try:
        report = run_stoppable(run())
    except BaseException:
        builder.close()
        _undo(canon, store, created_work, store_existed)
        raise
    builder.close()
    _print_report(report, canon, json_)
    if report.nothing_extracted:
        _undo(canon, store, created_work, store_existed)
        undone = " (the work it created was removed)" if created_work else ""
        raise BuildFailedError(f"every one of the {report.chunks_extracted} chunks failed or yielded nothing{undone}: "
                               "see the lines above")


def _undo(canon: Any, store: Path, created_work: Optional[str], store_existed: bool) -> None:
    """Remove what a failed build created: its work, and the store folder if it made it."""
    import shutil

    if created_work is not None:
        canon.delete_work(created_work)
    canon.close()
    if not store_existed:
        shutil.rmtree(store.expanduser(), ignore_errors=True)


def dry_run_build(chunks: list[Any], store: Path, work: Optional[str], store_existed: bool, config: Any, model: str,
             library: Any, limit: Optional[int], json_: bool) -> None:
    from incanon.cli.options import print_estimate
    from incanon.graph.estimate import build_estimate, corpus_tokens
    from incanon.tokens import tokenizer_name

    todo = list(chunks)
    if store_existed:  # what the store already extracted is skipped, as the build would
        from incanon.graph import GraphDB

        canon = open_canon(store)
        if not todo:
            from incanon.graph import canon_chunks

            work = pick_work(canon, work, none_hint=NO_WORK_HINT)
            todo = canon_chunks(canon, work, config.chunk_tokens, config.overlap_tokens)
        if work in {w.id for w in canon.works()}:
            db = GraphDB(canon, work)
            done = {(r[0], r[1]) for r in db.conn.execute(
                "SELECT ext_id, digest FROM graph_chunks WHERE work_id = ? AND status IN ('integrated', 'extracted',"
                " 'empty')", (db.wid,))}
            twins = db.same_content(todo)
            db.close()
            todo = [c for c in todo if (c.id, c.digest) not in done and c.source not in twins]
        canon.close()
    if limit:
        todo = todo[:limit]
    estimate = build_estimate(todo, config, model, library)
    summary = {"chunks": len(todo), "corpus_tokens": corpus_tokens(todo), "tokenizer": tokenizer_name()}
    if json_:
        emit_json({"dry_run": True, **summary, "estimate": estimate.to_json()})
        return
    err.print(f"{summary['chunks']} chunks to extract, {summary['corpus_tokens']:,} tokens "
              f"(counted by {summary['tokenizer']})", highlight=False)
    print_estimate(estimate)


def _print_report(report: Any, canon: Any, json_: bool) -> None:
    if json_:
        emit_json({"store": str(canon.path), **report.to_dict()})
        return
    for note in report.skipped:
        err.print(f"skipped {note}", style="yellow", highlight=False)
    n = report.integration.normalization
    out.print(f"{report.chunks_extracted} chunks extracted ({report.chunks_new} new, {report.chunks_changed} changed, "
              f"{report.chunks_given - report.chunks_new - report.chunks_changed} unchanged): "
              f"{report.extraction.calls} calls, {report.extraction.prompt_tokens + report.extraction.completion_tokens} tokens; "
              f"{len(report.failed)} failed, {len(report.empty)} empty, {len(report.warned)} with warnings")
    out.print(f"normalization: {n.forms} new names, {n.llm_calls} LLM calls ({n.judged} judgements, "
              f"{n.canonical_calls} canonical names; all pairs would be {n.all_pairs_baseline}, top-3 {n.topk_baseline})")
    it = report.integration
    out.print(f"graph: {report.graph['nodes']} entities, {report.graph['aliases']} names, {report.graph['edges']} relations; "
              f"{it.summaries} summaries, {it.embedded} embedded, {it.chunks_embedded} chunks embedded; "
              f"{it.dated} mentions dated by the text, {it.retyped} names retyped to their majority type")
    for issue in report.issues:
        colour = {"empty": "yellow", "warning": "yellow"}.get(issue.status, "red")
        out.print(f"{issue.status} chunk {issue.chunk} ({issue.tokens} tokens): {issue.note}", style=colour, highlight=False)
