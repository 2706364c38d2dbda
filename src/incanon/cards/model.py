"""The Character Card V2 model (``chara_card_v2``, spec version ``2.0``) and its V1 ancestor.

The spec (github malfoyslastname/character-card-spec-v2) nests the six V1 fields (name,
description, personality, scenario, first_mes, mes_example) in ``data`` and adds creator notes,
prompts, greetings, tags, a lorebook (``character_book``) and ``extensions``. Two rules of the
spec shape this module: unknown keys must never be destroyed (every model keeps extras), and
``extensions`` defaults to ``{}`` on the card, the book and each entry.

``parse_card`` reads either version from decoded JSON and turns every way a card can be wrong
into one ``InputError`` naming the file and the field (``data.character_book.entries[2].keys``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from incanon.errors import InputError

SPEC = "chara_card_v2"
SPEC_VERSION = "2.0"
SPEC_V3 = "chara_card_v3"
#: V3 cards say ``3.0``; later 3.x versions keep the fields incanon reads.
V3_VERSION = "3.0"
#: The V1 fields: a V1 card is exactly these at the top level (all strings, "" by default).
V1_FIELDS = ("name", "description", "personality", "scenario", "first_mes", "mes_example")


def _blank_if_null(value: Any) -> Any:
    # Cards in the wild carry ``null`` for an empty text field; the spec's default is "".
    return "" if value is None else value


class _Open(BaseModel):
    # extra="allow": the spec forbids destroying keys an editor does not know.
    model_config = ConfigDict(extra="allow")


class BookEntry(_Open):
    """One lorebook entry: inserted into the prompt when one of its keys appears in the chat."""

    keys: list[str]
    """Words that trigger the entry (matched case-insensitively unless ``case_sensitive``)."""
    content: str
    """The text inserted into the prompt."""
    extensions: dict[str, Any] = Field(default_factory=dict)
    """Application data; incanon keeps its own under ``incanon``."""
    enabled: bool = True
    """A disabled entry is never inserted."""
    insertion_order: float = 0
    """Lower values are inserted higher in the prompt."""
    case_sensitive: bool | None = None
    name: str | None = None
    """Not used in prompts; incanon writes the entry's first key."""
    priority: float | None = None
    id: int | str | None = None
    comment: str | None = None
    selective: bool | None = None
    secondary_keys: list[str] | None = None
    constant: bool | None = None
    position: str | None = None
    """``before_char`` or ``after_char`` (the character definitions)."""

    _null = field_validator("content", mode="before")(_blank_if_null)


class CharacterBook(_Open):
    """A character-specific lorebook."""

    name: str | None = None
    description: str | None = None
    scan_depth: int | None = None
    token_budget: int | None = None
    recursive_scanning: bool | None = None
    extensions: dict[str, Any] = Field(default_factory=dict)
    entries: list[BookEntry] = Field(default_factory=list)


