"""Reading an extraction reply: JSON (what the built-in prompt asks for, schema-constrained where
the backend supports it) or GraphRAG's ``("entity"<|>NAME<|>TYPE<|>DESC)`` tuple lines (so a
user can drop in the paper's own prompt). Anything unreadable raises ``ExtractionParseError``
with a message the repair turn shows the model."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from incanon.errors import IncanonError
from incanon.llmout import json_objects


class ExtractionParseError(IncanonError):
    """The model's extraction could not be read."""


@dataclass(frozen=True)
class RawEntity:
    name: str
    type: str
    description: str = ""
    valid_from: str = ""
    """When what the description says becomes true, as the text gives it ("1822", "at age 21",
    "later"); empty: the text gives no time (the chunk's position applies)."""
    valid_to: str = ""
    """When it stops being true, likewise."""


@dataclass(frozen=True)
class RawRelation:
    source: str
    target: str
    description: str = ""
    strength: float = 1.0
    valid_from: str = ""
    """When the relation becomes true, as the text gives it; empty: the chunk's position."""
    valid_to: str = ""
    """When it stops being true; empty: it does not stop (or the text does not say)."""


@dataclass
class Extraction:
    """What one chunk yielded (possibly over several calls)."""

    entities: list[RawEntity] = field(default_factory=list)
    relations: list[RawRelation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, other: "Extraction") -> int:
        """Add what ``other`` found that this one lacks; return how many items were new."""
        seen_e = {(e.name.casefold(), e.type) for e in self.entities}
        seen_r = {(r.source.casefold(), r.target.casefold(), r.description) for r in self.relations}
        new = 0
        for e in other.entities:
            if (e.name.casefold(), e.type) not in seen_e:
                self.entities.append(e)
                seen_e.add((e.name.casefold(), e.type))
                new += 1
        for r in other.relations:
            key = (r.source.casefold(), r.target.casefold(), r.description)
            if key not in seen_r:
                self.relations.append(r)
                seen_r.add(key)
                new += 1
        self.notes += other.notes
        return new

    @property
    def empty(self) -> bool:
        return not self.entities and not self.relations


_TYPE_SYNONYMS = {
    "person": "character", "people": "character", "human": "character", "char": "character",
    "characters": "character", "place": "location", "locations": "location", "geo": "location",
    "city": "location", "building": "location", "org": "organization", "organisation": "organization",
    "group": "organization", "institution": "organization", "item": "object", "artifact": "object",
    "thing": "object", "objects": "object", "date": "time", "period": "time", "era": "time",
    "events": "event", "incident": "event",
}
_TUPLE = re.compile(r"\(\s*\"?(entity|relationship|relation)\"?\s*<\|>(.*?)\)\s*(?:##|\n|$|<\|COMPLETE\|>)",
                    re.S | re.I)
"""A GraphRAG-style record; the last one may run straight into the completion marker."""


def entity_type(raw: str, allowed: tuple[str, ...]) -> str | None:
    """The allowed type ``raw`` names (case and common synonyms folded), or None."""
    t = raw.strip().strip("\"'").casefold()
    t = _TYPE_SYNONYMS.get(t, t)
    return t if t in allowed else None


def _strength(value: Any) -> float:
    try:
        s = float(str(value).strip())
    except ValueError:
        return 1.0
    return max(0.0, min(10.0, s))


def _clean(text: Any) -> str:
    return " ".join(str(text or "").split()).strip().strip("\"'").strip()


def _time(item: dict[str, Any], *keys: str) -> str:
    for key in keys:
        value = item.get(key)
        if value not in (None, "") and not isinstance(value, (dict, list)):
            text = _clean(value)
            return "" if text.casefold() in ("none", "null", "unknown", "n/a", "-") else text[:80]
    return ""


_FROM = ("when", "valid_from", "since", "from", "start")
_TO = ("until", "valid_to", "to", "end")


def _from_json(data: Any, allowed: tuple[str, ...]) -> Extraction:
    if not isinstance(data, dict):
        raise ExtractionParseError("expected a JSON object with 'entities' and 'relations' lists")
    ents, rels = data.get("entities", []), data.get("relations", data.get("relationships", []))
    if not isinstance(ents, list) or not isinstance(rels, list):
        raise ExtractionParseError("'entities' and 'relations' must be lists")
    out = Extraction()
    for i, e in enumerate(ents):
        if not isinstance(e, dict) or not _clean(e.get("name")):
            raise ExtractionParseError(f"entities[{i}] needs a 'name'")
        _add_entity(out, _clean(e.get("name")), str(e.get("type", "")), _clean(e.get("description")), allowed,
                    _time(e, *_FROM), _time(e, *_TO))
    for i, r in enumerate(rels):
        if not isinstance(r, dict) or not _clean(r.get("source")) or not _clean(r.get("target")):
            raise ExtractionParseError(f"relations[{i}] needs 'source' and 'target'")
        _add_relation(out, _clean(r["source"]), _clean(r["target"]), _clean(r.get("description")),
                      _strength(r.get("strength", 1)), _time(r, *_FROM), _time(r, *_TO))
    return out


