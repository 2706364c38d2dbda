"""Curation of one book, start to finish, resumable at every step.

    chunks ──extract (repair-and-retry, plot continuation)──▶ plots
           ──refine settings──▶ ──unify names──▶ ──profiles (training plots only)──▶
    <out>/<title>.json (CoSER layout)  +  canon store (story positions)

Every finished step is journaled in ``<out>/.curate/<slug>/journal.jsonl`` before the next one
starts, so re-running the same command skips what is done. A chunk that fails every attempt
is journaled as failed and listed in the book file's ``failed_chunks``; ``retry_failed``
forgets the failures (and every chunk after the first, since their input depended on it).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from incanon.bench.coser.curate.assemble import build_book, build_world, place_plots, split_index
from incanon.bench.coser.curate.calls import CallStats, RetryPlan
from incanon.bench.coser.curate.chunking import chunk_text, count_tokens, find_headings
from incanon.bench.coser.curate.continuation import PlotDraft, continue_plots
from incanon.bench.coser.curate.extract import ExtractSettings, extract_chunk
from incanon.bench.coser.curate.journal import Journal
from incanon.bench.coser.curate.names import apply_names, mentioned_names, resolve, unify_names
from incanon.bench.coser.curate.profiles import write_profile
from incanon.bench.coser.curate.refine import refine_conversation
from incanon.bench.coser.curate.schema import NameMapping, SchemaLimits
from incanon.bench.coser.curate.sources import BookSource
from incanon.bench.coser.files import write_book
from incanon.models import ChatModel
from incanon.templates import PromptLibrary, fingerprint
from incanon.tokens import token_spans

JOURNAL_VERSION = 1
Progress = Callable[[str], None]


@dataclass(frozen=True)
class CurationConfig:
    """Every knob of the curation pipeline."""

    max_tokens: int = 8192
    """Chunk budget in approximate tokens (CoSER: 8,192)."""
    min_tokens: int | None = None
    """Merge adjacent chapters until a chunk holds this much (default: half of ``max_tokens``)."""
    carry_fraction: float = 0.5
    """At most this share of ``max_tokens`` is carried into the next chunk."""
    output_tokens: int = 4096
    """Completion budget of an extraction call."""
    max_attempts: int = 5
    """Attempts (a generation plus a repair turn each) before a step fails."""
    retry_temperature: float = 0.7
    constrained: bool = True
    """Send JSON schemas as ``response_format`` (grammar-constrained on the embedded model)."""
    limits: SchemaLimits = SchemaLimits()
    match_threshold: float = 0.6
    """Least similarity for a quoted sentence to count as found in the chunk."""
    test_fraction: float = 0.1
    """Share of each book's last plots held out for testing."""
    refine: bool = True
    profiles: bool = True
    refine_tokens: int = 1024
    names_tokens: int = 2048
    profile_tokens: int = 1024
    profile_material_tokens: int = 6000
    language: str = "English"
    concurrency: int = 4
    """Refinements and profiles run this many at a time (chunks run in order)."""
    store_held_out: bool = False
    """Also put held-out plots into the canon store (CoSER keeps them out of retrieval)."""

    @property
    def retry(self) -> RetryPlan:
        return RetryPlan(self.max_attempts, self.retry_temperature, max(self.output_tokens, 1024))


@dataclass
class ChunkReport:
    index: int
    status: str
    """``ok`` or ``failed``."""
    tokens: int
    plots: int = 0
    stats: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    resumed: bool = False


@dataclass
class BookReport:
    title: str
    file: str
    chunks: list[ChunkReport]
    plots: int = 0
    chapters: int = 0
    """Chapter headings found in the book (scenes for a play)."""
    held_out_plots: int = 0
    conversations: int = 0
    characters: int = 0
    stats: CallStats = field(default_factory=CallStats)
    notes: list[str] = field(default_factory=list)
    world: Any = None

    @property
    def failed_chunks(self) -> list[int]:
        return [c.index for c in self.chunks if c.status == "failed"]

    def summary(self) -> dict[str, Any]:
        return {
            "title": self.title, "file": self.file, "chapters": self.chapters, "chunks": len(self.chunks),
            "failed_chunks": self.failed_chunks,
            "resumed_chunks": sum(c.resumed for c in self.chunks), "plots": self.plots,
            "held_out_plots": self.held_out_plots, "conversations": self.conversations,
            "characters": self.characters, "usage": self.stats.dump(), "notes": self.notes,
        }


