"""RoleRAG question sets: one JSON object per line,
``{"character", "question", "scope": "in"|"out", "kind": "general"|"specific"}`` plus optional
``id``, ``work``, ``at`` (a story position or time-point label; default the end of the story)
and ``description`` (what the judge, playing the character, is told about them)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from incanon.errors import InputError, NotFoundError
from incanon.jsonlines import iter_jsonl


class RoleRAGQuestion(BaseModel):
    """One interview question for a character."""

    model_config = ConfigDict(extra="ignore")

    id: str = ""
    character: str
    question: str
    scope: Literal["in", "out"] = "in"
    """``out``: about something outside the character's world or era (should be declined)."""
    kind: Literal["general", "specific"] = "specific"
    """``general``: interests, values, attitudes; ``specific``: experiences, relations, details."""
    work: str | None = None
    at: str | None = None
    description: str | None = None

    def with_id(self) -> "RoleRAGQuestion":
        if self.id:
            return self
        digest = hashlib.sha256(f"{self.character}|{self.at}|{self.question}".encode()).hexdigest()[:10]
        return self.model_copy(update={"id": f"{self.character}:{digest}"})

    def row(self) -> dict[str, object]:
        return self.model_dump(exclude_none=True)


def load_questions(path: str | Path) -> list[RoleRAGQuestion]:
    """Read a JSONL question file; errors name the line and the field."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise NotFoundError(f"no question file at {p}")
    out: list[RoleRAGQuestion] = []
    seen: set[str] = set()
    for where, data in iter_jsonl(p, "question file"):
        lineno = where.removeprefix("line ")
        try:
            item = RoleRAGQuestion.model_validate(data).with_id()
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(x) for x in first["loc"]) or "row"
            raise InputError(f"{field}: {first['msg']}", source=str(p), where=f"line {lineno}") from None
        if item.id in seen:
            raise InputError(f"duplicate question id {item.id!r}", source=str(p), where=f"line {lineno}")
        seen.add(item.id)
        out.append(item)
    if not out:
        raise InputError("the question file holds no question", source=str(p))
    return out


def write_questions(items: Iterable[RoleRAGQuestion], path: str | Path) -> int:
    """Write the questions as JSON Lines (atomically, see :mod:`incanon.files`); returns the count."""
    from incanon.files import write_lines_atomic

    return write_lines_atomic(Path(path).expanduser(), (json.dumps(i.row(), ensure_ascii=False) for i in items))


def fingerprint(items: Sequence[RoleRAGQuestion]) -> str:
    digest = hashlib.sha256()
    for i in items:
        digest.update(json.dumps(i.row(), sort_keys=True, ensure_ascii=False).encode())
    return digest.hexdigest()[:12]
