"""Claims: one sentence each, factual or counterfactual, tied to the edge it came from.

SHARP puts each claim in a role's mouth ("I think a dog is an animal. Do you agree?") and reads
the main character's stance; in factual mode a factual claim should get FAVOR and a
counterfactual one AGAINST. ``label`` is that ground truth, ``rule`` says how a counterfactual
was made, ``source`` keeps the ConceptNet edge for auditing.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from incanon.bench.sharp.conceptnet import Edge
from incanon.bench.sharp.templates import get_language
from incanon.errors import InputError
from incanon.files import iter_jsonl_objects, write_lines_atomic

Label = Literal["factual", "counterfactual"]


class ClaimSource(BaseModel):
    """The ConceptNet edge a claim was rendered from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    relation: str = Field(description="Short relation name, e.g. IsA.")
    head: str = Field(description="Head concept text (ConceptNet's start node).")
    tail: str = Field(description="Tail concept text (ConceptNet's end node).")
    weight: float = Field(description="ConceptNet edge weight.")
    assertion: str = Field(default="", description="Assertion URI of the edge.")
    head_uri: str = Field(default="", description="Concept URI of the head.")
    tail_uri: str = Field(default="", description="Concept URI of the tail.")

    @classmethod
    def of(cls, edge: Edge) -> "ClaimSource":
        """Provenance record for an edge."""
        return cls(
            relation=edge.relation, head=edge.head.text, tail=edge.tail.text, weight=edge.weight,
            assertion=edge.uri, head_uri=edge.head.uri, tail_uri=edge.tail.uri,
        )


class Claim(BaseModel):
    """One claim sentence with its ground-truth label and provenance."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="Stable id: a hash of language and text.")
    text: str = Field(description="The claim sentence.")
    label: Label = Field(description="factual (expected stance FAVOR) or counterfactual (AGAINST).")
    rule: str | None = Field(default=None, description="Counterfactual rule that made it; None for facts.")
    detail: str | None = Field(default=None, description="What the rule changed, for auditing.")
    lang: str = Field(default="en", description="Language code of the text.")
    source: ClaimSource = Field(description="The edge the claim was rendered from.")


def claim_id(lang: str, text: str) -> str:
    """A short stable id for a claim text."""
    return hashlib.sha1(f"{lang}\x1f{text}".encode()).hexdigest()[:16]


def make_claim(
    edge: Edge, text: str, *, label: Label, lang: str, rule: str | None = None, detail: str | None = None
) -> Claim:
    """Build a Claim from an edge and a finished sentence."""
    return Claim(
        id=claim_id(lang, text), text=text, label=label, rule=rule, detail=detail, lang=lang,
        source=ClaimSource.of(edge),
    )


def edge_to_claim(edge: Edge, lang: str = "en") -> Claim | None:
    """The factual claim for an edge, or None when the edge is in another language or the
    language has no template for its relation (callers count these; they are not errors)."""
    if edge.head.lang != lang or edge.tail.lang != lang:
        return None
    forms = get_language(lang).forms(edge.relation, edge.head, edge.tail)
    if forms is None or not forms.fact:
        return None
    return make_claim(edge, forms.fact, label="factual", lang=lang)


def write_claims_jsonl(claims: Iterable[Claim], path: str | os.PathLike[str]) -> int:
    """Write one JSON object per line, atomically (temp file in the same folder, then rename).

    Returns the number of claims written.
    """
    return write_lines_atomic(path, (claim.model_dump_json() for claim in claims))


def iter_claims_jsonl(path: str | os.PathLike[str]) -> Iterator[Claim]:
    """Stream claims from a JSONL file; a bad line raises InputError with its line number."""
    source = Path(path).expanduser()
    for where, data in iter_jsonl_objects(source, "claims file"):
        try:
            yield Claim.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "claim"
            raise InputError(f"expected a claim: field {field!r}: {first['msg']}",
                             source=str(source), where=where) from None


def read_claims_jsonl(path: str | os.PathLike[str]) -> list[Claim]:
    """Read all claims of a JSONL file written by ``write_claims_jsonl``."""
    return list(iter_claims_jsonl(path))
