"""Affection levels: how much the main character likes a role, high or low.

The paper maps relationship types from Wikipedia's character-relation graphs to affection levels
with HPD's rules. incanon resolves the main character's affection toward a partner at a story
position, first match wins:

1. an entry of a relations file for (main character, partner): its ``affection``, or its
   ``type`` through the mapping; then the pair's own score in the user's HPD files
   (:mod:`incanon.bench.sharp.hpd`), when the main character is HPD's Harry;
2. the canon store's relation main → partner that holds at the position (valid_from <= position
   < valid_to); if none holds any more, the most recent one that did (a mentor who died is still
   remembered fondly). Its ``affection`` annotation is the ground truth; without one (or with
   ``use_canon_affection=False``) its ``type`` goes through the mapping;
3. the same for the reverse relation partner → main (marked ``direction="reverse"``);
4. otherwise unknown (None): the role still gets claims but counts in no CRF.

The mapping works on relation type text: an exact entry first ("estranged friend"), then the
words of the type, where a low word beats a high one ("estranged friend", "former ally", "ex-wife"
are low; "old friend" is high).
"""

from __future__ import annotations

import csv
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Literal, Mapping

from incanon.bench.sharp.affection_rules import default_table
from incanon.bench.sharp.hpd import HPDAffection
from incanon.canon.position import Position
from incanon.canon.records import RelationRecord
from incanon.errors import InputError
from incanon.reading import parse_json, read_text

Affection = Literal["high", "low"]
AFFECTIONS: tuple[Affection, ...] = ("high", "low")



def default_mapping() -> dict[str, Affection]:
    """The default relationship word → affection table, English and Chinese, from HPD's
    categories and sign rule (see :mod:`incanon.bench.sharp.affection_rules` for the source):
    family, friends, lovers, teammates, teachers, masters, disciples → high; enemies, rivals,
    opponents, competitors → low; words that end a bond (estranged, former, ex-, 前妻) → low."""
    return dict(default_table())  # type: ignore[arg-type]


def _is_cjk(text: str) -> bool:
    return any("\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" for ch in text)


def _norm(text: str) -> str:
    """Letters of any script, case-folded, as space-separated runs ('Ex-Wife' → 'ex wife',
    '好朋友' → '好朋友')."""
    return " ".join(re.findall(r"[^\W\d_]+", unicodedata.normalize("NFKC", str(text)).casefold()))


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def level(value: Any, where: str = "") -> Affection:
    """``high`` / ``low`` (any case), or an HPD affection score from -10 to 10 (above 0 is
    high, below 0 low), as an :data:`Affection`; anything else is an InputError."""
    if isinstance(value, str) and re.fullmatch(r"\s*[-+]?\d+(\.\d+)?\s*", value):
        value = float(value)  # a CSV cell "7" or "-3": an HPD score
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value != value or not -10 <= value <= 10 or value == 0:
            raise InputError(f"an HPD affection score must be from -10 to 10 and not 0, got {value!r}",
                             where=where or None)
        return "high" if value > 0 else "low"
    text = str(value).strip().lower()
    if text not in AFFECTIONS:
        raise InputError(f"affection must be high or low (or an HPD score from -10 to 10), got {value!r}",
                         where=where or None)
    return text  # type: ignore[return-value]


@dataclass
class AffectionMap:
    """Relation type → affection level (see the module docstring for the matching rules)."""

    mapping: dict[str, Affection] = field(default_factory=default_mapping)

    def __post_init__(self) -> None:
        normed: dict[str, Affection] = {}
        for key, value in self.mapping.items():
            norm = _norm(key)
            if not norm:
                raise InputError(f"mapping key {key!r} has no letters in any script")
            normed[norm] = level(value, f"mapping {key!r}")
        self.mapping = normed
        # Chinese is written without spaces: its keys are looked for inside a type ("好朋友").
        self._cjk = sorted((k for k in normed if _is_cjk(k)), key=len, reverse=True)
        self._phrases = [k for k in normed if " " in k and not _is_cjk(k)]

    def of(self, relation_type: str) -> Affection | None:
        """The affection level of a relation type, or None when no rule covers it."""
        norm = _norm(relation_type)
        if not norm:
            return None
        if norm in self.mapping:
            return self.mapping[norm]
        levels: set[Affection] = set()
        padded = f" {norm} "
        levels.update(self.mapping[k] for k in self._phrases if f" {k} " in padded)
        for word in norm.split():
            if _is_cjk(word):
                levels.update(self.mapping[k] for k in self._cjk if k in word)
            else:
                hit = self.mapping.get(word) or self.mapping.get(_singular(word))
                if hit:
                    levels.add(hit)
        if "low" in levels:
            return "low"
        return "high" if "high" in levels else None


