"""Retrieval augmentation of the actors from the book's own data (``--rag``), as CoSER's
``gca_evaluation`` does it.

Settings (the reference's names): ``raw_text`` (one passage of the plots' raw text),
``exprN`` (N experiences), ``convM`` (M conversations), ``exprN_convM`` (both; the paper's
default is ``expr3_conv1``). For one character the documents are, over the plots it takes part
in (its ``character_datasets`` entry names them):

- raw text: each plot's ``text``;
- experience: the plot summary, then the character's own part in it (its ``experience`` among
  the plot's key characters) when it has one;
- conversation: each conversation of those plots with its plot summary, scenario and topic,
  every message as ``Name: message`` with the [thoughts] removed.

Each document is cut into passages of 1,000 characters with 200 of overlap
(:mod:`incanon.bench.coser.textsplit`), the passages are embedded once per character, and
**before every message** the character writes, the k passages nearest to its last three chat
messages (the scene as it sees it) are retrieved and put in story order into its instruction.

Scope: by default only plots before the test conversation's plot and before the book's
held-out split are searched (``scope="before"``), so no memory comes from later in the story.
CoSER's code searches every plot the character is in (``scope="book"``); in the released book
files those include the held-out plots, the test conversation's own plot among them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel

from incanon.bench.coser.files import load_book
from incanon.bench.coser.formats import BookData, Plot
from incanon.bench.coser.gca_ngrams import remove_inner_thoughts
from incanon.bench.coser.textsplit import split_documents
from incanon.errors import ConfigError, NotFoundError
from incanon.models.types import Embedder

Kind = Literal["book", "experience", "conversation"]
Scope = Literal["before", "book"]
_SPEC = re.compile(r"^(?:expr(\d+))?(?:[_+-]?conv(\d+))?$")
HEADINGS: dict[str, tuple[str, str]] = {
    # kind -> (section heading, label of a numbered passage)
    "book": ("--- From the book ---", "Passage"),
    "experience": ("--- What you went through earlier ---", "Experience"),
    "conversation": ("--- Conversations you took part in ---", "Conversation"),
}


class RagSpec(BaseModel):
    """How many passages of each kind to retrieve per message."""

    raw_text: int = 0
    experiences: int = 0
    conversations: int = 0

    @property
    def name(self) -> str:
        if self.raw_text:
            return "raw_text"
        parts = [f"expr{self.experiences}" if self.experiences else "", f"conv{self.conversations}" if self.conversations else ""]
        return "_".join(p for p in parts if p)

    def kinds(self) -> list[tuple[Kind, int]]:
        """(kind, k) in the order the sections are shown."""
        pairs: list[tuple[Kind, int]] = [("book", self.raw_text), ("experience", self.experiences),
                                         ("conversation", self.conversations)]
        return [(kind, k) for kind, k in pairs if k > 0]


def parse_rag(text: str | None) -> RagSpec | None:
    """``raw_text``, ``expr3``, ``conv1``, ``expr3_conv1``, ``expr10_conv1``...; None or ``none`` for no retrieval."""
    if text is None or text.strip().lower() in ("", "none", "no"):
        return None
    key = text.strip().lower()
    if key in ("raw_text", "raw", "rawtext"):
        return RagSpec(raw_text=1)
    match = _SPEC.match(key)
    if not match or not (match.group(1) or match.group(2)):
        raise ConfigError(f"unknown retrieval setting {text!r}; expected raw_text, exprN, convM or exprN_convM "
                          "(e.g. expr3_conv1)")
    spec = RagSpec(experiences=int(match.group(1) or 0), conversations=int(match.group(2) or 0))
    if not (spec.experiences or spec.conversations):
        raise ConfigError(f"retrieval setting {text!r} retrieves nothing")
    return spec


def involved_plots(book: BookData, character: str, before_plot: int | None, scope: Scope) -> list[int]:
    """Plot indices the character takes part in (plots, conversations or messages), in order."""
    data = book.character_datasets.get(character)
    if data is None:
        return []
    found = {e.i_p for e in data.plots} | {e.i_p for e in data.conversations} | {e.i_p for e in data.utterances}
    indices = sorted(i for i in found if i is not None and 0 <= i < len(book.plots))
    if scope == "before":
        limit = book.split_index if before_plot is None else min(book.split_index, before_plot)
        indices = [i for i in indices if i < limit]
    return indices


def _conversation_document(plot: Plot, index: int) -> str:
    conv = plot.conversation[index]
    head = [f"Plot: {plot.summary}", f"Scene: {conv.scenario}", f"Topic: {conv.topic}"]
    lines = []
    for turn in conv.dialogues:
        text = remove_inner_thoughts(turn.message)
        lines.append(text if text.startswith(turn.character) else f"{turn.character}: {text}")
    return "\n\n".join([*head, "Conversation:", *lines])


def documents(book: BookData, character: str, kind: Kind, plots: list[int]) -> list[str]:
    """The character's documents of one kind over ``plots``."""
    out: list[str] = []
    for i_p in plots:
        plot = book.plots[i_p]
        if kind == "book":
            out.append(plot.text)
        elif kind == "experience":
            own = next((c.summary for c in plot.key_characters if c.name == character), "")
            out.append(f"Plot: {plot.summary}" + (f"\n{character}'s part: {own}" if own else ""))
        else:
            out.extend(_conversation_document(plot, i) for i in range(len(plot.conversation)))
    return out


