"""The temporal knowledge graph: quadruples (head, relation, tail, date) with their session.

Built by the LLM one session at a time (each session's triples cached on disk, so an interrupted
extraction resumes and a second run costs nothing), or loaded from a JSON file. Every triple is
checked: the relation must be one of the 32 (spellings like ``ex_girlfriend`` are normalized),
names are resolved to the work's canonical character names, and what cannot be read is reported,
never silently dropped.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from incanon.bench.dialsim.dates import spoken
from incanon.bench.dialsim.relations import RELATIONS, normalize_relation
from incanon.bench.dialsim.script import DialScript, DialSession
from incanon.canon.names import norm
from incanon.errors import InputError
from incanon.llmout import json_values
from incanon.models.types import ChatModel, GenerationParams, Message
from incanon.templates import PromptLibrary, default_library, fingerprint


class Quad(BaseModel):
    """One TKG quadruple, with the session that states it (its evidence)."""

    head: str
    relation: str
    tail: str
    date: str
    """ISO date of the session."""
    session: str

    def key(self) -> tuple[str, str]:
        return (self.head, self.relation)


class TKG(BaseModel):
    """A work's temporal knowledge graph."""

    work: str
    source: str = ""
    """Where it came from: ``llm:<model>``, a file name, ``sample``."""
    quads: list[Quad] = Field(default_factory=list)
    failures: list[dict[str, str]] = Field(default_factory=list)
    """Sessions whose extraction could not be read, with the error and the raw output."""

    def save(self, path: str | Path) -> None:
        from incanon.files import write_text_atomic

        write_text_atomic(path, self.model_dump_json(indent=1))

    @classmethod
    def load(cls, path: str | Path) -> "TKG":
        from incanon.reading import read_json

        p = Path(path).expanduser()
        data = read_json(p, "TKG file")
        try:
            return cls.model_validate(data)
        except ValueError as exc:
            raise InputError(f"not a TKG file: {str(exc).splitlines()[0]}", source=str(p)) from None


def quads_from_rows(rows: list[Any], script: DialScript, *, source: str = "") -> TKG:
    """A TKG from ``[head, relation, tail, session]`` rows (dates come from the sessions)."""
    resolve = name_resolver(script)
    quads: list[Quad] = []
    for i, row in enumerate(rows):
        if isinstance(row, dict):
            row = [row.get("head"), row.get("relation"), row.get("tail"), row.get("session")]
        if not isinstance(row, (list, tuple)) or len(row) != 4:
            raise InputError(f"TKG row {i}: expected [head, relation, tail, session], got {row!r}")
        head, relation, tail, session_id = (str(v) for v in row)
        rel = normalize_relation(relation)
        if rel is None:
            raise InputError(f"TKG row {i}: {relation!r} is not one of the 32 relations")
        session = script.session(session_id)
        quads.append(Quad(head=resolve(head), relation=rel, tail=resolve(tail), date=session.date, session=session.id))
    return TKG(work=script.work, source=source, quads=_dedupe(quads))


def name_resolver(script: DialScript, aliases: dict[str, str] | None = None):
    """Map a written name to the canonical character name (unknown names pass through)."""
    table = {norm(n): n for s in script.sessions for n in (*s.participants, *s.speakers)}
    table.update({norm(k): v for k, v in script.aliases.items()})
    table.update({norm(k): v for k, v in (aliases or {}).items()})
    return lambda name: table.get(norm(name), " ".join(name.split()))


def _dedupe(quads: list[Quad]) -> list[Quad]:
    seen: set[tuple[str, str, str, str]] = set()
    out = []
    for q in quads:
        key = (norm(q.head), q.relation, norm(q.tail), q.session)
        if key not in seen and norm(q.head) != norm(q.tail):
            seen.add(key)
            out.append(q)
    return out


# -- LLM extraction -------------------------------------------------------------------------

def parse_triples(text: str) -> list[list[str]]:
    """Triples from a model reply: ``{"triples": [...]}``, a bare list, or fenced JSON."""
    for value in json_values(text):
        if isinstance(value, dict):
            value = value.get("triples", value.get("facts"))
        if isinstance(value, list):
            return [_triple(v, i) for i, v in enumerate(value)]
    # A reply cut at the token limit (small models list facts until they run out) still holds
    # complete triples; keep those.
    salvaged = [[h, r, t] for h, r, t in _OBJECT.findall(text)]
    if salvaged:
        return salvaged
    raise ValueError("no JSON list of triples found")


_OBJECT = re.compile(r'\{\s*"head"\s*:\s*"([^"]*)"\s*,\s*"relation"\s*:\s*"([^"]*)"\s*,\s*"tail"\s*:\s*"([^"]*)"\s*\}')


