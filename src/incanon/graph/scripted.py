"""A ground-truth-driven scripted model for the graph pipeline: offline tests, demos, benchmarks.

``oracle_model(world)`` answers every graph prompt as a careful annotator would: extraction lists
the names of the world's characters and entities *as the chunk writes them* (aliases and titles
included, so normalization has real work), with the sentence they appear in as description and
the ground-truth relations current at the chunk's position; same-entity questions are answered
from the ground truth; canonical names pick the ground-truth name; summaries keep the first
notes. It measures the pipeline (candidate recall, call counts), not a model's judgement.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence

import numpy as np

from incanon.canon.position import Position
from incanon.canon.world import World
from incanon.graph.names import fold
from incanon.models.scripted import ScriptedModel
from incanon.models.types import Message
from incanon.sentences import split_sentences

_TYPE = {"concept": "concept"}  # not a RoleRAG type: the parser drops it, with a note


class WorldOracle:
    """Names, types and relations of a ``World``, indexed for the scripted replies."""

    def __init__(self, world: World):
        self.world = world
        self.canonical: dict[str, str] = {}
        self.types: dict[str, str] = {}
        surfaces: list[tuple[str, str]] = []
        for c in world.characters:
            for n in [c.name, *c.aliases]:
                self.canonical[fold(n)] = c.name
                surfaces.append((n, "character"))
            self.types[c.name] = "character"
        for e in world.entities:
            for n in [e.name, *e.aliases]:
                self.canonical.setdefault(fold(n), e.name)
                surfaces.append((n, _TYPE.get(e.type, e.type)))
            self.types.setdefault(e.name, _TYPE.get(e.type, e.type))
        surfaces.sort(key=lambda s: -len(s[0]))  # longest first: "Tam Morrow" before "Morrow"
        self.surfaces = [(re.compile(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])"), n, t) for n, t in surfaces]

    def found(self, text: str) -> list[tuple[str, str, str]]:
        """(surface, type, sentence) of every name in ``text``, longest match winning a span."""
        taken = [False] * len(text)
        hits: dict[str, tuple[str, str, str]] = {}
        sentences: list[str] | None = None  # split once, only when a name is found
        for pattern, name, type_ in self.surfaces:
            for m in pattern.finditer(text):
                if any(taken[m.start():m.end()]):
                    continue
                for i in range(m.start(), m.end()):
                    taken[i] = True
                surface = m.group(0)
                if surface not in hits:
                    sentences = split_sentences(text) if sentences is None else sentences
                    sentence = next((s for s in sentences if surface in s), surface)
                    hits[surface] = (surface, type_, " ".join(sentence.split())[:300])
        return list(hits.values())

    def extraction(self, text: str, position: Position | None) -> dict[str, list[dict[str, object]]]:
        found = self.found(text)
        entities = [{"name": s, "type": t, "description": d} for s, t, d in found]
        by_canon: dict[str, str] = {}
        for s, _, _ in found:
            by_canon.setdefault(self.canonical[fold(s)], s)
        relations = []
        for r in self.world.relations:
            if r.source not in by_canon or r.target not in by_canon:
                continue
            if position is not None and r.valid_from and Position.parse(r.valid_from) > position:
                continue
            if position is not None and r.valid_to and Position.parse(r.valid_to) <= position:
                continue
            relations.append({"source": by_canon[r.source], "target": by_canon[r.target],
                              # Only what holds here: the ground truth's own description
                              # summarizes the whole story and would read as a spoiler.
                              "description": _relation_sentence(by_canon[r.source], r.type, by_canon[r.target]),
                              "strength": max(1, round(r.weight * 10))})
        return {"entities": entities, "relations": relations}

    def same(self, a: str, b: str) -> bool:
        ca, cb = self.canonical.get(fold(a)), self.canonical.get(fold(b))
        return ca is not None and ca == cb


def _between(text: str, start: str, end: str) -> str:
    i = text.find(start)
    if i < 0:
        return ""
    j = text.find(end, i + len(start))
    return text[i + len(start):j if j >= 0 else None]


def oracle_model(world: World, positions: dict[str, Position | None] | None = None,
                 name: str = "oracle") -> ScriptedModel:
    """A ``ScriptedModel`` answering the graph prompts from ``world``'s ground truth.

    ``positions`` maps a chunk's text to its story position (relations are only listed where
    they hold); without it every ground-truth relation between names in the chunk is listed."""
    oracle = WorldOracle(world)
    where = positions or {}

    def extract(messages: Sequence[Message]) -> str:
        text = _between(messages[0].content, 'Passage:\n"""\n', '\n"""').strip()
        if len(messages) > 1:  # gleaning: nothing was missed
            return json.dumps({"entities": [], "relations": []})
        return json.dumps(oracle.extraction(text, where.get(text)))

    def same(messages: Sequence[Message]) -> str:
        text = messages[-1].content
        a = _between(text, "Entry A: ", "\n").split(" (also called")[0]
        b = _between(text, "Entry B: ", "\n").split(" (also called")[0]
        verdict = oracle.same(a, b)
        return json.dumps({"reason": "the ground truth says so", "same": verdict})

    def canonical(messages: Sequence[Message]) -> str:
        names = re.findall(r"^- (.+)$", messages[-1].content.split("What the story says")[0], re.M)
        for n in names:
            if oracle.canonical.get(fold(n)) == n:
                return json.dumps({"name": n})
        return json.dumps({"name": names[0] if names else ""})

    def summary(messages: Sequence[Message]) -> str:
        notes = re.findall(r"^- (.+)$", messages[-1].content, re.M)
        return " ".join(notes[:2])

    return ScriptedModel(
        rules=[
            (r"Some entities or relations of the passage may be missing", extract),
            (r"list the entities and relations it mentions", extract),
            (r"Are A and B one and the same", same),
            (r"Which one name should the knowledge graph use", canonical),
            (r"Write one coherent description", summary),
        ],
        name=name,
    )


class HashEmbedder:
    """An offline embedder for tests and benchmarks: character trigrams of the words of the
    *name* part of ``"name: description"`` texts, hashed into 256 dimensions. Names that share
    letters score high, unrelated names near zero; no model file is read."""

    name = "hash256"
    dim = 256

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: Sequence[str], kind: str = "passage") -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.split(":", 1)[0].lower()):
                padded = f"#{word}#"
                for j in range(len(padded) - 2):
                    out[i, int(hashlib.md5(padded[j:j + 3].encode()).hexdigest()[:8], 16) % self.dim] += 1.0
            n = np.linalg.norm(out[i])
            if n:
                out[i] /= n
        return out


def _relation_sentence(source: str, kind: str, target: str) -> str:
    """``A is mentor to B.``; a relation type that ends in its own preposition (``member of``)
    takes none more."""
    last = kind.split()[-1] if kind.split() else ""
    joiner = "" if last in ("of", "in", "to", "with", "for", "from", "at", "by", "on") else " to"
    return f"{source} is {kind}{joiner} {target}."