def format_section(kind: Kind, passages: list[str]) -> str:
    """One section of the instruction's retrieved knowledge."""
    heading, label = HEADINGS[kind]
    if len(passages) == 1:
        return f"{heading}\n{passages[0]}"
    return heading + "\n" + "\n\n".join(f"{label} {i}\n{p}" for i, p in enumerate(passages, 1))


@dataclass
class _Index:
    passages: list[str]
    vectors: np.ndarray


class CharacterMemory:
    """What one character may recall; :meth:`recall` answers one query."""

    def __init__(self, embedder: Embedder, spec: RagSpec, indexes: dict[Kind, _Index]) -> None:
        self.embedder = embedder
        self.spec = spec
        self.indexes = indexes

    def recall(self, query: str) -> list[str]:
        """Formatted sections (one per kind with passages) for ``query``."""
        sections: list[str] = []
        qvec: np.ndarray | None = None
        for kind, k in self.spec.kinds():
            index = self.indexes.get(kind)
            if index is None or not index.passages:
                continue
            if len(index.passages) <= k:
                chosen = list(range(len(index.passages)))
            else:
                if qvec is None:
                    qvec = np.asarray(self.embedder.embed([query or " "], kind="query"), dtype=np.float32)[0]
                chosen = np.argsort(-(index.vectors @ qvec), kind="stable")[:k].tolist()
            # Shown in corpus order, as the reference sorts retrieved passages by their index.
            sections.append(format_section(kind, [index.passages[i] for i in sorted(chosen)]))
        return sections


class BookMemory:
    """Per-book JSON files of a folder, loaded once each; one memory per (book, character, plot)."""

    def __init__(self, folder: str | Path, embedder: Embedder, spec: RagSpec, scope: Scope = "before") -> None:
        self.folder = Path(folder).expanduser()
        if not self.folder.is_dir():
            raise NotFoundError(f"book data folder {self.folder} does not exist")
        self.embedder = embedder
        self.spec = spec
        self.scope: Scope = scope
        self._books: dict[str, BookData] = {}
        self._memories: dict[tuple[str, str, int | None], CharacterMemory] = {}

    def book(self, title: str) -> BookData:
        if title not in self._books:
            path = self.folder / f"{title}.json"
            if not path.is_file():
                raise NotFoundError(f"no book data for {title!r}: expected {path}")
            self._books[title] = load_book(path)
        return self._books[title]

    def memory(self, title: str, character: str, before_plot: int | None) -> CharacterMemory | None:
        """The character's memory for a scene of plot ``before_plot``; None if the book has no
        data on the character (the reference gives such a character no retrieval)."""
        key = (title, character, before_plot)
        if key not in self._memories:
            book = self.book(title)
            if character not in book.character_datasets:
                return None
            plots = involved_plots(book, character, before_plot, self.scope)
            indexes: dict[Kind, _Index] = {}
            for kind, _ in self.spec.kinds():
                passages = split_documents(documents(book, character, kind, plots))
                vectors = (np.asarray(self.embedder.embed(passages, kind="passage"), dtype=np.float32) if passages
                           else np.zeros((0, 1), dtype=np.float32))
                indexes[kind] = _Index(passages, vectors)
            self._memories[key] = CharacterMemory(self.embedder, self.spec, indexes)
        return self._memories[key]
