"""Knowledge at the grain of perception: a chunk of story text is a run of *units*, each with a
mode and an audience, and a character knows of a chunk only the units it perceived.

A character present in a scene hears what is said aloud and sees what is done in view; it does
not perceive the narrator's thoughts, feelings, recollections or summaries. So each chunk is cut
into units:

* ``speech``: said aloud; heard by those present (``audience="present"``).
* ``action``: done in view; seen by those present.
* ``thought``: a named character's unspoken thought or feeling; that character's alone.
* ``narration``: the narrator's telling. In a first-person work (``narrator`` set) it is the
  narrator's alone, since it is the narrator's recollection; in a third-person work it counts as
  what those present could see (a documented limit: a third-person narrator's report of one
  character's thoughts needs a ``thought`` unit to be kept private).
* ``document``: a letter or other writing; known to its writer (``by``) and to its readers
  (``known_by``) from when they read it (``from``).

A world file may state units (``Chunk.units``); whatever text of a chunk no unit covers is cut by
:func:`default_units`: quoted speech is heard by those present, the rest is narration (so, in a
first-person work, the narrator's alone: the safe default). Units are stored per chunk as JSON
(``chunks.units``) with character offsets, and the one decision, :func:`perceives`, is applied by
``CharacterKnowledge.chunk_view``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Mode = Literal["speech", "action", "thought", "narration", "document"]
Audience = Literal["present", "private", "everyone"]

MODES: tuple[str, ...] = ("speech", "action", "thought", "narration", "document")
AUDIENCES: tuple[str, ...] = ("present", "private", "everyone")

GAP = " … "
"""Put between two perceived pieces of a chunk that are not next to each other in the text."""


@dataclass(frozen=True, slots=True)
class Unit:
    """One perceived unit of a chunk: ``text[start:end]`` of the chunk."""

    start: int
    end: int
    mode: str
    audience: str
    by: str | None = None
    """Who says, does, thinks or writes it (canonical character name); the narrator for narration."""
    known_by: tuple[str, ...] = field(default_factory=tuple)
    """Characters who perceive it besides the audience (a letter's readers, an eavesdropper)."""
    from_key: int | None = None
    """Position key from which ``known_by`` perceive it (a letter: when it is read)."""
    given: bool = False
    """Stated by the world file (exported again); False: cut by the default rule."""

    def to_json(self) -> dict[str, Any]:
        """The stored form (``chunks.units``)."""
        out: dict[str, Any] = {"s": self.start, "e": self.end, "mode": self.mode, "to": self.audience}
        if self.by is not None:
            out["by"] = self.by
        if self.known_by:
            out["known_by"] = list(self.known_by)
        if self.from_key is not None:
            out["from"] = self.from_key
        if self.given:
            out["given"] = True
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Unit":
        """A stored unit."""
        return cls(int(d["s"]), int(d["e"]), str(d["mode"]), str(d["to"]), d.get("by"),
                   tuple(d.get("known_by") or ()), d.get("from"), bool(d.get("given", False)))


def default_audience(mode: str, narrator: str | None) -> str:
    """Who perceives a unit of ``mode`` when the world says nothing more."""
    if mode in ("speech", "action"):
        return "present"
    if mode == "narration":
        return "private" if narrator else "present"
    return "private"  # thought, document


def perceives(unit: Unit, name: str, at_key: int, witnessed_scene: bool) -> bool:
    """The one decision: does the character ``name`` at position ``at_key`` perceive ``unit``
    of a chunk at or before ``at_key``? ``witnessed_scene``: the chunk is tied to no scene or to
    one the character was present at."""
    if unit.by == name and (unit.mode != "narration" or witnessed_scene):
        # One's own speech, deeds, thoughts and writings. A narrator's telling of a scene it
        # was not at is what it learned later, never what it knew then.
        return True
    if name in unit.known_by and (unit.from_key is None or unit.from_key <= at_key):
        return True
    if unit.audience == "everyone":
        return True
    return unit.audience == "present" and witnessed_scene


def view(text: str, units: Sequence[Unit], name: str, at_key: int, witnessed_scene: bool) -> str:
    """The part of ``text`` the character perceived, in order; pieces that are not next to each
    other are joined by ``GAP``. "" when it perceived nothing."""
    pieces: list[str] = []
    last_end: int | None = None
    missed = False
    for u in units:
        if not perceives(u, name, at_key, witnessed_scene):
            missed = True
            continue
        piece = text[u.start:u.end]
        if not piece.strip():
            continue
        if last_end is not None:
            between = text[last_end:u.start]
            pieces.append(between if not between.strip() else GAP)
        pieces.append(piece)
        last_end = u.end
    if not missed:
        return text if pieces else ""  # all of it: the text itself, byte for byte
    return "".join(pieces).strip()


# -- the default cut: quoted speech and the rest ------------------------------------------------
# Opening mark -> closing marks. Straight and single quotes are handled apart (apostrophes).
_PAIRS = {"“": "”", "«": "»", "„": "“”", "「": "」", "『": "』", "‹": "›", "»": "«"}
_DASH_LINE = re.compile(r"(?m)^[ \t]*[—–―][ \t]*\S[^\n]*")
_WORD = re.compile(r"\w")


def _is_open_single(text: str, i: int) -> bool:
    # An opening single quote starts a word after a space, a line start or an opening bracket;
    # "don’t" and "the boys’ room" are apostrophes, never quotes.
    before = text[i - 1] if i > 0 else "\n"
    after = text[i + 1] if i + 1 < len(text) else ""
    return (before.isspace() or before in "([—–-\"“") and bool(after) and not after.isspace()


def _is_close_single(text: str, i: int) -> bool:
    after = text[i + 1] if i + 1 < len(text) else ""
    before = text[i - 1] if i > 0 else ""
    return bool(before) and not before.isspace() and (not after or not _WORD.match(after))


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """Spans of quoted speech in ``text`` (quote marks included), in order. A quote left open
    runs to the end of its paragraph (the convention for speech that goes on into the next
    paragraph, which opens with a quote mark again); a line opened by a dash is speech too (the
    Dutch, French and Russian convention)."""
    spans: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        close: str | None = None
        if ch in _PAIRS:
            close = _PAIRS[ch]
        elif ch == '"':
            close = '"'
        elif ch in "‘'" and _is_open_single(text, i):
            close = "’'"
        if close is None:
            i += 1
            continue
        j = i + 1
        end = None
        while j < n:
            c = text[j]
            if c == "\n" and j + 1 < n and text[j + 1] == "\n":
                break  # paragraph end: an open quote stops here
            if c in close and (close not in ("’'",) or _is_close_single(text, j)):
                end = j + 1
                break
            j += 1
        stop = end if end is not None else j
        if stop > i + 1:
            spans.append((i, stop))
        i = stop if stop > i else i + 1
    for m in _DASH_LINE.finditer(text):
        if not any(s <= m.start() < e for s, e in spans):
            spans.append((m.start(), m.end()))
    spans.sort()
    return spans


def default_units(text: str, narrator: str | None, start: int = 0, end: int | None = None) -> list[Unit]:
    """``text[start:end]`` cut by the default rule: quoted speech (heard by those present) and
    narration between (the narrator's alone in a first-person work, else seen by those present).
    Stretches of only white space make no unit."""
    stop = len(text) if end is None else end
    part = text[start:stop]
    units: list[Unit] = []
    pos = 0
    narration = default_audience("narration", narrator)
    for s, e in quoted_spans(part):
        if s > pos and part[pos:s].strip():
            units.append(Unit(start + pos, start + s, "narration", narration, narrator))
        units.append(Unit(start + s, start + e, "speech", "present"))
        pos = e
    if pos < len(part) and part[pos:].strip():
        units.append(Unit(start + pos, start + len(part), "narration", narration, narrator))
    return units


@dataclass(frozen=True)
class StatedUnit:
    """A unit as a world file states it, before it is placed in its chunk's text."""

    text: str
    mode: str
    audience: str | None = None
    by: str | None = None
    known_by: tuple[str, ...] = ()
    from_key: int | None = None


def place_units(text: str, stated: Iterable[StatedUnit], narrator: str | None) -> tuple[list[Unit], int | None]:
    """Place stated units in ``text`` (each found after the previous one) and cut what lies
    between them by the default rule. Returns the units in text order and, when a stated unit's
    text is not found in order, its index (the caller names it in an error)."""
    units: list[Unit] = []
    pos = 0
    for i, st in enumerate(stated):
        at = text.find(st.text, pos) if st.text else -1
        if at < 0:
            return units, i
        units += default_units(text, narrator, pos, at)
        audience = st.audience or default_audience(st.mode, narrator)
        by = st.by if st.by is not None else (narrator if st.mode == "narration" else None)
        units.append(Unit(at, at + len(st.text), st.mode, audience, by, tuple(st.known_by), st.from_key, True))
        pos = at + len(st.text)
    units += default_units(text, narrator, pos, len(text))
    return units, None


# -- first person -------------------------------------------------------------------------------
_FIRST = re.compile(r"\b(I|me|my|mine|myself|ik|mij|mijn|ich|mich|mein|meine|je|moi|mon|ma|yo|mi|me)\b")
_THIRD = re.compile(r"\b(he|she|him|her|his|hij|zij|hem|haar|er|sie|ihn|ihr|il|elle|lui|él|ella|su)\b", re.I)
_CJK_FIRST = re.compile(r"[我吾余]")
_CJK_THIRD = re.compile(r"[他她]")


def narration_person(texts: Iterable[str]) -> Literal["first", "third"]:
    """Whether a book's narration (the text outside quotes) is told in the first person: "I"
    outside dialogue at least a third as often as he/she. A heuristic for books with no stated
    narrator; ``canon build`` asks the helper, a world file states ``work.narrator``."""
    first = third = 0
    for text in texts:
        outside, pos = [], 0
        for s, e in quoted_spans(text):
            outside.append(text[pos:s])
            pos = e
        outside.append(text[pos:])
        narration = " ".join(outside)
        first += len(_FIRST.findall(narration)) + len(_CJK_FIRST.findall(narration))
        third += len(_THIRD.findall(narration)) + len(_CJK_THIRD.findall(narration))
    return "first" if first and first * 3 >= third else "third"


def narration_only(text: str) -> str:
    """``text`` without its quoted speech (what the narrator says in their own voice)."""
    out, pos = [], 0
    for s, e in quoted_spans(text):
        out.append(text[pos:s])
        pos = e
    out.append(text[pos:])
    return " ".join(out)


def likely_narrator(texts: Iterable[str], present: Iterable[Iterable[str]], share: float = 0.5,
                    names: dict[str, Sequence[str]] | None = None) -> str | None:
    """The first-person narrator of a book with no stated narrator: when the narration is told
    in the first person, among the characters present in at least ``share`` of the scenes
    (``present``: each scene's participants) and nearly as often as the most present, the one
    the narration names least (a narrator says "I", and others name the narrator in speech);
    ``names``: each character's names (default: the name itself). None for third person, or
    when no one is there throughout."""
    texts = list(texts)
    if narration_person(texts) != "first":
        return None
    scenes = [list(dict.fromkeys(p)) for p in present]
    counts = Counter(n for p in scenes for n in p)
    if not counts:
        return None
    top = counts.most_common(1)[0][1]
    listed = len([p for p in scenes if p])
    candidates = [n for n, k in counts.items() if k >= share * listed and k >= 0.8 * top]
    if not candidates:
        return None
    told = " ".join(narration_only(t) for t in texts).casefold()

    def named(who: str) -> int:
        forms = {f.casefold() for f in (names or {}).get(who, (who,)) if f.strip()}
        return sum(len(re.findall(rf"(?<!\w){re.escape(f)}(?!\w)", told)) for f in forms)

    return min(candidates, key=lambda n: (named(n) / counts[n], -counts[n]))


__all__ = [
    "AUDIENCES", "GAP", "MODES", "Audience", "Mode", "StatedUnit", "Unit", "default_audience", "likely_narrator",
    "default_units", "narration_person", "perceives", "place_units", "quoted_spans", "view",
]
