"""Dynamic plot continuation: a plot cut off at a chunk's end is finished by the next chunk.

The extraction call of chunk *i+1* sees the unfinished plots of chunk *i* (without their raw
text) and returns each continuation with ``continues`` set to the unfinished plot's number.
Models forget that field, so an unclaimed continuation is also recognised by its summary.
Continuation and original are then merged: raw texts joined, key characters united, and each
conversation extended (a continued conversation that repeats the start is taken whole; one
that only carries on is appended).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from incanon.bench.coser.formats import Conversation, Plot, PlotCharacter

SUMMARY_MATCH = 0.35
"""Least word-level similarity of summaries for an unclaimed continuation."""


@dataclass
class PlotDraft:
    """A plot during curation: the published fields plus where it came from."""

    plot: Plot
    i_chunk: int
    offset: int | None = None
    """Character offset of its raw text in the book, when located."""
    notes: list[str] = field(default_factory=list)
    end: int | None = None
    """Offset where its raw text ends (a continued plot's text runs across chunks)."""

    def dump(self) -> dict[str, Any]:
        return {"plot": self.plot.published(), "i_chunk": self.i_chunk, "offset": self.offset, "end": self.end,
                "notes": self.notes}

    @classmethod
    def load(cls, data: dict[str, Any]) -> PlotDraft:
        return cls(Plot.model_validate(data["plot"]), data["i_chunk"], data.get("offset"),
                   list(data.get("notes", [])), data.get("end"))

    def for_prompt(self, number: int) -> dict[str, Any]:
        """What the next chunk's extraction sees: everything but the raw text."""
        out = self.plot.published()
        out.pop("text", None)
        out.pop("state", None)
        return {"number": number, **out}


def _similar(a: str, b: str) -> float:
    return SequenceMatcher(None, a.casefold().split(), b.casefold().split(), autojunk=False).ratio()


def _same_start(old: Conversation, new: Conversation) -> bool:
    if not old.dialogues or not new.dialogues:
        return False
    a, b = old.dialogues[0], new.dialogues[0]
    return a.character == b.character and _similar(a.message, b.message) >= 0.8


def _merge_conversations(old: list[Conversation], new: list[Conversation]) -> list[Conversation]:
    merged: list[Conversation] = []
    used: set[int] = set()
    for conv in old:
        best, score = None, 0.0
        for j, cand in enumerate(new):
            if j in used:
                continue
            s = max(_similar(conv.scenario, cand.scenario), 1.0 if _same_start(conv, cand) else 0.0)
            if s > score:
                best, score = j, s
        if best is None or score < 0.5:
            merged.append(conv)
            continue
        used.add(best)
        cand = new[best]
        if _same_start(conv, cand) and len(cand.dialogues) >= len(conv.dialogues):
            merged.append(cand.model_copy(update={"scenario": conv.scenario or cand.scenario}))
        else:
            names = {c.name for c in conv.key_characters}
            merged.append(conv.model_copy(update={
                "dialogues": conv.dialogues + cand.dialogues,
                "key_characters": conv.key_characters + [c for c in cand.key_characters if c.name not in names],
            }))
    merged.extend(c for j, c in enumerate(new) if j not in used)
    return merged


def _merge_characters(old: list[PlotCharacter], new: list[PlotCharacter]) -> list[PlotCharacter]:
    by_name = {c.name: c for c in old}
    out = list(old)
    for c in new:
        prior = by_name.get(c.name)
        if prior is None:
            out.append(c)
        elif c.summary and c.summary not in prior.summary:
            out[out.index(prior)] = prior.model_copy(update={"summary": f"{prior.summary} {c.summary}".strip()})
    return out


def merge(old: PlotDraft, new: PlotDraft) -> PlotDraft:
    """``new`` (from the next chunk) finishes ``old``. The joined text is replaced by the book's
    own span from ``offset`` to ``end`` when the pipeline knows both."""
    a, b = old.plot, new.plot
    summary = b.summary if len(b.summary) >= len(a.summary) else f"{a.summary} {b.summary}".strip()
    text = "\n".join(t for t in (a.text, b.text) if t)
    plot = a.model_copy(update={
        "text": text,
        "summary": summary,
        "prominence": max((p for p in (a.prominence, b.prominence) if p is not None), default=None),
        "key_characters": _merge_characters(a.key_characters, b.key_characters),
        "chapter": a.chapter or b.chapter,
        "conversation": _merge_conversations(a.conversation, b.conversation),
        "state": b.state,
    })
    notes = [*old.notes, f"continued in chunk {new.i_chunk}", *new.notes]
    offset = old.offset if old.offset is not None else new.offset
    end = new.end if new.end is not None else old.end
    return PlotDraft(plot, old.i_chunk, offset, notes, end)


def continue_plots(unfinished: list[PlotDraft], new: list[PlotDraft],
                   claims: list[int | None]) -> tuple[list[PlotDraft], list[PlotDraft]]:
    """Merge this chunk's plots (``new``, with their ``continues`` claims) into the unfinished
    ones; return (plots finished now, plots still unfinished), in story order."""
    taken: dict[int, int] = {}  # unfinished index → new index
    for j, claim in enumerate(claims):
        if claim is not None and 0 <= claim < len(unfinished) and claim not in taken:
            taken[claim] = j
    for k, old in enumerate(unfinished):
        if k in taken:
            continue
        free = [j for j in range(len(new)) if j not in taken.values() and claims[j] is None]
        scored = [(_similar(old.plot.summary, new[j].plot.summary), j) for j in free]
        if scored and max(scored)[0] >= SUMMARY_MATCH:
            taken[k] = max(scored)[1]
    result: list[PlotDraft] = []
    for k, old in enumerate(unfinished):
        if k in taken:
            continue
        old.plot = old.plot.model_copy(update={"state": "finished"})
        old.notes.append("never continued")
        result.append(old)
    merged_at = {j: merge(unfinished[k], new[j]) for k, j in taken.items()}
    result.extend(merged_at.get(j, d) for j, d in enumerate(new))
    finished = [d for d in result if d.plot.state != "truncated"]
    still = [d for d in result if d.plot.state == "truncated"]
    return finished, still