def _triple(value: Any, i: int) -> list[str]:
    if isinstance(value, dict):
        value = [value.get("head"), value.get("relation"), value.get("tail")]
    if not isinstance(value, (list, tuple)) or len(value) != 3 or not all(isinstance(v, (str, int)) for v in value):
        raise ValueError(f"triple {i} is not [head, relation, tail]: {value!r}")
    return [str(v).strip() for v in value]


def _schema() -> dict[str, Any]:
    triple = {"type": "object", "properties": {
        "head": {"type": "string"}, "relation": {"type": "string", "enum": sorted(RELATIONS)},
        "tail": {"type": "string"}}, "required": ["head", "relation", "tail"], "additionalProperties": False}
    schema = {"type": "object", "properties": {"triples": {"type": "array", "items": triple}},
              "required": ["triples"], "additionalProperties": False}
    return {"type": "json_schema", "json_schema": {"name": "triples", "schema": schema, "strict": True}}


class TKGExtractor:
    """Extracts each session's triples with a helper model; caches them per session on disk."""

    def __init__(self, model: ChatModel, *, cache_path: str | Path | None = None,
                 prompts: PromptLibrary | None = None, max_tokens: int = 512) -> None:
        self.model = model
        self.prompts = prompts or default_library()
        self.cache_path = Path(cache_path).expanduser() if cache_path else None
        self.params = GenerationParams(max_tokens=max_tokens, response_format=_schema())
        self._cache: dict[str, list[list[str]]] = self._read_cache()
        self.calls = 0
        """Sessions sent to the model (cache hits are not counted)."""
        self.notes: list[dict[str, str]] = []
        """Problems that cost part of a session's triples (reported with the TKG's failures)."""

    def _read_cache(self) -> dict[str, list[list[str]]]:
        if self.cache_path is None or not self.cache_path.is_file():
            return {}
        try:
            return json.loads(self.cache_path.read_text(encoding="utf-8"))
        except ValueError:
            return {}  # a torn cache file only costs re-extraction

    def _write_cache(self) -> None:
        if self.cache_path is not None:
            self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.cache_path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self._cache, ensure_ascii=False), encoding="utf-8")
            tmp.replace(self.cache_path)

    def _prompt(self, script: DialScript, session: DialSession) -> str:
        return self.prompts.render(
            "dialsim_tkg", title=script.title, date=spoken(session.date), participants=list(session.participants),
            dialogue=session.text(), names=sorted({*session.participants}), relations=sorted(RELATIONS))

    def _key(self, prompt: str) -> str:
        text = f"{self.model.name}\n{fingerprint(self.prompts.source('dialsim_tkg')[0])}\n{prompt}"
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    async def session_triples(self, script: DialScript, session: DialSession) -> list[list[str]]:
        """The session's triples (from the cache when this prompt was already answered)."""
        prompt = self._prompt(script, session)
        key = self._key(prompt)
        if key in self._cache:
            return self._cache[key]
        self.calls += 1
        messages = [Message(role="user", content=prompt)]
        first = await self.model.generate(messages, self.params)
        if first.finish_reason == "length":
            self.notes.append({"session": session.id, "error": "the reply was cut at the token limit; "
                               "only its complete triples were kept", "raw": first.text[-500:]})
        try:
            triples = parse_triples(first.text)
        except ValueError as exc:
            repair = messages + [Message(role="assistant", content=first.text), Message(
                role="user", content=self.prompts.render("dialsim_tkg_repair", problem=str(exc),
                                                         relations=sorted(RELATIONS)))]
            second = await self.model.generate(repair, self.params)
            try:
                triples = parse_triples(second.text)
            except ValueError as exc2:
                raise ExtractionError(f"{session.id}: {exc2}", raw=f"{first.text}\n---\n{second.text}") from None
        self._cache[key] = triples
        self._write_cache()
        return triples

    async def extract(self, script: DialScript, aliases: dict[str, str] | None = None) -> TKG:
        """The whole script's TKG; sessions that fail are listed in ``failures``."""
        resolve = name_resolver(script, aliases)
        quads: list[Quad] = []
        failures: list[dict[str, str]] = []
        self.notes = []
        for session in script.sessions:
            try:
                triples = await self.session_triples(script, session)
            except ExtractionError as exc:
                failures.append({"session": session.id, "error": str(exc), "raw": exc.raw})
                continue
            for head, relation, tail in triples:
                rel = normalize_relation(relation)
                if rel is None or not head or not tail:
                    failures.append({"session": session.id, "error": f"dropped triple {[head, relation, tail]!r}: "
                                     "unknown relation or empty name", "raw": ""})
                    continue
                quads.append(Quad(head=resolve(head), relation=rel, tail=resolve(tail),
                                  date=session.date, session=session.id))
        return TKG(work=script.work, source=f"llm:{self.model.name}", quads=_dedupe(quads),
                   failures=self.notes + failures)


class ExtractionError(InputError):
    """A session's extraction output could not be read, even after a repair turn."""

    def __init__(self, message: str, raw: str) -> None:
        super().__init__(message)
        self.raw = raw