class BookCuration:
    """The state of one book's curation; ``run()`` does every step not yet journaled."""

    def __init__(self, book: BookSource, model: ChatModel, out_dir: Path, config: CurationConfig,
                 library: PromptLibrary, progress: Progress | None = None):
        self.book, self.model, self.config, self.library = book, model, config, library
        self.out_dir = out_dir
        self.say = progress or (lambda _msg: None)
        self.chunks = chunk_text(book.content, config.max_tokens, config.min_tokens)
        self.headings = find_headings(book.content)
        prompts = {n: fingerprint(library.source(n)[0]) for n in ("coser_curate_extract", "coser_curate_repair")}
        self.journal = Journal(out_dir / ".curate" / book.slug / "journal.jsonl", {
            "version": JOURNAL_VERSION, "book": book.digest, "model": model.name, "prompts": prompts,
            "max_tokens": config.max_tokens, "min_tokens": config.min_tokens, "constrained": config.constrained,
        })
        if self.journal.set_aside:
            self.say(f"{book.title}: the journal was written for other settings; set aside as {self.journal.set_aside.name}")
        self.stats = CallStats()
        self.notes: list[str] = []

    # --- chunks -------------------------------------------------------------------------------
    def forget_failures(self) -> int:
        failed = [int(k.split(":")[1]) for k, v in self.journal.entries.items()
                  if k.startswith("chunk:") and v["status"] == "failed"]
        if not failed:
            return 0
        first = min(failed)
        return self.journal.drop(lambda k: not k.startswith("chunk:") or int(k.split(":")[1]) >= first)

    async def extract_all(self) -> tuple[list[PlotDraft], list[ChunkReport]]:
        settings = ExtractSettings(self.config.output_tokens, self.config.constrained, self.config.limits,
                                   self.config.match_threshold, self.config.retry)
        finished: list[PlotDraft] = []
        unfinished: list[PlotDraft] = []
        carry_from: int | None = None
        reports: list[ChunkReport] = []
        for chunk in self.chunks:
            key = f"chunk:{chunk.index}"
            entry = self.journal.get(key)
            resumed = entry is not None
            if entry is None:
                entry = await self._extract(chunk.index, carry_from, unfinished, settings)
                self.journal.put(key, entry)
            finished.extend(PlotDraft.load(d) for d in entry["finished"])
            unfinished = [PlotDraft.load(d) for d in entry["unfinished"]]
            carry_from = entry["carry_from"]
            reports.append(ChunkReport(chunk.index, entry["status"], chunk.tokens, len(entry["finished"]),
                                       entry["stats"], entry["notes"], entry["errors"], resumed))
            state = "resumed" if resumed else entry["status"]
            self.say(f"{self.book.title}: chunk {chunk.index + 1}/{len(self.chunks)} {state} "
                     f"({len(entry['finished'])} plots, {entry['stats'].get('calls', 0)} calls)")
        for draft in unfinished:
            draft.plot = draft.plot.model_copy(update={"state": "finished"})
            draft.notes.append("cut off by the end of the book")
        drafts = finished + unfinished
        for draft in drafts:
            # A plot continued across chunks: its text is the book's own span, not pieces joined.
            if draft.offset is not None and draft.end is not None and draft.end > draft.offset:
                draft.plot = draft.plot.model_copy(update={"text": self.book.content[draft.offset : draft.end]})
        return drafts, reports

    async def _extract(self, index: int, carry_from: int | None, unfinished: list[PlotDraft],
                       settings: ExtractSettings) -> dict[str, Any]:
        chunk = self.chunks[index]
        notes: list[str] = []
        start = chunk.start
        if carry_from is not None and carry_from < chunk.start:
            start = carry_from
            cap = int(self.config.max_tokens * self.config.carry_fraction)
            carried = self.book.content[carry_from : chunk.start]
            spans = token_spans(carried)
            if len(spans) > cap:
                start = carry_from + spans[len(spans) - max(1, cap)][0]
                notes.append(f"carried text cut to {cap} tokens; "
                             f"{count_tokens(self.book.content[carry_from:start])} tokens before it were not extracted")
        passage = self.book.content[start : chunk.end]
        result = await extract_chunk(
            self.model, self.library, title=self.book.title, author=self.book.author, passage=passage,
            passage_start=start, i_chunk=index, unfinished=unfinished, settings=settings)
        outcome = result.outcome
        stats = outcome.stats.dump() if outcome else {}
        if not result.ok:
            # Failed: the unfinished plots end here rather than vanish with the chunk.
            for draft in unfinished:
                draft.plot = draft.plot.model_copy(update={"state": "finished"})
                draft.notes.append(f"not continued: chunk {index} failed")
            return {"status": "failed", "finished": [d.dump() for d in unfinished], "unfinished": [],
                    "carry_from": None, "stats": stats, "notes": notes,
                    "errors": outcome.errors if outcome else [], "raw": outcome.raw if outcome else "",
                    "span": [start, chunk.end]}
        done, still = continue_plots(unfinished, result.drafts, result.claims)
        return {"status": "ok", "finished": [d.dump() for d in done], "unfinished": [d.dump() for d in still],
                "carry_from": result.carry_from, "stats": stats, "notes": notes + result.notes, "errors": [],
                "span": [start, chunk.end]}

    # --- after extraction --------------------------------------------------------------------
    async def refine_all(self, drafts: list[PlotDraft]) -> None:
        gate = asyncio.Semaphore(self.config.concurrency)
        cfg = self.config

        async def one(i_p: int, i_c: int) -> None:
            key = f"refine:{i_p}:{i_c}"
            entry = self.journal.get(key)
            if entry is None:
                async with gate:
                    plot = drafts[i_p].plot
                    refined, outcome = await refine_conversation(
                        self.model, self.library, title=self.book.title, plot=plot, conv=plot.conversation[i_c],
                        max_tokens=cfg.refine_tokens, constrained=cfg.constrained, limits=cfg.limits, retry=cfg.retry)
                entry = {"conversation": refined.published() if refined else None, "stats": outcome.stats.dump(),
                         "errors": outcome.errors}
                self.journal.put(key, entry)
            self._spend(entry["stats"])
            if entry["conversation"] is None:
                self.notes.append(f"plot {i_p} conversation {i_c}: setting not refined ({'; '.join(entry['errors'])[:300]})")
                return
            convs = list(drafts[i_p].plot.conversation)
            convs[i_c] = type(convs[i_c]).model_validate(entry["conversation"])
            drafts[i_p].plot = drafts[i_p].plot.model_copy(update={"conversation": convs})

        await asyncio.gather(*(one(i_p, i_c) for i_p, d in enumerate(drafts) for i_c in range(len(d.plot.conversation))
                               if d.plot.conversation[i_c].key_characters))

    async def names(self, drafts: list[PlotDraft]) -> tuple[dict[str, str], list[str]]:
        mentioned = mentioned_names(d.plot for d in drafts)
        entry = self.journal.get("names")
        if entry is None:
            mapping, outcome = await unify_names(
                self.model, self.library, title=self.book.title, names=mentioned, language=self.config.language,
                max_tokens=self.config.names_tokens, constrained=self.config.constrained, limits=self.config.limits,
                retry=self.config.retry)
            entry = {"mapping": mapping.model_dump() if mapping else None,
                     "stats": outcome.stats.dump() if outcome else {}, "errors": outcome.errors if outcome else []}
            self.journal.put("names", entry)
        self._spend(entry["stats"])
        mapping = NameMapping.model_validate(entry["mapping"]) if entry["mapping"] else None
        if mapping is None and mentioned:
            self.notes.append("names not unified (every attempt failed): " + "; ".join(entry["errors"])[:300])
        result, official, notes = resolve(mentioned, mapping)
        self.notes.extend(notes)
        apply_names(drafts, result)
        return result, official

    async def profiles(self, drafts: list[PlotDraft], official: list[str], split: int) -> dict[str, str]:
        gate = asyncio.Semaphore(self.config.concurrency)
        train = [d.plot for d in drafts[:split]]
        profiles: dict[str, str] = {}

        async def one(name: str) -> None:
            key = f"profile:{split}:{name}"  # the split decides which plots feed it
            entry = self.journal.get(key)
            if entry is None:
                async with gate:
                    text, stats, notes = await write_profile(
                        self.model, self.library, title=self.book.title, name=name, train_plots=train,
                        language=self.config.language, max_tokens=self.config.profile_tokens,
                        budget=self.config.profile_material_tokens, max_attempts=self.config.max_attempts,
                        retry_temperature=self.config.retry_temperature)
                entry = {"profile": text, "stats": stats.dump(), "notes": notes}
                self.journal.put(key, entry)
            self._spend(entry["stats"])
            self.notes.extend(entry["notes"])
            profiles[name] = entry["profile"]

        await asyncio.gather(*(one(n) for n in official))
        return profiles

    def _spend(self, stats: dict[str, int]) -> None:
        self.stats += CallStats(**stats) if stats else CallStats()

    async def run(self, *, retry_failed: bool = False) -> BookReport:
        if retry_failed and (n := self.forget_failures()):
            self.say(f"{self.book.title}: retrying failed chunks ({n} journal entries dropped)")
        drafts, chunk_reports = await self.extract_all()
        for report in chunk_reports:
            self._spend(report.stats)
        if self.config.refine:
            await self.refine_all(drafts)
        mapping, official = await self.names(drafts)
        split = split_index(len(drafts), self.config.test_fraction)
        profiles = await self.profiles(drafts, official, split) if self.config.profiles else {}
        failed = [{"index": c.index, "span": self.journal.get(f"chunk:{c.index}")["span"], "errors": c.errors,
                   "raw": self.journal.get(f"chunk:{c.index}").get("raw", "")}
                  for c in chunk_reports if c.status == "failed"]
        if chunk_reports and len(failed) == len(chunk_reports):
            from incanon.errors import ModelError

            reason = next((e for c in chunk_reports for e in c.errors), "no readable extraction")
            raise ModelError(f"{self.book.title}: all {len(chunk_reports)} chunks failed every attempt "
                             f"(first error: {str(reason)[:200]}); no book file written, nothing imported "
                             "(the journal keeps the attempts: rerun with --retry-failed)")
        book = build_book(self.book.title, drafts, official, profiles, split,
                          # The reference lists the unreadable answers; incanon adds where each chunk was.
                          {"fail_to_parse_responses": [str(f["raw"]) for f in failed], "failed_chunks": failed}
                          if failed else None)
        path = write_book(book, self.out_dir / f"{self.book.file_title}.json")
        places = place_plots(drafts, self.headings, [c.start for c in self.chunks])
        world = build_world(book, slug=self.book.slug, author=self.book.author, places=places, mapping=mapping,
                            include_held_out=self.config.store_held_out, source=self.book.source)
        return BookReport(
            title=self.book.title, file=str(path), chunks=chunk_reports, plots=len(book.plots),
            chapters=sum(1 for h in self.headings if h.kind == "chapter"),
            held_out_plots=len(book.plots) - book.split_index,
            conversations=sum(len(p.conversation) for p in book.plots), characters=len(book.character_datasets),
            stats=self.stats, notes=self.notes, world=world)


async def curate_book(book: BookSource, model: ChatModel, out_dir: str | Path, *,
                      config: CurationConfig = CurationConfig(), library: PromptLibrary | None = None,
                      store: Any = None, progress: Progress | None = None, retry_failed: bool = False) -> BookReport:
    """Curate ``book`` into ``out_dir`` (and into the canon ``store`` when given)."""
    curation = BookCuration(book, model, Path(out_dir), config, library or PromptLibrary(), progress)
    report = await curation.run(retry_failed=retry_failed)
    if store is not None:
        store.import_world(report.world, replace=True, source=book.source or book.title)
    return report