@dataclass(frozen=True)
class RelationEntry:
    """One row of a relations file: the main character's relation to a role."""

    source: str
    target: str
    type: str = ""
    affection: Affection | None = None


@dataclass
class RelationsFile:
    """A relations file: entries per (source, target) and mapping rules over the defaults."""

    entries: list[RelationEntry] = field(default_factory=list)
    mapping: dict[str, Affection] = field(default_factory=dict)
    replace_defaults: bool = False

    def affection_map(self) -> AffectionMap:
        """The mapping this file asks for (its rules over, or instead of, the defaults)."""
        base: dict[str, Affection] = {} if self.replace_defaults else default_mapping()
        return AffectionMap({**base, **self.mapping})


def _entry(row: Mapping[str, Any], where: str, source: str) -> RelationEntry:
    try:
        src, tgt = str(row["source"]).strip(), str(row["target"]).strip()
    except KeyError as exc:
        raise InputError(f"a relation needs 'source' and 'target' (missing {exc.args[0]!r})",
                         source=source, where=where) from None
    kind = str(row.get("type") or "").strip()
    raw = row.get("affection")
    try:
        aff = level(raw) if raw not in (None, "") else None
    except InputError as exc:
        raise InputError(str(exc), source=source, where=where) from None
    if not src or not tgt or (not kind and aff is None):
        raise InputError("a relation needs a source, a target and a type or an affection",
                         source=source, where=where)
    return RelationEntry(src, tgt, kind, aff)


def load_relations(path: str | Path) -> RelationsFile:
    """Read a relations file.

    JSON: ``{"mapping": {"mentor": "high", ...}, "replace_defaults": false,
    "relations": [{"source": "Wren Callow", "target": "Dace Morrow", "type": "rival",
    "affection": "low"}, ...]}`` (every part optional; a bare list is the relations).
    CSV or TSV (by extension): a header with ``source,target,type,affection`` (type or affection
    may be empty, not both).
    """
    path = Path(path).expanduser()
    text = read_text(path, "relations file")
    if path.suffix.lower() in (".csv", ".tsv"):
        reader = csv.DictReader(text.splitlines(), delimiter="\t" if path.suffix.lower() == ".tsv" else ",")
        if not reader.fieldnames or not {"source", "target"} <= {f.strip() for f in reader.fieldnames}:
            raise InputError("expected a header with source, target, type, affection", source=str(path), where="line 1")
        rows = [{(k or "").strip(): v for k, v in row.items()} for row in reader]
        return RelationsFile([_entry(r, f"line {i + 2}", str(path)) for i, r in enumerate(rows)])
    data = parse_json(text, str(path))
    if isinstance(data, list):
        data = {"relations": data}
    if not isinstance(data, dict):
        raise InputError("expected a JSON object with 'relations' and/or 'mapping'", source=str(path))
    mapping = data.get("mapping") or {}
    if not isinstance(mapping, dict):
        raise InputError("'mapping' must be an object of relation type → high/low", source=str(path))
    try:
        rules = {str(k): level(v, f"mapping {k!r}") for k, v in mapping.items()}
        AffectionMap(dict(rules))  # a key with no letters ("123") would silently never match
    except InputError as exc:
        raise InputError(str(exc), source=str(path)) from None
    relations = data.get("relations") or []
    if not isinstance(relations, list) or not all(isinstance(r, dict) for r in relations):
        raise InputError("'relations' must be a list of objects", source=str(path))
    entries = [_entry(r, f"relation {i + 1}", str(path)) for i, r in enumerate(relations)]
    return RelationsFile(entries, rules, bool(data.get("replace_defaults", False)))


