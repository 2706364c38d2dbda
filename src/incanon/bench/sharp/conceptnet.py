"""Streaming reader for ConceptNet assertion files.

ConceptNet ships its graph as one TAB-separated line per edge (``assertions.csv``, ~10 GB
unpacked, usually gzipped) with five columns::

    /a/[/r/IsA/,/c/en/dog/n/,/c/en/animal/]  /r/IsA  /c/en/dog/n  /c/en/animal  {"weight": 2.0, ...}

The reader never holds more than one line: it opens the file (plain or gzip, told apart by the
magic bytes, not the name), decodes line by line and yields ``Edge`` objects. Cheap filters
(relation, language) run on the raw columns before the JSON info is parsed, because parsing JSON
is what costs time on a full dump; a line rejected by a cheap filter is therefore not validated
any further.
"""

from __future__ import annotations

import gzip
import os
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import IO, Any

from incanon.bench.sharp.surface import recase
from incanon.errors import InputError
from incanon.reading import check_file, parse_json

_GZIP_MAGIC = b"\x1f\x8b"
_COLUMNS = "assertion URI, relation URI, start URI, end URI, JSON info"


@dataclass(frozen=True, slots=True)
class Concept:
    """A ConceptNet node such as ``/c/en/ice_cream/n``: language, readable text, optional POS."""

    uri: str
    lang: str
    text: str
    """The lemma with underscores turned into spaces (``ice cream``)."""
    pos: str | None = None
    """Part of speech letter when the URI has one: n, v, a, s (satellite adjective) or r."""
    sense: str | None = None
    """Anything after the POS (``wn/food``), kept verbatim."""

    def with_text(self, text: str) -> "Concept":
        """The same kind of concept with other words (used to build counterfactual variants)."""
        lemma = text.strip().replace(" ", "_")
        uri = f"/c/{self.lang}/{lemma}" + (f"/{self.pos}" if self.pos else "")
        return Concept(uri=uri, lang=self.lang, text=text.strip(), pos=self.pos)


def parse_concept_uri(uri: str) -> Concept:
    """Parse ``/c/<lang>/<lemma>[/<pos>[/<sense...>]]``; raise ``ValueError`` if it is not one."""
    parts = uri.rstrip("/").split("/")
    if len(parts) < 4 or parts[0] != "" or parts[1] != "c" or not parts[2] or not parts[3]:
        raise ValueError(f"not a concept URI (expected /c/<lang>/<term>[/<pos>]): {uri!r}")
    pos = parts[4] if len(parts) > 4 and parts[4] else None
    sense = "/".join(parts[5:]) or None
    text = " ".join(parts[3].replace("_", " ").split())
    return Concept(uri=uri, lang=parts[2], text=text, pos=pos, sense=sense)


def relation_name(relation: str) -> str:
    """``/r/IsA`` → ``IsA``; a bare name is returned unchanged (``/r/dbpedia/genre`` → ``dbpedia/genre``)."""
    rel = relation.strip()
    if rel.startswith("/r/"):
        rel = rel[3:]
    return rel.rstrip("/")


@dataclass(frozen=True, slots=True)
class Edge:
    """One ConceptNet assertion: ``head --relation--> tail`` with its weight and provenance."""

    relation: str
    """Short relation name (``IsA``), without the ``/r/`` prefix."""
    head: Concept
    tail: Concept
    weight: float = 1.0
    uri: str = ""
    """The assertion URI (``/a/[/r/IsA/,/c/en/dog/n/,/c/en/animal/]``)."""
    surface_text: str | None = None
    dataset: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """(relation, head text, tail text): what makes two edges say the same thing."""
        return (self.relation, self.head.text, self.tail.text)

    @property
    def lang(self) -> str:
        """The head's language (the tail's too, once a language filter has run)."""
        return self.head.lang


