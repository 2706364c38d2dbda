"""Retrieval augmentation of the actors from the book's own data (``--rag expr3_conv1``).

``exprN_convM`` retrieves, for each character, N of its *experiences* (its summary in a plot's
key characters) and M *conversations* it took part in, from the per-book JSON. Only plots the
character has already lived through are searched: those before the test conversation's plot and
before the book's held-out split (CoSER keeps the last 10 % of each book out of retrieval), so a
retrieved memory never comes from later in the story. The query is the scenario plus the
character's own motivation; passages and query are embedded once per character.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from incanon.bench.coser.formats import ENVIRONMENT, BookData, Conversation, remove_thoughts
from incanon.bench.coser.files import load_book
from incanon.errors import ConfigError, NotFoundError
from incanon.models.types import Embedder

_SPEC = re.compile(r"^(?:expr(\d+))?(?:[_+-]?conv(\d+))?$")


class RagSpec(BaseModel):
    """How many experiences and conversations to retrieve per character."""

    experiences: int = 0
    conversations: int = 0

    @property
    def name(self) -> str:
        parts = [f"expr{self.experiences}" if self.experiences else "", f"conv{self.conversations}" if self.conversations else ""]
        return "_".join(p for p in parts if p)


def parse_rag(text: str | None) -> RagSpec | None:
    """``expr3_conv1``, ``expr3``, ``conv1``, ``expr10_conv1``; None or ``none`` for no retrieval."""
    if text is None or text.strip().lower() in ("", "none", "no"):
        return None
    match = _SPEC.match(text.strip().lower())
    if not match or not (match.group(1) or match.group(2)):
        raise ConfigError(f"unknown retrieval setting {text!r}; expected exprN, convM or exprN_convM (e.g. expr3_conv1)")
    spec = RagSpec(experiences=int(match.group(1) or 0), conversations=int(match.group(2) or 0))
    if not (spec.experiences or spec.conversations):
        raise ConfigError(f"retrieval setting {text!r} retrieves nothing")
    return spec


def _conversation_text(conv: Conversation, character: str) -> str:
    # The character's own thoughts are its memory; everyone else's stay hidden.
    lines = [f"{t.character}: {t.message if t.character in (character, ENVIRONMENT) else remove_thoughts(t.message)}"
             for t in conv.dialogues]
    head = f"Scene: {conv.scenario}".strip() if conv.scenario else ""
    return "\n".join([head, *lines]).strip()


def passages(book: BookData, character: str, before_plot: int | None) -> tuple[list[str], list[str]]:
    """(experiences, conversations) of ``character`` in the plots it may remember."""
    limit = book.split_index if before_plot is None else min(book.split_index, before_plot)
    experiences: list[str] = []
    conversations: list[str] = []
    for plot in book.plots[: max(0, limit)]:
        for member in plot.key_characters:
            if member.name == character and member.summary.strip():
                where = f" ({plot.chapter})" if plot.chapter else ""
                experiences.append(f"Experience{where}: {member.summary.strip()}")
        for conv in plot.conversation:
            names = {c.name for c in conv.key_characters} | {t.character for t in conv.dialogues}
            if character in names and conv.dialogues:
                conversations.append(_conversation_text(conv, character))
    return experiences, conversations


def _top(embedder: Embedder, query: str, texts: list[str], k: int) -> list[str]:
    if k <= 0 or not texts:
        return []
    if len(texts) <= k:
        return list(texts)
    q = np.asarray(embedder.embed([query], kind="query"), dtype=np.float32)[0]
    vectors = np.asarray(embedder.embed(texts, kind="passage"), dtype=np.float32)
    order = np.argsort(-(vectors @ q), kind="stable")[:k]
    return [texts[i] for i in sorted(order)]  # story order reads better than score order


class BookMemory:
    """Per-book JSON files of a folder, loaded once each, searched per character."""

    def __init__(self, folder: str | Path, embedder: Embedder, spec: RagSpec) -> None:
        self.folder = Path(folder).expanduser()
        if not self.folder.is_dir():
            raise NotFoundError(f"book data folder {self.folder} does not exist")
        self.embedder = embedder
        self.spec = spec
        self._books: dict[str, BookData] = {}

    def book(self, title: str) -> BookData:
        if title not in self._books:
            path = self.folder / f"{title}.json"
            if not path.is_file():
                raise NotFoundError(f"no book data for {title!r}: expected {path}")
            self._books[title] = load_book(path)
        return self._books[title]

    def retrieve(self, title: str, character: str, before_plot: int | None, query: str) -> list[str]:
        """The character's retrieved experiences, then conversations."""
        experiences, conversations = passages(self.book(title), character, before_plot)
        return (_top(self.embedder, query, experiences, self.spec.experiences)
                + _top(self.embedder, query, conversations, self.spec.conversations))
