"""SFT export: ShareGPT samples for given-circumstance acting (CoSER App. B.1).

One sample per character per conversation. The character's own messages are the ``gpt`` turns;
everyone else's are ``human`` turns (``Name: message``, their thoughts removed, since no one
hears another's thoughts), adjacent turns of one side joined. The system prompt comes from one
of several instruction templates chosen per sample by a seeded draw, so the same seed always
gives the same file. Options add the other characters' profiles and the plot summary, and drop
thoughts from the character's own messages too.

By default only plots before each book's held-out split are exported.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from incanon.bench.coser.formats import ENVIRONMENT, BookData, Conversation, Plot, remove_thoughts
from incanon.files import write_text_atomic as atomic_write_text
from incanon.templates import PromptLibrary

SFT_TEMPLATES = ("coser_curate_sft_plain", "coser_curate_sft_hash", "coser_curate_sft_equals", "coser_curate_sft_brief")
START = "(The scene begins.)"


@dataclass(frozen=True)
class SFTOptions:
    thoughts: bool = True
    """Keep the character's own [thoughts] in its target messages."""
    with_profiles: bool = False
    """Put the other characters' profiles into the system prompt."""
    with_plot: bool = False
    """Put the plot summary into the system prompt."""
    seed: int = 0
    split: Literal["train", "test", "all"] = "train"
    templates: tuple[str, ...] = SFT_TEMPLATES


def _profile(book: BookData, plot: Plot, name: str) -> str:
    # As CoSER does: the character's description just before this plot, then the book profile.
    parts = [c.description for c in plot.key_characters if c.name == name and c.description]
    own = book.character_datasets.get(name)
    if own and own.profile:
        parts.append(own.profile)
    return "\n\n".join(p.strip() for p in parts if p.strip())


def _turns(conv: Conversation, name: str, thoughts: bool) -> list[dict[str, str]]:
    turns: list[dict[str, str]] = [{"from": "human", "value": START}]
    for d in conv.dialogues:
        if d.character == name:
            text = d.message if thoughts else remove_thoughts(d.message)
            role = "gpt"
        else:
            text = d.message if d.character == ENVIRONMENT else remove_thoughts(d.message)
            role = "human"
        if not text.strip():
            continue  # a turn of thought only: nothing anyone else could see or hear
        if role == "human":
            text = f"{d.character}: {text.strip()}"
        if turns[-1]["from"] == role:
            turns[-1]["value"] += "\n\n" + text.strip()
        else:
            turns.append({"from": role, "value": text.strip()})
    return turns


def _plots(book: BookData, split: str) -> Iterable[tuple[int, Plot]]:
    for i_p, plot in enumerate(book.plots):
        held_out = i_p >= book.split_index
        if split == "all" or (split == "test") == held_out:
            yield i_p, plot


def book_samples(book: BookData, options: SFTOptions = SFTOptions(),
                 library: PromptLibrary | None = None) -> Iterator[dict[str, Any]]:
    """Every ShareGPT sample of ``book``."""
    library = library or PromptLibrary()
    for i_p, plot in _plots(book, options.split):
        for i_c, conv in enumerate(plot.conversation):
            speakers = [s for s in conv.speakers if s != ENVIRONMENT]
            for name in speakers:
                turns = _turns(conv, name, options.thoughts)
                if not any(t["from"] == "gpt" for t in turns):
                    continue
                rng = random.Random(f"{options.seed}|{book.title}|{i_p}|{i_c}|{name}")
                template = options.templates[int(rng.random() * len(options.templates))]
                others = {o: p for o in speakers if o != name and (p := _profile(book, plot, o))}
                system = library.render(
                    template, character=name, book=book.title, profile=_profile(book, plot, name),
                    scenario=conv.scenario, motivation=conv.motivation_of(name),
                    other_profiles=others if options.with_profiles else {},
                    plot_summary=plot.summary if options.with_plot else "", thoughts=options.thoughts,
                )
                yield {
                    "conversations": [{"from": "system", "value": system}, *turns],
                    "meta": {"book": book.title, "i_p": i_p, "i_c": conv.i_c if conv.i_c is not None else i_c,
                             "character": name, "thoughts": options.thoughts, "template": template},
                }


def export_sft(books: Iterable[BookData], path: str | os.PathLike[str], options: SFTOptions = SFTOptions(),
               library: PromptLibrary | None = None) -> int:
    """Write every sample to ``path`` (``.json``: one list; otherwise JSON Lines); the count."""
    samples = [s for book in books for s in book_samples(book, options, library)]
    if Path(path).suffix.lower() == ".json":
        atomic_write_text(path, json.dumps(samples, ensure_ascii=False, indent=1) + "\n")
    else:
        atomic_write_text(path, "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in samples))
    return len(samples)
