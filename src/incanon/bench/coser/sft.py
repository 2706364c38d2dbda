"""SFT export: ShareGPT samples for given-circumstance acting, as CoSER's released
``data/train/sft_sharegpt.json`` (paper App. B.1; ``data_construction/transform.py``).

Per conversation of the training plots, four passes (own thoughts kept or removed × the other
characters' profiles shown or not), and in each pass:

- one sample per speaker, the Environment included: the speaker's messages are the
  ``assistant`` turns (the first of a run as ``Name: message``, the next ones of the same run
  appended), everyone else's are ``human`` turns (``Name: message``, their thoughts removed,
  the Environment's kept whole); every message ends with a blank line and the first human turn
  is ``===Conversation Start===`` (the released first turn). A sample whose speaker has nothing
  left to say (thoughts removed) is dropped;
- with probability ``nsp_fraction`` (0.1), one next-speaker sample: the assistant names who
  acts before each message (a speaker outside the main characters is ``random`` one time in
  four) and ends with ``<END CHAT>``.

What a character's system prompt holds is drawn per sample, as the reference does: its
motivation (dropped half the time), its experience of the plot appended to its profile (half
the time), the plot summary (half the time), and one of incanon's instruction templates. The
Environment and the predictor get the scenario, followed by the plot summary half the time.
Draws come from a generator seeded with ``seed``, book, plot, conversation, pass and speaker,
so a seed always gives the same file. Written samples hold ``conversations`` only, with roles
``system`` / ``human`` / ``assistant`` as in the released file.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from incanon.bench.coser.formats import ENVIRONMENT, BookData, Conversation, Plot
from incanon.bench.coser.gca_ngrams import remove_inner_thoughts
from incanon.files import write_text_atomic as atomic_write_text
from incanon.templates import PromptLibrary

SFT_TEMPLATES = ("coser_curate_sft_plain", "coser_curate_sft_hash", "coser_curate_sft_equals", "coser_curate_sft_brief")
START = "===Conversation Start===\n\n"
"""The first human turn of every released sample."""
END_CHAT = "<END CHAT>"
RANDOM = "random"
NSP = "NSP"
PASSES = ((False, True), (False, False), (True, True), (True, False))
"""(own thoughts kept, other characters' profiles shown), the reference's four passes."""


@dataclass(frozen=True)
class SFTOptions:
    """What to export (everything else is drawn per sample)."""

    seed: int = 0
    split: Literal["train", "test", "all"] = "train"
    nsp_fraction: float = 0.1
    """Share of (conversation, pass) pairs that also give a next-speaker sample."""
    environment: bool = True
    """Export the Environment's samples."""
    templates: tuple[str, ...] = SFT_TEMPLATES


@dataclass
class SftSample:
    """One sample and where it came from (the file gets ``conversations`` only)."""

    conversations: list[dict[str, str]]
    meta: dict[str, Any] = field(default_factory=dict)

    def sharegpt(self) -> dict[str, Any]:
        return {"conversations": self.conversations}


def _profiles(book: BookData, plot: Plot, speakers: list[str]) -> dict[str, str]:
    # As the reference composes them: the description before this plot, then the book profile.
    described = {c.name: c.description for c in plot.key_characters}
    out: dict[str, str] = {}
    for name in speakers:
        if name == ENVIRONMENT:
            continue
        own = book.character_datasets.get(name)
        text = (own.profile if own else "").strip("\n")
        if name in described:
            text = described[name].strip("\n") + "\n\n" + text
        if text.strip(" \n"):
            out[name] = text.strip(" \n")
    return out


def turns(conv: Conversation, name: str, thoughts: bool) -> list[dict[str, str]]:
    """The scene from ``name``'s side: human turns of the others, assistant turns of its own."""
    out = [{"from": "human", "value": START}]
    last = "human"
    for d in conv.dialogues:
        if d.character != name:
            text = d.message if d.character == ENVIRONMENT else remove_inner_thoughts(d.message)
            if last == "human":
                out[-1]["value"] += f"{d.character}: {text}\n\n"
            else:
                out.append({"from": "human", "value": f"{d.character}: {text}\n\n"})
            last = "human"
            continue
        text = d.message
        if not thoughts and d.character != ENVIRONMENT:
            text = remove_inner_thoughts(text)
            if not text.strip(" \n"):
                continue
        if last == "assistant":
            out[-1]["value"] += f"{text}\n\n"
        else:
            out.append({"from": "assistant", "value": f"{d.character}: {text}\n\n"})
        last = "assistant"
    return out


def nsp_turns(conv: Conversation, majors: list[str], rng: random.Random) -> list[dict[str, str]]:
    """Who acts before each message, then the end marker."""
    out = [{"from": "human", "value": START}]
    for d in conv.dialogues:
        target = d.character
        if target not in majors and target != ENVIRONMENT and rng.random() < 0.25:
            target = RANDOM
        out.append({"from": "assistant", "value": target})
        out.append({"from": "human", "value": f"{d.character}: {d.message}\n\n"})
    out.append({"from": "assistant", "value": END_CHAT})
    return out


def _plots(book: BookData, split: str) -> Iterable[tuple[int, Plot]]:
    for i_p, plot in enumerate(book.plots):
        held_out = i_p >= book.split_index
        if split == "all" or (split == "test") == held_out:
            yield i_p, plot


def conversation_samples(book: BookData, i_p: int, plot: Plot, i_c: int, conv: Conversation,
                         options: SFTOptions, library: PromptLibrary) -> Iterator[SftSample]:
    """Every sample of one conversation, over the four passes."""
    speakers = conv.speakers
    if not any(s != ENVIRONMENT for s in speakers):
        return
    majors = [s for s in speakers if s in book.character_datasets]
    profiles = _profiles(book, plot, speakers)
    experience = {c.name: c.summary for c in plot.key_characters}
    base = f"{options.seed}|{book.title}|{i_p}|{i_c}"
    for n_pass, (thoughts, with_others) in enumerate(PASSES):
        rng = random.Random(f"{base}|{n_pass}")
        scenario = conv.scenario + "\n" + plot.summary if rng.random() < 0.5 else conv.scenario
        meta = {"book": book.title, "i_p": i_p, "i_c": conv.i_c if conv.i_c is not None else i_c, "pass": n_pass,
                "thoughts": thoughts, "with_profiles": with_others}
        for name in speakers:
            if name == ENVIRONMENT and not options.environment:
                continue
            draw = random.Random(f"{base}|{n_pass}|{name}")
            if name == ENVIRONMENT:
                template = "coser_env_system"
                system = library.render(template, scenario=scenario, major_characters=majors)
                extras: dict[str, Any] = {}
            else:
                motivation = conv.motivation_of(name) if draw.random() >= 0.5 else ""
                profile = profiles.get(name, "")
                if name in experience and draw.random() < 0.5:
                    profile = (profile + "\n\n" + experience[name]).strip(" \n")
                with_plot = draw.random() < 0.5
                template = options.templates[int(draw.random() * len(options.templates))]
                others = {o: p for o, p in profiles.items() if o != name} if with_others else {}
                system = library.render(template, character=name, book=book.title, profile=profile, scenario=conv.scenario,
                                        motivation=motivation, other_profiles=others,
                                        plot_summary=plot.summary if with_plot else "", thoughts=thoughts)
                extras = {"motivation": bool(motivation), "plot": with_plot,
                          "experience": profile != profiles.get(name, "")}
            chat = turns(conv, name, thoughts)
            if not any(t["from"] == "assistant" for t in chat):
                continue
            yield SftSample([{"from": "system", "value": system}, *chat],
                            {**meta, "character": name, "template": template, **extras})
        if rng.random() < options.nsp_fraction:
            system = library.render("coser_curate_sft_nsp", speakers=speakers, scenario=scenario,
                                    environment=ENVIRONMENT, end=END_CHAT)
            yield SftSample([{"from": "system", "value": system}, *nsp_turns(conv, majors, rng)],
                            {**meta, "character": NSP, "template": "coser_curate_sft_nsp"})



def book_samples(book: BookData, options: SFTOptions = SFTOptions(),
                 library: PromptLibrary | None = None) -> Iterator[SftSample]:
    """Every sample of ``book``, in plot, conversation and pass order."""
    library = library or PromptLibrary()
    for i_p, plot in _plots(book, options.split):
        for i_c, conv in enumerate(plot.conversation):
            yield from conversation_samples(book, i_p, plot, i_c, conv, options, library)


def export_sft(books: Iterable[BookData], path: str | os.PathLike[str], options: SFTOptions = SFTOptions(),
               library: PromptLibrary | None = None) -> list[SftSample]:
    """Write every sample to ``path`` (``.json``: one list, as released; otherwise JSON Lines)."""
    samples = [s for book in books for s in book_samples(book, options, library)]
    rows = [s.sharegpt() for s in samples]
    if Path(path).suffix.lower() == ".json":
        atomic_write_text(path, json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
    else:
        atomic_write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return samples