class CardData(_Open):
    """The ``data`` object of a V2 card."""

    name: str
    description: str = ""
    personality: str = ""
    scenario: str = ""
    first_mes: str = ""
    mes_example: str = ""
    creator_notes: str = ""
    system_prompt: str = ""
    post_history_instructions: str = ""
    alternate_greetings: list[str] = Field(default_factory=list)
    character_book: CharacterBook | None = None
    tags: list[str] = Field(default_factory=list)
    creator: str = ""
    character_version: str = ""
    extensions: dict[str, Any] = Field(default_factory=dict)

    _null = field_validator(
        "description", "personality", "scenario", "first_mes", "mes_example", "creator_notes",
        "system_prompt", "post_history_instructions", "creator", "character_version", mode="before",
    )(_blank_if_null)

    @field_validator("name")
    @classmethod
    def _named(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the character name is empty")
        return value


class CardV2(_Open):
    """A whole Character Card V2."""

    spec: Literal["chara_card_v2"] = SPEC
    spec_version: Literal["2.0"] = SPEC_VERSION
    data: CardData
    _document: dict[str, Any] | None = PrivateAttr(default=None)
    _exact: dict[str, Any] | None = PrivateAttr(default=None)
    _top: dict[str, Any] | None = PrivateAttr(default=None)
    """The source document's other top-level keys (SillyTavern repeats the V1 fields there, with
    its own: avatar, chat, create_date...), written back around ``data``."""

    def __eq__(self, other: object) -> bool:
        # Two cards are equal by their content; where one was read from is not part of it.
        return isinstance(other, CardV2) and self.model_dump() == other.model_dump()

    __hash__ = None  # type: ignore[assignment]  (mutable, like every pydantic model)

    def data_dict(self) -> dict[str, Any]:
        """``data`` as JSON: for a card exported from an imported one, its fields exactly as
        they were read (nulls and unknown keys included) with incanon's additions; else the
        model's fields."""
        if self._exact is not None:
            return self._exact
        return self.data.model_dump(mode="json", exclude_none=True)

    @property
    def document(self) -> dict[str, Any] | None:
        """The JSON document the card was read from (V1, V2 or V3, every field as it was); None
        for a card incanon built."""
        return self._document

    def to_json(self) -> str:
        """The card as compact JSON (as front ends store it), unknown keys kept."""
        if self._exact is not None:
            import json

            doc = {**(self._top or {}), "spec": SPEC, "spec_version": SPEC_VERSION, "data": v2_data(self._exact)}
            return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
        return self.model_dump_json(exclude_none=True)


def v2_data(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` as V2 requires it: lorebook entry ids are integers (V3 allows strings; a V2
    reader rejects them). Integer ids stay; each other one gets the next free integer. The
    input is not changed (a V3 export keeps its own ids)."""
    book = data.get("character_book")
    entries = book.get("entries") if isinstance(book, dict) else None
    if not isinstance(entries, list):
        return data
    bad = [i for i, e in enumerate(entries) if isinstance(e, dict) and "id" in e
           and (not isinstance(e["id"], int) or isinstance(e["id"], bool))]
    if not bad:
        return data
    taken = {e["id"] for e in entries if isinstance(e, dict) and isinstance(e.get("id"), int)
             and not isinstance(e.get("id"), bool)}
    fixed, next_id = list(entries), max(taken, default=-1) + 1
    for i in bad:
        fixed[i], next_id = {**entries[i], "id": next_id}, next_id + 1
    return {**data, "character_book": {**book, "entries": fixed}}


def _where(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "card"


def _validate(model: type[BaseModel], data: Any, source: str, prefix: tuple[str, ...] = ()) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = _where((*prefix, *first["loc"]))
        message = first["msg"].removeprefix("Value error, ")
        raise InputError(f"not a valid character card: {message}", source=source, where=where) from None


def parse_card(doc: Any, source: str) -> tuple[CardV2, int]:
    """A decoded card JSON document as ``(CardV2, version)``, version 3, 2 or 1 (a V1 card is
    lifted into V2's ``data``; a V3 card's own fields stay in ``data`` as extras). Raises ``InputError`` naming ``source`` and the bad field."""
    if not isinstance(doc, dict):
        raise InputError(f"not a character card: expected a JSON object, found {type(doc).__name__}", source=source)
    if "spec" not in doc:
        if "name" not in doc:
            raise InputError("not a character card: no 'spec' (V2) and no 'name' (V1) field", source=source)
        fields = {k: doc[k] for k in V1_FIELDS if k in doc}
        return _read(CardV2(data=_validate(CardData, fields, source)), doc), 1
    spec, version = doc.get("spec"), doc.get("spec_version", SPEC_VERSION)
    if spec == SPEC_V3:
        if not str(version).startswith("3"):
            raise InputError(f"unsupported spec_version {str(version)[:20]!r}; expected '3.x'", source=source,
                             where="spec_version")
        if not isinstance(doc.get("data"), dict):
            raise InputError("a V3 card needs a 'data' object", source=source, where="data")
        # V3 keeps V2's fields and adds its own (assets, nickname, group-only greetings,
        # dates...): they are kept as extras and written back by ``v3_document``.
        return _read(CardV2(data=_validate(CardData, doc["data"], source, ("data",))), doc), 3
    if spec != SPEC:
        raise InputError(f"unknown card spec {str(spec)[:60]!r}; expected {SPEC!r}", source=source, where="spec")
    if version != SPEC_VERSION:
        raise InputError(f"unsupported spec_version {str(version)[:20]!r}; expected {SPEC_VERSION!r}",
                         source=source, where="spec_version")
    if not isinstance(doc.get("data"), dict):
        raise InputError("a V2 card needs a 'data' object", source=source, where="data")
    # The top level may repeat the V1 fields (SillyTavern writes both); ``data`` is the card.
    data = _validate(CardData, doc["data"], source, ("data",))
    return _read(CardV2(data=data), doc), 2


def _read(card: CardV2, doc: dict[str, Any]) -> CardV2:
    card._document = doc
    return card


def v3_document(card: CardV2, *, now: int | None = None) -> dict[str, Any]:
    """``card`` as a Character Card V3 document (``chara_card_v3``, ``3.0``): V2's data plus the
    fields V3 requires (``group_only_greetings``, dates, the default icon asset) and
    ``use_regex`` on every lorebook entry. Fields a V3 card brought in are kept as they were."""
    import time

    data = dict(card.data_dict())
    stamp = int(time.time()) if now is None else now
    data.setdefault("group_only_greetings", [])
    data.setdefault("creation_date", stamp)
    data.setdefault("modification_date", stamp)  # a V3 card's own dates are kept, as every field
    data.setdefault("assets", [{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"}])
    data.setdefault("nickname", "")
    data.setdefault("creator_notes_multilingual", {})
    data.setdefault("source", [])
    for entry in (data.get("character_book") or {}).get("entries", []):
        entry.setdefault("use_regex", False)
    return {**(card._top or {}), "spec": SPEC_V3, "spec_version": V3_VERSION, "data": data}
