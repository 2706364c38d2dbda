"""From curated plots to the two outputs: the published per-book JSON and a canon ``World``.

Story positions: every plot sits in the chapter where its raw text starts (the chunk's chapter
when the text was not located, the chunk number when the book has no chapter headings), never
before the previous plot's chapter; each conversation is a scene ``1-chapter-n`` numbered in
text order within the chapter. A plot without conversations makes no scene (an empty scene would
count as a scene its key characters took part in, and inflate the scene count: King Lear's release
gave 19 scenes for 17 conversations); its raw text sits at the position of the chapter's next scene,
so it is not visible before the story reaches it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from incanon.canon.perception import likely_narrator
from incanon.bench.coser.curate.chunking import Heading, chapter_at
from incanon.bench.coser.curate.continuation import PlotDraft
from incanon.bench.coser.formats import (
    ENVIRONMENT,
    IMPERSONAL,
    BookData,
    CharacterDataset,
    ConversationCharacter,
    DialogueTurn,
    PlotCharacter,
    parse_message,
)
from incanon.canon.names import norm
from incanon.canon.world import Character, Chunk, Scene, Utterance, WorkInfo, World


def split_index(n_plots: int, test_fraction: float) -> int:
    """Plots before this index are for training and retrieval; the rest are held out."""
    return int(round(n_plots * (1.0 - test_fraction), 9))


def build_book(title: str, drafts: list[PlotDraft], official: list[str], profiles: dict[str, str],
               split: int, extra: dict[str, Any] | None = None) -> BookData:
    plots = []
    for i_p, draft in enumerate(drafts):
        convs = [c.model_copy(update={"i_c": i_c}) for i_c, c in enumerate(draft.plot.conversation)]
        plots.append(draft.plot.model_copy(update={"i_p": i_p, "i_chunk": draft.i_chunk, "conversation": convs,
                                                   "state": "finished"}))
    datasets = {name: CharacterDataset(profile=profiles.get(name, "")) for name in official}
    for plot in plots:
        assert plot.i_p is not None
        for pc in plot.key_characters:
            if pc.name in datasets:
                datasets[pc.name].plots.append(PlotCharacter(**{**pc.model_dump(), "i_p": plot.i_p}))
        for conv in plot.conversation:
            for cc in conv.key_characters:
                if cc.name in datasets:
                    datasets[cc.name].conversations.append(
                        ConversationCharacter(**{**cc.model_dump(), "i_p": plot.i_p, "i_c": conv.i_c}))
            for i_u, turn in enumerate(conv.dialogues):
                if turn.character in datasets:
                    datasets[turn.character].utterances.append(
                        DialogueTurn(character=turn.character, message=turn.message, i_p=plot.i_p, i_c=conv.i_c, i_u=i_u))
    datasets = {n: d for n, d in datasets.items() if d.plots or d.conversations or d.utterances}
    return BookData(title=title, plots=plots, character_datasets=datasets, split_plot_index=split, **(extra or {}))


@dataclass(frozen=True)
class PlotPlace:
    """Where a plot sits: its chapter, a scene id per conversation, and the position of its raw
    text (its first scene, or the chapter's next scene position when it has no conversation)."""

    chapter: int
    scenes: list[str]
    position: str = ""

    @property
    def text_position(self) -> str:
        return self.scenes[0] if self.scenes else self.position


def next_place(chapter: int, done: int, conversations: int) -> PlotPlace:
    """The place of a plot with ``conversations`` in ``chapter`` after ``done`` scenes there."""
    return PlotPlace(chapter, [f"1-{chapter}-{done + k + 1}" for k in range(conversations)], f"1-{chapter}-{done + 1}")


def place_plots(drafts: list[PlotDraft], headings: list[Heading], chunk_starts: list[int]) -> list[PlotPlace]:
    """Chapter and scene ids of every plot, in story order."""
    has_chapters = any(h.kind == "chapter" for h in headings)
    places: list[PlotPlace] = []
    previous, counters = 1, {}
    for draft in drafts:
        if not has_chapters:
            chapter = draft.i_chunk + 1
        else:
            offset = draft.offset if draft.offset is not None else chunk_starts[draft.i_chunk]
            heading = chapter_at(headings, offset)
            chapter = heading.number if heading else 1
        chapter = max(chapter, previous)
        previous = chapter
        count = len(draft.plot.conversation)
        places.append(next_place(chapter, counters.get(chapter, 0), count))
        counters[chapter] = counters.get(chapter, 0) + count
    return places


def _aliases(official: list[str], mapping: dict[str, str]) -> dict[str, list[str]]:
    taken = {norm(o) for o in official}
    out: dict[str, list[str]] = {o: [] for o in official}
    for mention, target in sorted(mapping.items()):
        if target in out and norm(mention) not in taken:
            taken.add(norm(mention))
            out[target].append(mention)
    return out


def build_world(book: BookData, *, slug: str, author: str, places: list[PlotPlace], mapping: dict[str, str],
                include_held_out: bool = False, source: str = "") -> World:
    """The canon of the book: characters with aliases and profiles, a scene per conversation with
    its messages, and each plot's raw text as a chunk, all at story positions."""
    names = list(book.character_datasets)
    known = set(names)
    aliases = _aliases(names, mapping)
    last = len(book.plots) if include_held_out else book.split_index
    scenes: list[Scene] = []
    chunks: list[Chunk] = []
    first_seen: dict[str, str] = {}
    for plot, place in zip(book.plots[:last], places[:last]):
        if not plot.conversation:  # no scene; the plot's people appear where its text does
            for name in (c.name for c in plot.key_characters if c.name in known):
                first_seen.setdefault(name, place.text_position)
        for conv, scene_id in zip(plot.conversation, place.scenes):
            messages: list[Utterance] = []
            people = [c.name for c in conv.key_characters if c.name in known]
            for turn in conv.dialogues:
                parsed = parse_message(turn.message)
                if turn.character == ENVIRONMENT or norm(turn.character) == norm(ENVIRONMENT):
                    speaker = ENVIRONMENT
                elif turn.character in known:
                    speaker = turn.character
                    people.append(speaker)
                else:
                    speaker = IMPERSONAL
                messages.append(Utterance(speaker=speaker, speech=parsed.speech, action=parsed.action,
                                          thought=parsed.thought))
            participants = list(dict.fromkeys(people))
            speakers = [p for p in dict.fromkeys(m.speaker for m in messages) if p in known]
            for p in participants:
                first_seen.setdefault(p, scene_id)
            scenes.append(Scene(
                id=scene_id, position=scene_id, title=(conv.topic or "")[:200],
                summary=conv.scenario or plot.summary,
                participants=participants, speakers=speakers, messages=messages,
            ))
        if plot.text.strip():
            chunks.append(Chunk(id=f"plot-{plot.i_p}", position=place.text_position, text=plot.text, source=source,
                                scene=place.scenes[0] if place.scenes else None))
    characters = [
        Character(name=n, aliases=aliases.get(n, []), profile=book.character_datasets[n].profile,
                  first_position=first_seen.get(n))
        for n in names
    ]
    work = WorkInfo(id=slug, title=book.title, author=author, books={"1": book.title},
                    description=f"Curated with incanon coser curate from {source or book.title}.")
    # CoSER marks thoughts and actions in the dialogue ([thought], (action)); the plot text is the
    # book's own, so a first-person book's narration is its narrator's alone.
    work.narrator = likely_narrator((c.text for c in chunks), (s.participants for s in scenes))
    return World(work=work, characters=characters, chunks=chunks, scenes=scenes)
