"""CoSER data formats: the published per-book JSON, the test-set JSON, and message markup
(read and written by ``incanon.bench.coser.files``).

Per-book file (``<title>.json``, as CoSER publishes it)::

    {"plots": [{"text", "summary", "prominence", "chapter", "state",
                "key_characters": [{"name", "description", "summary"}],
                "conversation": [{"scenario", "topic",
                                  "key_characters": [{"name", "motivation" | "thought"}],
                                  "dialogues": [{"character", "message"}]}]}],
     "character_datasets": {name: {"profile", "plots": [...+i_p], "conversations": [...+i_p,i_c],
                                   "utterances": [...+i_p,i_c,i_u]}},
     "split_plot_index": int}

Test-set file: a JSON list of conversations, each with ``book``, ``plot`` (summary, key
characters, ``i_p``), ``i_c``, ``character_profiles``, ``speaking_characters_w_env`` and
``major_characters`` next to the conversation's own fields.

The released data names a conversation character's motivation ``thought`` while CoSER's own
evaluator reads ``motivation``, so motivations never reached its prompts. Here both names are
read into ``ConversationCharacter.motivation`` and both are written, so either reader works.

A message mixes three channels: ``[thought]`` (seen by no one else), ``(action)`` (visible) and
speech (everything else), e.g. ``[I must hide it] (steps back) "Never."``.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from incanon.bench.coser.markup import (  # noqa: F401 - re-exported: the formats' public names
    Channel,
    ParsedMessage,
    Segment,
    format_message,
    format_segments,
    parse_message,
    remove_thoughts,
)

ENVIRONMENT = "Environment"
"""The special role that speaks for the surroundings, crowds and unnamed people."""
IMPERSONAL = "impersonal"
"""Name unification's label for a speaker who is not a named character."""

Domain = Literal["in-domain", "out-of-domain"]


class _Lenient(BaseModel):
    # Published files carry bookkeeping keys we do not model (state, i_chunk, ...); keep them.
    model_config = ConfigDict(extra="allow", populate_by_name=True)


def _rename(data: Any, *pairs: tuple[str, str]) -> Any:
    """Move ``old`` to ``new`` in a dict when only ``old`` is present (published-data variants)."""
    if isinstance(data, dict):
        data = dict(data)
        for old, new in pairs:
            if new not in data and old in data:
                data[new] = data.pop(old)
    return data


class PlotCharacter(_Lenient):
    """A key character of a plot: who they were before it and what they went through in it."""

    name: str
    description: str = ""
    """The character before this plot (~20 words)."""
    summary: str = ""
    """Their role, thoughts and actions in this plot: the character's *experience* of it."""
    i_p: int | None = None
    """Plot index, in ``character_datasets`` entries."""

    @model_validator(mode="before")
    @classmethod
    def _variants(cls, data: Any) -> Any:
        return _rename(data, ("character", "name"), ("experience", "summary"))

    @property
    def experience(self) -> str:
        return self.summary


class ConversationCharacter(_Lenient):
    """A character of a conversation with their state of mind before it starts."""

    name: str
    motivation: str = ""
    """Read from ``motivation`` or, as the released data names it, ``thought``."""
    i_p: int | None = None
    i_c: int | None = None

    @model_validator(mode="before")
    @classmethod
    def _variants(cls, data: Any) -> Any:
        data = _rename(data, ("character", "name"), ("thought", "motivation"))
        if isinstance(data, dict) and "thought" in data:
            # Both present: the non-empty one wins (``motivation`` first); ``thought`` is rewritten.
            thought = data.pop("thought")
            if not data.get("motivation") and isinstance(thought, str):
                data["motivation"] = thought
        return data

    def published(self) -> dict[str, Any]:
        """Dict with the motivation under both names, so every known reader finds it."""
        out = self.model_dump(exclude_none=True)
        out["thought"] = self.motivation
        return out


class DialogueTurn(_Lenient):
    """One message of a conversation, in speech / (action) / [thought] markup."""

    character: str
    message: str = ""
    i_p: int | None = None
    i_c: int | None = None
    i_u: int | None = None

    @model_validator(mode="before")
    @classmethod
    def _variants(cls, data: Any) -> Any:
        data = _rename(data, ("name", "character"), ("speaker", "character"))
        if isinstance(data, dict) and "message" not in data:
            for key in ("thought", "description", "content", "text"):
                if isinstance(data.get(key), str):
                    data["message"] = data.pop(key)
                    break
        return data

    @property
    def parsed(self) -> ParsedMessage:
        return parse_message(self.message)


class Conversation(_Lenient):
    """A conversation of a plot: its setting and its dialogue."""

    scenario: str = ""
    topic: str = ""
    key_characters: list[ConversationCharacter] = Field(default_factory=list)
    dialogues: list[DialogueTurn] = Field(default_factory=list)
    i_c: int | None = None

    @property
    def speakers(self) -> list[str]:
        """Speakers (Environment included) by number of messages, most first; ties by first turn."""
        counts: dict[str, int] = {}
        for turn in self.dialogues:
            counts[turn.character] = counts.get(turn.character, 0) + 1
        return sorted(counts, key=lambda name: -counts[name])

    def motivation_of(self, name: str) -> str:
        return next((c.motivation for c in self.key_characters if c.name == name), "")

    def published(self) -> dict[str, Any]:
        out = self.model_dump(exclude_none=True)
        out["key_characters"] = [c.published() for c in self.key_characters]
        return out