@dataclass
class ReadStats:
    """What a reader saw: lines read, edges yielded and why the others were dropped."""

    lines: int = 0
    edges: int = 0
    bad: int = 0
    """Malformed lines skipped (only with ``skip_bad=True``)."""
    skipped: Counter[str] = field(default_factory=Counter)
    """Filtered-out lines by reason: language, relation, weight, not_concept, blank."""
    bad_examples: list[str] = field(default_factory=list)
    """The first few malformed lines, as 'line N: what was wrong'."""


_MAX_EXAMPLES = 20


class AssertionReader(Iterator[Edge]):
    """Iterates the edges of one assertion file; ``stats`` fills in as it goes.

    Stops (and closes the file) after ``max_edges`` yielded edges, so reading the first
    thousand edges of a full dump costs only those lines.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        langs: str | Iterable[str] | None = None,
        relations: str | Iterable[str] | None = None,
        min_weight: float | None = None,
        max_edges: int | None = None,
        skip_bad: bool = False,
    ):
        # A folder, a FIFO (which would block), a symlink loop or a missing path: one line.
        self.path = check_file(path, "ConceptNet assertion file")
        self.langs = _as_set(langs)
        self.relations = {relation_name(r) for r in _as_set(relations)} or None
        self.min_weight = min_weight
        self.max_edges = max_edges
        self.skip_bad = skip_bad
        self.stats = ReadStats()
        self.gzipped = False
        """True once the file is open and turned out to be gzip."""
        self._prefixes = tuple(f"/c/{lang}/" for lang in sorted(self.langs)) if self.langs else None
        self._gen = self._generate()

    def __next__(self) -> Edge:
        return next(self._gen)

    def close(self) -> None:
        """Stop early and close the file."""
        self._gen.close()

    # -- internals ---------------------------------------------------------------------------
    def _open(self) -> IO[bytes]:
        with open(self.path, "rb") as probe:
            self.gzipped = probe.read(2) == _GZIP_MAGIC
        return gzip.open(self.path, "rb") if self.gzipped else open(self.path, "rb")

    def _generate(self) -> Iterator[Edge]:
        if self.max_edges is not None and self.max_edges <= 0:
            return
        with self._open() as stream:
            number = 0
            lines = iter(stream)
            while True:
                try:
                    raw = next(lines)
                except StopIteration:
                    if self.stats.lines == self.stats.skipped["blank"]:
                        # An empty file is a mistake (a failed download, the wrong path), not a graph.
                        raise InputError("the ConceptNet assertion file is empty (no edge lines)",
                                         source=str(self.path)) from None
                    return
                except (EOFError, OSError, zlib.error) as exc:
                    what = "the gzip stream is damaged or truncated" if self.gzipped else "read error"
                    raise InputError(f"{what} ({exc})", source=str(self.path),
                                     where=f"after line {number}") from None
                number += 1
                self.stats.lines += 1
                try:
                    edge = self._parse(raw)
                except ValueError as exc:
                    if not self.skip_bad:
                        raise InputError(str(exc), source=str(self.path), where=f"line {number}") from None
                    self.stats.bad += 1
                    if len(self.stats.bad_examples) < _MAX_EXAMPLES:
                        self.stats.bad_examples.append(f"line {number}: {exc}")
                    continue
                if edge is None:
                    continue
                self.stats.edges += 1
                yield edge
                if self.max_edges is not None and self.stats.edges >= self.max_edges:
                    return

    def _skip(self, reason: str) -> None:
        self.stats.skipped[reason] += 1

    def _parse(self, raw: bytes) -> Edge | None:
        """One line → Edge, None when filtered out; ValueError says what was expected."""
        try:
            line = raw.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError as exc:
            raise ValueError(f"not valid UTF-8 text ({exc.reason} at byte {exc.start})") from None
        if "\x00" in line:
            raise ValueError("holds a NUL byte; expected UTF-8 text (a UTF-16 or binary file?)")
        if not line.strip():
            self._skip("blank")
            return None
        cols = line.split("\t")
        if len(cols) != 5:
            raise ValueError(f"expected 5 tab-separated columns ({_COLUMNS}), found {len(cols)}")
        assertion, rel_uri, start, end, info_text = cols
        if not assertion.startswith("/a/"):
            raise ValueError(f"expected an assertion URI starting with /a/ in column 1, found {assertion[:60]!r}")
        if not rel_uri.startswith("/r/") or len(rel_uri) < 4:
            raise ValueError(f"expected a relation URI like /r/IsA in column 2, found {rel_uri[:60]!r}")
        relation = relation_name(rel_uri)
        if self.relations is not None and relation not in self.relations:
            self._skip("relation")
            return None
        if self._prefixes is not None and not (
            start.startswith(self._prefixes) and end.startswith(self._prefixes)
        ):
            self._skip("language")
            return None
        info = _parse_info(info_text)
        weight = info["weight"]
        if self.min_weight is not None and weight < self.min_weight:
            self._skip("weight")
            return None
        if not (start.startswith("/c/") and end.startswith("/c/")):
            # ExternalURL and similar edges point outside the concept space.
            self._skip("not_concept")
            return None
        head = recase(parse_concept_uri(start), info, "surfaceStart")
        tail = recase(parse_concept_uri(end), info, "surfaceEnd")
        surface = info.get("surfaceText")
        dataset = info.get("dataset")
        return Edge(
            relation=relation, head=head, tail=tail, weight=weight, uri=assertion,
            surface_text=surface if isinstance(surface, str) else None,
            dataset=dataset if isinstance(dataset, str) else None,
        )


def _parse_info(text: str) -> dict[str, Any]:
    try:
        # The shared strict reader: no NaN / Infinity weights, no 10,000-digit integers.
        info = parse_json(text, "column 5")
    except InputError as exc:
        raise ValueError(f"expected a JSON object in column 5 ({str(exc).split(': ', 1)[-1]})") from None
    if not isinstance(info, dict):
        raise ValueError(f"expected a JSON object in column 5, found {type(info).__name__}")
    weight = info.get("weight")
    if isinstance(weight, bool) or not isinstance(weight, (int, float)):
        raise ValueError("expected a numeric \"weight\" in the JSON info of column 5")
    info["weight"] = float(weight)
    return info


def _as_set(value: str | Iterable[str] | None) -> set[str]:
    if value is None:
        return set()
    if isinstance(value, str):
        return {v.strip() for v in value.split(",") if v.strip()}
    return {v.strip() for v in value if v.strip()}


def read_assertions(
    path: str | os.PathLike[str],
    *,
    langs: str | Iterable[str] | None = None,
    relations: str | Iterable[str] | None = None,
    min_weight: float | None = None,
    max_edges: int | None = None,
    skip_bad: bool = False,
) -> AssertionReader:
    """Stream the edges of a ConceptNet assertion file (plain or gzip) at a local path.

    Args:
        path: the file; gzip is detected from its first two bytes.
        langs: keep edges whose start *and* end are in one of these languages (``"en"``,
            ``["en", "fr"]`` or ``"en,fr"``); None keeps all.
        relations: keep only these relations (``"IsA"`` or ``"/r/IsA"``); None keeps all.
        min_weight: drop edges whose weight is below this.
        max_edges: stop after yielding this many edges.
        skip_bad: skip malformed lines and count them in ``reader.stats`` instead of raising
            ``InputError`` (which names the file, the line number and what was expected).

    Returns an iterator of ``Edge``; its ``stats`` attribute counts lines, edges and skips.
    """
    return AssertionReader(
        path, langs=langs, relations=relations, min_weight=min_weight,
        max_edges=max_edges, skip_bad=skip_bad,
    )


def sample_assertions_path() -> Path:
    """The small ConceptNet-format file shipped with incanon (original, hand-written edges)."""
    resource = resources.files("incanon").joinpath("data", "conceptnet", "sample_assertions.csv")
    return Path(str(resource))
