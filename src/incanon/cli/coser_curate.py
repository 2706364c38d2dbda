"""``incanon coser curate | import | sample | export-sft``: the data side of CoSER."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Optional, Sequence

import typer

from incanon.cli.canonrefs import CANON_HELP, canon_path
from incanon.cli.renamed import renamed
from incanon.cli.output import JSON_HELP, emit_json, err, out

CACHE_HELP = "Response cache file (default: $INCANON_HOME/cache.sqlite)."


def _library(prompts: Optional[Path]) -> Any:
    from incanon.templates import PromptLibrary

    return PromptLibrary(prompts) if prompts else PromptLibrary()


_CAPS = {"plots": "max_plots", "conversations": "max_conversations", "characters": "max_characters",
         "dialogues": "max_dialogues", "text": "max_text", "chapters": "max_chapters"}


def _caps(text: str) -> Any:
    from incanon.bench.coser.curate import SchemaLimits
    from incanon.errors import ConfigError

    values: dict[str, int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, _, value = part.partition("=")
        if key.strip() not in _CAPS or not value.strip().isdigit() or int(value) < 1:
            raise ConfigError(f"--caps: bad entry {part!r} (expected NAME=N with NAME one of {', '.join(_CAPS)})")
        values[_CAPS[key.strip()]] = int(value)
    return SchemaLimits(**values)


def print_plan(plans: Sequence[Any]) -> None:
    """The plan as a table on stdout."""
    from rich.table import Table

    table = Table(title="CoSER curation (dry run: no model called)")
    for col in ("book", "chapters", "parts", "chunks", "extraction calls", "prompt tokens", "max completion tokens"):
        table.add_column(col)
    for p in plans:
        table.add_row(p.title, str(p.chapters), str(p.parts), str(p.chunks), str(p.extraction_calls),
                      f"~{p.prompt_tokens:,}", f"{p.max_completion_tokens:,}")
    out.print(table)
    later = sorted({c for p in plans for c in p.later_calls})
    if later:
        out.print(f"then, depending on what extraction finds: {'; '.join(later)}", highlight=False)


def curate(
    books: list[Path] = typer.Argument(..., help="Books: .jsonl files of {title, author, content}, or plain text / markdown files."),
    out_dir: Path = typer.Option(..., "--out", help="Folder for the per-book CoSER JSON files (and the resume journal)."),
    store: Optional[Path] = typer.Option(None, "--store", help="Also import each book into this canon store folder."),
    helper: str = typer.Option("embedded", "--helper", help="Model that curates: every extraction, refinement and profile call."),
    model_old: Optional[str] = typer.Option(None, "--model", hidden=True, help="Older spelling of --helper."),
    chunk_tokens: int = typer.Option(8192, "--chunk-tokens", help="Chunk budget in approximate tokens (the book text one extraction call reads)."),
    chunk_tokens_old: Optional[int] = typer.Option(None, "--max-tokens", hidden=True, help="Older spelling of --chunk-tokens."),
    output_tokens: int = typer.Option(4096, "--output-tokens", help="Completion budget of an extraction call (what --max-tokens is elsewhere; here --max-tokens is still the older spelling of --chunk-tokens, for one release)."),
    attempts: int = typer.Option(5, "--attempts", help="Attempts per chunk (generation + repair) before it is recorded as failed."),
    refine: bool = typer.Option(True, "--refine/--no-refine", help="Complete each conversation's setting with a second call."),
    profiles: bool = typer.Option(True, "--profiles/--no-profiles", help="Write character profiles."),
    constrained: bool = typer.Option(True, "--constrained/--free", help="Send JSON schemas as response_format."),
    store_held_out: bool = typer.Option(False, "--store-held-out", help="Also put the held-out last 10 % of plots in the canon store."),
    retry_failed: bool = typer.Option(False, "--retry-failed", help="Extract again the chunks recorded as failed (and the chunks after them)."),
    concurrency: int = typer.Option(4, "--concurrency", help="Refinement and profile calls in flight at once."),
    caps: str = typer.Option("", "--caps", help="Schema caps for small constrained models, e.g. "
                             "'plots=1,conversations=1,characters=2,dialogues=3,text=80,chapters=1'."),
    author: str = typer.Option("", "--author", help="Author of plain-text books."),
    prompts: Optional[Path] = typer.Option(None, "--prompts", help="Folder of prompt templates overriding the built-in ones."),
    cache: Optional[Path] = typer.Option(None, "--cache", help=CACHE_HELP),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the response cache."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Only chunk the books: chapters, chunks, calls and tokens, no model call."),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Curate books into CoSER data: plots, conversations, profiles (resumable: run again to continue).

    Example: incanon coser curate examples/coser/curate/books.jsonl --out out --store canon --helper openai/gpt-4o --dry-run
    """
    from incanon.bench.coser.curate import CurationConfig, curate_book, read_books
    from incanon.errors import IncanonError
    from incanon.models import load_chat_model

    model = renamed(helper, model_old, new_flag="--helper", old_flag="--model", default="embedded")
    # --max-tokens is a completion limit in every other command; here it was the chunk budget.
    chunk_tokens = renamed(chunk_tokens, chunk_tokens_old, new_flag="--chunk-tokens", old_flag="--max-tokens",
                           default=8192)

    sources = read_books(list(books), author=author)
    config = CurationConfig(max_tokens=chunk_tokens, output_tokens=output_tokens, max_attempts=attempts, refine=refine,
                            profiles=profiles, constrained=constrained, store_held_out=store_held_out,
                            concurrency=concurrency, limits=_caps(caps))
    if dry_run:
        from incanon.bench.coser.curate_plan import plan_books

        plans = plan_books(sources, config, _library(prompts))
        if as_json:
            emit_json({"dry_run": True, "books": [p.model_dump() for p in plans], "model": model})
        else:
            print_plan(plans)
        return
    chat = load_chat_model(model, cache=False if no_cache else (cache or True))
    library = _library(prompts)
    canon: Any = None  # opened at the first book that succeeds: a run that fails leaves no store behind
    failures: list[str] = []

    async def run() -> list[Any]:
        done = []
        for b in sources:
            try:
                report = await curate_book(b, chat, out_dir, config=config, library=library,
                                           progress=lambda msg: err.print(msg, highlight=False),
                                           retry_failed=retry_failed)
                done.append(report)
                if store is not None:
                    nonlocal canon
                    if canon is None:
                        from incanon.canon import CanonStore

                        canon = CanonStore.open(store.expanduser())
                    canon.import_world(report.world, replace=True, source=b.source or b.title)
            except IncanonError as exc:  # one book failing entirely does not stop the others
                failures.append(str(exc))
                err.print(f"{exc}", style="red", highlight=False)
        return done

    try:
        reports = asyncio.run(run())
    finally:
        if canon is not None:
            canon.close()
    summaries = [r.summary() for r in reports]
    if as_json:
        emit_json({"books": summaries, "failed_books": failures, "out": str(out_dir),
                   "store": str(store) if store else None, "model": chat.name})
        if failures:
            raise typer.Exit(1)
        return
    from rich.table import Table

    table = Table(title=f"CoSER curation → {out_dir}")
    for col in ("book", "chapters", "chunks", "failed", "plots", "held out", "conversations", "characters", "calls",
                "tokens"):
        table.add_column(col)
    for s in summaries:
        usage = s["usage"]
        table.add_row(s["title"], str(s["chapters"]), str(s["chunks"]), str(len(s["failed_chunks"])), str(s["plots"]),
                      str(s["held_out_plots"]), str(s["conversations"]), str(s["characters"]),
                      str(usage["calls"]), str(usage["prompt_tokens"] + usage["completion_tokens"]))
    out.print(table)
    for s in summaries:
        if s["failed_chunks"]:
            out.print(f"{s['title']}: chunks {s['failed_chunks']} failed every attempt; "
                      "they are listed under failed_chunks in the book file (rerun with --retry-failed)", style="yellow")
    if failures:
        err.print(f"{len(failures)} of {len(sources)} book(s) produced nothing", style="red")
        raise typer.Exit(1)


