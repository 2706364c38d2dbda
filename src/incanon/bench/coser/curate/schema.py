"""What each curation call must return: pydantic models for checking, JSON schemas for constraining.

The models accept the variants models produce (``character`` for ``name``, one conversation
object instead of a list, ``"None"`` for null); the schemas are what a grammar-constrained
backend (the embedded model) is held to, with item and length caps so a small model cannot
loop until it runs out of tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from incanon.bench.coser.formats import Conversation, PlotCharacter, _int_or_none


class _Out(BaseModel):
    model_config = ConfigDict(extra="ignore")


def _none_text(value: Any) -> Any:
    if isinstance(value, str) and value.strip() in ("", "None", "null", "N/A"):
        return None
    return value


class ExtractedPlot(_Out):
    """A plot as the extraction call returns it (before its text is located)."""

    chapter_title: str | None = None
    first_sentence: str
    last_sentence: str
    prominence: int | None = None
    summary: str
    key_characters: list[PlotCharacter] = Field(default_factory=list)
    conversation: list[Conversation] = Field(default_factory=list)
    state: Literal["finished", "truncated"] = "finished"
    continues: int | None = None
    """Index of the truncated plot from the previous chunk this plot continues, if any."""

    @model_validator(mode="before")
    @classmethod
    def _variants(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            if "chapter" in data and "chapter_title" not in data:
                data["chapter_title"] = data.pop("chapter")
            if "conversations" in data and "conversation" not in data:
                data["conversation"] = data.pop("conversations")
            if isinstance(data.get("conversation"), dict):
                data["conversation"] = [data["conversation"]]
            if data.get("conversation") is None:
                data["conversation"] = []
            data["chapter_title"] = _none_text(data.get("chapter_title"))
            data["prominence"] = _int_or_none(data.get("prominence"))
            state = str(data.get("state") or "finished").strip().lower()
            data["state"] = "truncated" if state.startswith("trunc") else "finished"
            continues = _int_or_none(_none_text(data.get("continues")))
            data["continues"] = continues if continues is not None and continues >= 0 else None
        return data

    @field_validator("summary", "first_sentence", "last_sentence")
    @classmethod
    def _nonblank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value


class ChunkExtraction(_Out):
    """The whole answer for one chunk."""

    chapter_beginnings: list[str] = Field(default_factory=list)
    plots: list[ExtractedPlot]
    next_chunk_start: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _variants(cls, data: Any) -> Any:
        # A bare plot or a bare list of plots is read as the plots of the chunk.
        if isinstance(data, list):
            data = {"plots": data}
        elif isinstance(data, dict) and "first_sentence" in data:
            data = {"plots": [data]}
        if isinstance(data, dict):
            data = dict(data)
            beginnings = data.get("chapter_beginnings") or []
            data["chapter_beginnings"] = [
                b.get("beginning_sentence", "") if isinstance(b, dict) else str(b) for b in beginnings
            ]
            data["next_chunk_start"] = _none_text(data.get("next_chunk_start"))
        return data


class RefinedCharacter(_Out):
    name: str
    motivation: str

    @model_validator(mode="before")
    @classmethod
    def _variants(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            if "name" not in data and "character" in data:
                data["name"] = data.pop("character")
            if "motivation" not in data and "thought" in data:
                data["motivation"] = data.pop("thought")
        return data


class RefinedSetting(_Out):
    """A conversation's completed setting."""

    scenario: str
    key_characters: list[RefinedCharacter]


class NameMapping(_Out):
    """Name unification: official names and where every mention points."""

    named_characters: list[str] = Field(default_factory=list)
    to_official_name: dict[str, str]

    @field_validator("to_official_name", mode="before")
    @classmethod
    def _first_of_list(cls, value: Any) -> Any:
        if isinstance(value, list):  # the constrained form: [{"name", "official"}]
            value = {p.get("name"): p.get("official") for p in value if isinstance(p, dict) and p.get("name")}
        if isinstance(value, dict):
            return {k: (v[0] if isinstance(v, list) and v else v) for k, v in value.items()}
        return value


@dataclass(frozen=True)
class SchemaLimits:
    """Caps written into the constraining schemas (ignored by unconstrained backends)."""

    max_plots: int = 8
    max_conversations: int = 3
    max_characters: int = 8
    max_dialogues: int = 40
    max_text: int | None = None
    """Characters per string field (None: no cap; a cap makes llama.cpp's grammar much larger)."""
    max_chapters: int = 4
    """Chapter beginnings per chunk."""


def _str(limits: SchemaLimits, short: bool = False, required: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "string"}
    if limits.max_text:
        out["maxLength"] = min(200, limits.max_text) if short else limits.max_text
    if required:
        out["minLength"] = 1
    return out


def _array(items: dict[str, Any], cap: int) -> dict[str, Any]:
    return {"type": "array", "items": items, "maxItems": cap}


def _object(props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


def extraction_schema(limits: SchemaLimits = SchemaLimits()) -> dict[str, Any]:
    conv = _object({
        "scenario": _str(limits),
        "topic": _str(limits, short=True),
        "key_characters": _array(_object({"name": _str(limits, True, True), "motivation": _str(limits)}),
                                 limits.max_characters),
        "dialogues": _array(_object({"character": _str(limits, True, True), "message": _str(limits, required=True)}),
                            limits.max_dialogues),
    })
    plot = _object({
        "chapter_title": _str(limits, short=True),
        "first_sentence": _str(limits, required=True),
        "last_sentence": _str(limits, required=True),
        "prominence": {"type": "integer", "minimum": 1, "maximum": 100},
        "summary": _str(limits, required=True),
        "key_characters": _array(
            _object({"name": _str(limits, True, True), "description": _str(limits), "summary": _str(limits)}),
            limits.max_characters,
        ),
        "conversation": _array(conv, limits.max_conversations),
        "state": {"type": "string", "enum": ["finished", "truncated"]},
        "continues": {"type": "integer"},
    })
    return _object({
        "chapter_beginnings": _array(_str(limits, short=True), limits.max_chapters),
        "plots": _array(plot, limits.max_plots),
        "next_chunk_start": _str(limits),
    })


def refine_schema(limits: SchemaLimits = SchemaLimits()) -> dict[str, Any]:
    return _object({
        "scenario": _str(limits),
        "key_characters": _array(_object({"name": _str(limits, True), "motivation": _str(limits)}), limits.max_characters),
    })


def names_schema(limits: SchemaLimits = SchemaLimits(), n_names: int = 200) -> dict[str, Any]:
    # Free-form keys cannot be spelled out in a schema: a list of pairs is asked for instead
    # when the backend is constrained, and read back into a mapping. There is one pair per
    # name given and at most as many official names, so neither list can run on.
    n = max(1, n_names)
    return _object({
        "named_characters": _array(_str(limits, True), n),
        "to_official_name": _array(_object({"name": _str(limits, True), "official": _str(limits, True)}), n),
    })


def response_format(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}