@dataclass(frozen=True)
class AffectionFinding:
    """The main character's affection toward one role, and where it came from."""

    affection: Affection | None
    relation: str = ""
    """The relation type it was read from ("" when none)."""
    source: Literal["file", "hpd", "canon", "mapping", "none"] = "none"
    """file: a relations file entry; hpd: the pair's score in the user's HPD files; canon: the
    canon's annotation; mapping: a type mapped."""
    direction: Literal["forward", "reverse", ""] = ""


def _holds(rel: RelationRecord, at: Position | None) -> bool:
    if at is None:
        return rel.valid_to is None
    return (rel.valid_from is None or rel.valid_from <= at) and (rel.valid_to is None or at < rel.valid_to)


def current_relation(relations: Iterable[RelationRecord], at: Position | None) -> RelationRecord | None:
    """The relation that holds at ``at`` (None: at the end of the story); if none holds, the
    most recent one that began by then; among several, the heaviest."""
    started = [r for r in relations if at is None or r.valid_from is None or r.valid_from <= at]
    holding = [r for r in started if _holds(r, at)]
    if holding:
        return max(holding, key=lambda r: (r.valid_from.key if r.valid_from else -1, r.weight))
    if started:
        return max(started, key=lambda r: (r.valid_to.key if r.valid_to else -1, r.weight))
    return None


@dataclass
class AffectionResolver:
    """Resolves affection levels from a relations file, the canon's relations and a mapping."""

    relations: list[RelationRecord] = field(default_factory=list)
    mapping: AffectionMap = field(default_factory=AffectionMap)
    overrides: list[RelationEntry] = field(default_factory=list)
    use_canon_affection: bool = True
    """Take the canon's affection annotation (the ground truth) before the mapping."""
    hpd: HPDAffection | None = None
    """Pair scores from the user's HPD files: used before the canon and the mapping."""

    def _from_relation(self, rel: RelationRecord, direction: Literal["forward", "reverse"]) -> AffectionFinding:
        if self.use_canon_affection and rel.affection in AFFECTIONS:
            return AffectionFinding(rel.affection, rel.type, "canon", direction)  # type: ignore[arg-type]
        return AffectionFinding(self.mapping.of(rel.type), rel.type, "mapping", direction)

    def resolve(self, main: str, role: str, at: Position | None = None) -> AffectionFinding:
        """The affection of ``main`` toward ``role`` at ``at`` (None: the end of the story)."""
        for entry in self.overrides:
            if entry.source.lower() == main.lower() and entry.target.lower() == role.lower():
                aff = entry.affection or self.mapping.of(entry.type)
                return AffectionFinding(aff, entry.type, "file", "forward")
        if self.hpd is not None and self.hpd.applies_to(main):
            pair = self.hpd.score(role)
            if pair is not None:
                # A score of 0 is HPD's "neither": the pair has a score, so the word table is not
                # asked; the role has no level (it counts in no CRF).
                aff = None if pair.score == 0 else ("high" if pair.score > 0 else "low")
                return AffectionFinding(aff, f"HPD {pair.score:+g} ({pair.dialogue})", "hpd",  # type: ignore[arg-type]
                                        pair.direction)  # type: ignore[arg-type]
        found: list[AffectionFinding] = []
        for a, b, direction in ((main, role, "forward"), (role, main, "reverse")):
            rel = current_relation([r for r in self.relations if r.source == a and r.target == b], at)
            if rel is not None:
                found.append(self._from_relation(rel, direction))  # type: ignore[arg-type]
        # A forward relation with no level ("commander") leaves room for the reverse one.
        return next((f for f in found if f.affection is not None), found[0] if found else AffectionFinding(None))