def _int_or_none(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return int(value)
    match = re.search(r"-?\d+(?:\.\d+)?", str(value))
    return int(float(match.group())) if match else None


class Plot(_Lenient):
    """A plot: a stretch of the book with its summary, key characters and conversations."""

    text: str = ""
    """Raw text of the plot, located in the source by its first and last sentences."""
    summary: str = ""
    prominence: int | None = None
    """How well fans know the plot, 1-100 (published values can be strings; digits are read)."""
    key_characters: list[PlotCharacter] = Field(default_factory=list)
    chapter: str | None = None
    conversation: list[Conversation] = Field(default_factory=list)
    state: str = "finished"
    i_p: int | None = None
    i_chunk: int | None = None

    @model_validator(mode="before")
    @classmethod
    def _variants(cls, data: Any) -> Any:
        data = _rename(data, ("chapter_title", "chapter"), ("conversations", "conversation"))
        if isinstance(data, dict):
            if isinstance(data.get("conversation"), dict):
                data["conversation"] = [data["conversation"]]
            if data.get("conversation") is None:
                data["conversation"] = []
            if isinstance(data.get("chapter"), str) and data["chapter"].strip() in ("", "None", "null"):
                data["chapter"] = None
            if "prominence" in data:
                data["prominence"] = _int_or_none(data["prominence"])
        return data

    def published(self) -> dict[str, Any]:
        out = self.model_dump(exclude_none=True)
        out["chapter"] = self.chapter
        out["conversation"] = [c.published() for c in self.conversation]
        return out


class CharacterDataset(_Lenient):
    """Everything curated about one character of a book."""

    profile: str = ""
    plots: list[PlotCharacter] = Field(default_factory=list)
    conversations: list[ConversationCharacter] = Field(default_factory=list)
    utterances: list[DialogueTurn] = Field(default_factory=list)

    @field_validator("profile", mode="before")
    @classmethod
    def _none_profile(cls, value: Any) -> Any:
        return "" if value is None else value


class BookData(_Lenient):
    """One published (or curated) CoSER book file."""

    title: str = ""
    """Not stored in the published file (its name is the title); filled from the file name."""
    plots: list[Plot] = Field(default_factory=list)
    character_datasets: dict[str, CharacterDataset] = Field(default_factory=dict)
    split_plot_index: int | None = None
    """Plots from this index on are held out for testing (default: the last 10 %)."""

    @property
    def split_index(self) -> int:
        if self.split_plot_index is not None:
            return self.split_plot_index
        return int(len(self.plots) * 0.9)

    @property
    def train_plots(self) -> list[Plot]:
        return self.plots[: self.split_index]

    @property
    def test_plots(self) -> list[Plot]:
        return self.plots[self.split_index :]

    def profiles(self) -> dict[str, str]:
        return {name: data.profile for name, data in self.character_datasets.items()}

    def published(self) -> dict[str, Any]:
        """The released per-book layout (``incanon.bench.coser.layout``)."""
        from incanon.bench.coser import layout

        return layout.book(self)


class TestPlot(_Lenient):
    """The plot part of a test sample (the published test set drops its raw text)."""

    __test__ = False  # not a pytest test class

    summary: str = ""
    key_characters: list[PlotCharacter] = Field(default_factory=list)
    chapter: str | None = None
    i_p: int | None = None
    text: str = ""

    @model_validator(mode="before")
    @classmethod
    def _variants(cls, data: Any) -> Any:
        data = _rename(data, ("chapter_title", "chapter"))
        if isinstance(data, dict):
            data.pop("conversation", None)
        return data


class TestSample(Conversation):
    """One given-circumstance acting case: a held-out conversation with its context."""

    __test__ = False  # not a pytest test class

    book: str
    plot: TestPlot = Field(default_factory=TestPlot)
    character_profiles: dict[str, str] = Field(default_factory=dict)
    speaking_characters_w_env: list[str] = Field(default_factory=list)
    major_characters: list[str] = Field(default_factory=list)
    """Speakers that have a profile; the critics judge character fidelity only for these."""
    domain: Domain | None = None
    """in-domain (book used for training) or out-of-domain; absent in the published set."""
    weight: float | None = None
    """Sampling weight (mean of max(1, √plots) over its speakers)."""
    i_p: int | None = None
    """Plot index (the released test set repeats ``plot.i_p`` here)."""

    @model_validator(mode="before")
    @classmethod
    def _tag(cls, data: Any) -> Any:
        # The released set names the domain ``tag`` ("id" / "ood").
        if isinstance(data, dict) and "tag" in data and not data.get("domain"):
            data = dict(data)
            tag = str(data.pop("tag") or "").strip().lower()
            data["domain"] = {"id": "in-domain", "in-domain": "in-domain", "ood": "out-of-domain",
                              "out-of-domain": "out-of-domain"}.get(tag)
        elif isinstance(data, dict) and "tag" in data:
            data = {k: v for k, v in data.items() if k != "tag"}
        return data

    @model_validator(mode="after")
    def _derived(self) -> TestSample:
        if self.i_p is None:
            self.i_p = self.plot.i_p
        elif self.plot.i_p is None:
            self.plot.i_p = self.i_p
        if not self.speaking_characters_w_env:
            self.speaking_characters_w_env = self.speakers
        if not self.major_characters:
            self.major_characters = [c for c in self.speaking_characters_w_env if c in self.character_profiles]
        return self

    @property
    def id(self) -> str:
        return f"{self.book}#{self.plot.i_p}-{self.i_c}"

    def published(self) -> dict[str, Any]:
        """The released test-set layout (``i_p`` and ``tag`` next to the conversation) plus
        incanon's ``domain``."""
        out = super().published()
        out["plot"] = self.plot.model_dump(exclude_none=True)
        if self.domain is not None:
            out.setdefault("tag", "id" if self.domain == "in-domain" else "ood")
        return out