def _add_entity(out: Extraction, name: str, raw_type: str, desc: str, allowed: tuple[str, ...],
                valid_from: str = "", valid_to: str = "") -> None:
    t = entity_type(raw_type, allowed)
    if t is None:
        out.notes.append(f"entity {name!r} has type {raw_type!r}, not one of {', '.join(allowed)}: dropped")
        return
    out.entities.append(RawEntity(name, t, desc, valid_from, valid_to))


def _add_relation(out: Extraction, src: str, tgt: str, desc: str, strength: float,
                  valid_from: str = "", valid_to: str = "") -> None:
    if src.casefold() == tgt.casefold():
        out.notes.append(f"relation of {src!r} to itself: dropped")
        return
    out.relations.append(RawRelation(src, tgt, desc, strength, valid_from, valid_to))


def _from_tuples(text: str, allowed: tuple[str, ...]) -> Extraction | None:
    hits = list(_TUPLE.finditer(text))
    if not hits:
        return None
    out = Extraction()
    for m in hits:
        fields = [_clean(f) for f in m.group(2).split("<|>")]
        # Optional trailing fields carry time: entity ...<|>WHEN<|>UNTIL, relation ...<|>WHEN<|>UNTIL.
        if m.group(1).lower() == "entity" and len(fields) >= 2 and fields[0]:
            _add_entity(out, fields[0], fields[1], fields[2] if len(fields) > 2 else "", allowed,
                        *(fields[3:5] + ["", ""])[:2])
        elif m.group(1).lower() != "entity" and len(fields) >= 2 and fields[0] and fields[1]:
            _add_relation(out, fields[0], fields[1], fields[2] if len(fields) > 2 else "",
                          _strength(fields[3]) if len(fields) > 3 else 1.0, *(fields[4:6] + ["", ""])[:2])
    return out


def _salvage(text: str, allowed: tuple[str, ...]) -> Extraction | None:
    out = Extraction()
    for item in json_objects(text, nested=True):
        if _clean(item.get("name")) and "type" in item:
            _add_entity(out, _clean(item["name"]), str(item["type"]), _clean(item.get("description")), allowed,
                        _time(item, *_FROM), _time(item, *_TO))
        elif _clean(item.get("source")) and _clean(item.get("target")):
            _add_relation(out, _clean(item["source"]), _clean(item["target"]), _clean(item.get("description")),
                          _strength(item.get("strength", 1)), _time(item, *_FROM), _time(item, *_TO))
    if out.empty:
        return None
    out.notes.append(f"reply was cut off; kept its {len(out.entities)} complete entities and "
                     f"{len(out.relations)} complete relations")
    return out


def parse_extraction(text: str, allowed: tuple[str, ...]) -> Extraction:
    """Entities and relations from a reply; ``ExtractionParseError`` when nothing is readable.

    An explicit empty answer (``{"entities": [], "relations": []}``) parses to an empty
    extraction: the caller reports it, this function does not guess."""
    objects = json_objects(text)
    # The extraction is the object with the lists; a reply cut at the token limit has none (its
    # complete items are salvaged below).
    keyed = next((o for o in objects if {"entities", "relations", "relationships"} & set(o)), None)
    if keyed is not None:
        return _from_json(keyed, allowed)
    tuples = _from_tuples(text, allowed)
    if tuples is not None:
        return tuples
    salvaged = _salvage(text, allowed)
    if salvaged is not None:
        return salvaged
    if objects:
        return _from_json(objects[0], allowed)
    raise ExtractionParseError(
        "no JSON object and no (\"entity\"<|>...) lines found" + (": the reply is empty" if not text.strip() else "")
    )


def extraction_schema(allowed: tuple[str, ...], max_chars: int | None = None) -> dict[str, Any]:
    """OpenAI-style ``json_schema`` response format of an extraction (grammar-constrained on the
    embedded backend). ``max_chars`` bounds names and descriptions: a small model otherwise
    repeats one description until the token limit and never closes the JSON. Bounded schemas
    are sent non-strict (strict mode of some APIs rejects length keywords)."""
    def text(limit: int | None) -> dict[str, Any]:
        return {"type": "string", **({"maxLength": limit} if limit else {})}

    time = text(max_chars and 40)
    entity = {
        "type": "object",
        "properties": {"name": text(max_chars and 80), "type": {"type": "string", "enum": list(allowed)},
                       "description": text(max_chars), "when": time, "until": time},
        "required": ["name", "type", "description", "when", "until"], "additionalProperties": False,
    }
    relation = {
        "type": "object",
        "properties": {"source": text(max_chars and 80), "target": text(max_chars and 80),
                       "description": text(max_chars), "strength": {"type": "integer"}, "when": time,
                       "until": time},
        "required": ["source", "target", "description", "strength", "when", "until"], "additionalProperties": False,
    }
    schema = {
        "type": "object",
        "properties": {"entities": {"type": "array", "items": entity},
                       "relations": {"type": "array", "items": relation}},
        "required": ["entities", "relations"], "additionalProperties": False,
    }
    return {"type": "json_schema", "json_schema": {"name": "extraction", "schema": schema, "strict": not max_chars}}