def sample(
    source: Path = typer.Argument(..., help="Folder of per-book CoSER JSON files (curated or released), or the released held_out_plots.json."),
    out_file: Path = typer.Option(..., "--out", help="Test-set JSON file to write."),
    limit: int = typer.Option(200, "--limit", min=1, help="Number of test conversations (half out-of-domain when some books are)."),
    n_old: Optional[int] = typer.Option(None, "--n", min=1, hidden=True, help="Older spelling of --limit."),
    per_domain: Optional[int] = typer.Option(None, "--per-domain", min=1, help="Draw this many from each domain instead (the reference: 100)."),
    seed: int = typer.Option(42, "--seed", help="Sampling seed (the reference's: 42)."),
    ood: list[str] = typer.Option([], "--ood", help="Title of a book held out of training (out-of-domain); repeatable."),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Sample a test set as the reference does: weights max(1, √plots), top max(n, half), seeded draws.

    Example: incanon coser sample examples/coser/held_out_plots.json --per-domain 70 --out test.json
    """
    from incanon.bench.coser.files import load_sampling_source, write_test_set
    from incanon.bench.coser.sampling import sample_test_set
    from incanon.errors import InputError

    from incanon.cli.renamed import renamed

    n = renamed(limit, n_old, new_flag="--limit", old_flag="--n", default=200)
    books, domains = load_sampling_source(source)
    samples = sample_test_set(books, n, seed=seed, out_of_domain=ood, domains=domains, per_domain=per_domain)
    if not samples:
        raise InputError("no held-out conversation to draw from (no plots after each book's split index)",
                         source=str(source))
    write_test_set(samples, out_file)
    counts = {d: sum(s.domain == d for s in samples) for d in ("in-domain", "out-of-domain")}
    requested = per_domain * (2 if counts["out-of-domain"] else 1) if per_domain else n
    if as_json:
        emit_json({"out": str(out_file), "samples": len(samples), "requested": requested, "seed": seed, **counts,
                   "books": len(books)})
        return
    out.print(f"{len(samples)} test conversations ({counts['in-domain']} in-domain, {counts['out-of-domain']} "
              f"out-of-domain) from {len(books)} books → {out_file}", highlight=False)
    if len(samples) < requested:
        err.print(f"only {len(samples)} of {requested}: the held-out conversations hold no more", style="yellow",
                  highlight=False)


def export_sft(
    data_dir: Path = typer.Argument(..., help="Folder of per-book CoSER JSON files."),
    out_file: Path = typer.Option(..., "--out", help="Output file: .json (one list, as released) or .jsonl (one sample a line)."),
    split: str = typer.Option("train", "--split", help="train (before the held-out split), test, or all."),
    seed: int = typer.Option(0, "--seed", help="Seed of the per-sample draws (motivation, experience, plot summary, template, NSP samples)."),
    nsp_fraction: float = typer.Option(0.1, "--nsp-fraction", min=0.0, max=1.0, help="Share of conversation passes that also give a next-speaker sample (the reference: 0.1)."),
    no_environment: bool = typer.Option(False, "--no-environment", help="Leave out the Environment's samples."),
    prompts: Optional[Path] = typer.Option(None, "--prompts", help="Folder of prompt templates overriding the built-in ones."),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Export ShareGPT SFT samples as CoSER's released file: every speaker of every training
    conversation in four passes (thoughts kept or not x other profiles or not), plus next-speaker samples.

    Example: incanon coser export-sft out --out sft.json --seed 0
    """
    from collections import Counter

    from incanon.bench.coser.files import load_books
    from incanon.bench.coser.sft import SFTOptions
    from incanon.bench.coser.sft import export_sft as write
    from incanon.errors import ConfigError

    if split not in ("train", "test", "all"):
        raise ConfigError(f"--split must be train, test or all, not {split!r}")
    books = load_books(data_dir)
    options = SFTOptions(seed=seed, split=split, nsp_fraction=nsp_fraction,  # type: ignore[arg-type]
                         environment=not no_environment)
    samples = write(books, out_file, options, _library(prompts))
    kinds = Counter("NSP" if s.meta["character"] == "NSP" else "Environment" if s.meta["character"] == "Environment"
                    else "character" for s in samples)
    counts = {"character": kinds["character"], "environment": kinds["Environment"], "nsp": kinds["NSP"]}
    if as_json:
        emit_json({"out": str(out_file), "samples": len(samples), **counts, "books": len(books), "split": split,
                   "seed": seed, "nsp_fraction": nsp_fraction})
        return
    out.print(f"{len(samples)} ShareGPT samples ({counts['character']} character, {counts['environment']} Environment, "
              f"{counts['nsp']} next-speaker) from {len(books)} books → {out_file}", highlight=False)


def import_(
    files: list[Path] = typer.Argument(..., help="Released per-book CoSER JSON files (data/final/*.json) or incanon's curated ones, or folders of them."),
    store: Optional[Path] = typer.Option(None, "--store", help=CANON_HELP + " Created if missing."),
    author: str = typer.Option("", "--author", help="Author recorded for every imported book."),
    held_out: bool = typer.Option(False, "--held-out", help="Also import the held-out plots (from split_plot_index on)."),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Put released CoSER books into the canon store, positioned by their chapters.

    Example: incanon coser import examples/coser/final --store canon
    """
    from incanon.bench.coser.import_book import import_books

    store = canon_path(store)
    summaries = import_books(files, store, author=author, include_held_out=held_out)
    if as_json:
        emit_json({"store": str(store), "books": summaries})
        return
    for s in summaries:
        bare = s["plots_without_conversation"]
        no_scene = f"; {bare} plots without conversation, so no scene" if bare else ""
        out.print(f"{s['title']}: {s['scenes']} scenes in {s['chapters']} chapters, {s['characters']} characters "
                  f"({s['held_out_plots']} held-out plots {'included' if held_out else 'left out'}{no_scene}) → {store}",
                  highlight=False)


def register(app: typer.Typer) -> None:
    app.command("curate")(curate)
    app.command("import")(import_)
    app.command("sample")(sample)
    app.command("export-sft")(export_sft)
