"""Extraction of one chunk: plots and conversations as structured JSON, located in the source."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from incanon.bench.coser.curate.calls import CallOutcome, ReadError, RetryPlan, call_structured, first_problem
from incanon.bench.coser.curate.continuation import PlotDraft
from incanon.bench.coser.curate.locate import find_sentence, locate_plot
from incanon.bench.coser.curate.schema import ChunkExtraction, ExtractedPlot, SchemaLimits, extraction_schema, response_format
from incanon.bench.coser.formats import Plot
from incanon.llmout import JSONRepairError, looks_truncated, repair_json
from incanon.models import ChatModel, GenerationParams
from incanon.templates import PromptLibrary

REQUIRED = "chapter_beginnings, plots (each: chapter_title, first_sentence, last_sentence, prominence, summary, " \
           "key_characters, conversation, state), next_chunk_start"


@dataclass
class Extraction:
    """A readable extraction answer."""

    data: ChunkExtraction
    output_truncated: bool = False
    """The answer was cut off; its unfinished last plot was dropped."""


def read_extraction(text: str, hit_limit: bool) -> tuple[Extraction, list[str]]:
    """Parse and check an extraction answer; an answer cut off keeps its complete plots only."""
    try:
        repaired = repair_json(text)
    except JSONRepairError as exc:
        raise ReadError(str(exc), truncated=hit_limit or looks_truncated(text)) from None
    data, notes = repaired.value, [f"json: {fix}" for fix in repaired.fixes]
    truncated = repaired.truncated
    if truncated:
        # "state" is the last field of a plot, so a plot without it was cut off mid-way.
        if isinstance(data, dict) and isinstance(data.get("plots"), list):
            kept = [p for p in data["plots"] if isinstance(p, dict) and "state" in p]
            if len(kept) < len(data["plots"]):
                notes.append(f"dropped {len(data['plots']) - len(kept)} unfinished plot(s) of a cut-off answer")
            data = {**data, "plots": kept}
        if not (isinstance(data, dict) and data.get("plots")):
            raise ReadError("the answer was cut off before its first complete plot", truncated=True)
    try:
        parsed = ChunkExtraction.model_validate(data)
    except ValidationError as exc:
        raise ReadError(first_problem(exc), truncated=truncated) from None
    return Extraction(parsed, truncated), notes


@dataclass
class ChunkResult:
    """One chunk after extraction: drafts of its plots and what to carry into the next chunk."""

    ok: bool
    drafts: list[PlotDraft] = field(default_factory=list)
    claims: list[int | None] = field(default_factory=list)
    carry_from: int | None = None
    """Book offset from which this chunk's tail is carried into the next chunk's passage."""
    chapter_beginnings: list[str] = field(default_factory=list)
    outcome: CallOutcome[Any] | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ExtractSettings:
    output_tokens: int = 4096
    constrained: bool = True
    """Send the JSON schema as ``response_format`` (grammar-constrained on the embedded model)."""
    limits: SchemaLimits = SchemaLimits()
    match_threshold: float = 0.6
    retry: RetryPlan = RetryPlan()


def _draft(plot: ExtractedPlot, passage: str, start: int, i_chunk: int, threshold: float) -> PlotDraft:
    span = locate_plot(passage, plot.first_sentence, plot.last_sentence, threshold=threshold,
                       to_end_if_missing=plot.state == "truncated")
    notes = [] if span else ["raw text not located (first or last sentence not found in the chunk)"]
    text = passage[span[0] : span[1]] if span else ""
    published = Plot(
        text=text,
        summary=plot.summary,
        prominence=plot.prominence,
        key_characters=plot.key_characters,
        chapter=plot.chapter_title,
        conversation=plot.conversation,
        state=plot.state,
    )
    return PlotDraft(published, i_chunk, start + span[0] if span else None, notes, start + span[1] if span else None)


async def extract_chunk(
    model: ChatModel,
    library: PromptLibrary,
    *,
    title: str,
    author: str,
    passage: str,
    passage_start: int,
    i_chunk: int,
    unfinished: list[PlotDraft],
    settings: ExtractSettings = ExtractSettings(),
) -> ChunkResult:
    """Extract the plots of ``passage`` (book text from ``passage_start``)."""
    carried = json.dumps([d.for_prompt(k) for k, d in enumerate(unfinished)], ensure_ascii=False, indent=1)
    prompt = library.render(
        "coser_curate_extract", title=title, author=author, chunk=passage,
        truncated_plots=carried if unfinished else "",
    )
    fmt = response_format("coser_chunk", extraction_schema(settings.limits)) if settings.constrained else None
    params = GenerationParams(max_tokens=settings.output_tokens, response_format=fmt)
    outcome = await call_structured(model, library, prompt, read_extraction, params=params,
                                    plan=settings.retry, required=REQUIRED)
    if outcome.value is None:
        return ChunkResult(ok=False, outcome=outcome)
    extraction: Extraction = outcome.value
    drafts = [_draft(p, passage, passage_start, i_chunk, settings.match_threshold) for p in extraction.data.plots]
    result = ChunkResult(ok=True, drafts=drafts, claims=[p.continues for p in extraction.data.plots],
                         chapter_beginnings=extraction.data.chapter_beginnings, outcome=outcome,
                         notes=list(outcome.notes))
    # What the next chunk must see again: the storyline the model left for it, or, when the
    # answer was cut off, everything after the last plot it completed.
    start_hint = extraction.data.next_chunk_start
    if start_hint:
        found = find_sentence(passage, start_hint, threshold=settings.match_threshold)
        if found is not None and found.start > 0:
            result.carry_from = passage_start + found.start
        elif found is None:
            result.notes.append("next_chunk_start not found in the chunk; nothing carried")
    elif extraction.output_truncated:
        ends = [d.end for d in drafts if d.end is not None and d.plot.state == "finished"]
        end = max(ends, default=passage_start)
        if end < passage_start + len(passage.rstrip()):
            result.carry_from = end
            result.notes.append("answer cut off: the text after its last complete plot goes to the next chunk")
    return result
