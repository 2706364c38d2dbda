"""The characters of a built book: names unified, aliases dated by first use, the main cast chosen.

The helper sees every name the scene and participant steps used, with how many scenes each is
in, and groups the names of one character (``canon_characters``). Names it leaves out join the
one group whose name holds all their words ("Filby" → "Mr Filby"); the rest stand alone. A
leading "the" and case do not make two names ("The Time Traveller" is "the Time Traveller").

Each name is dated by the first scene (story order) that uses it: as a speaker or participant,
or in the scene's text. The character's name is the one in use first; every other name is an
alias in use from its own first scene, so a character met as "the stranger" and named later
is not called by the later name at earlier positions.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from incanon.llmout.structured import ask_structured
from incanon.canonbuild.scene_extract import ExtractedScene
from incanon.canon.namebook import name_pattern
from incanon.canon.position import Position
from incanon.errors import IncanonError
from incanon.models.types import ChatModel
from incanon.templates import PromptLibrary

#: Words that never name one character on their own.
_NOBODY = {"all", "everyone", "everybody", "someone", "somebody", "nobody", "crowd", "narrator", "others", "we",
           "they", "i", "you", "he", "she", "unknown"}


class CharacterGroup(BaseModel):
    name: str
    aliases: list[str] = Field(default_factory=list)


class CharacterGroups(BaseModel):
    """The helper's reply to ``canon_characters``."""

    characters: list[CharacterGroup]


def key(name: str) -> str:
    """The form two spellings of one name share: case, spacing and a leading "the" ignored."""
    words = name.replace("’", "'").split()
    if words and words[0].lower() == "the" and len(words) > 1:
        words = words[1:]
    return " ".join(words).casefold().strip(" .,;:!?\"'")


@dataclass
class CastMember:
    """One character found in the book."""

    name: str
    aliases: list[str] = field(default_factory=list)
    alias_from: dict[str, str] = field(default_factory=dict)
    first_position: str | None = None
    scenes: list[str] = field(default_factory=list)
    """Scene ids the character is present at, in story order."""
    secret: dict[str, str | None] = field(default_factory=dict)
    """Secret alias → the scene id that reveals it (None: never); see ``canonbuild.identities``."""

    @property
    def names(self) -> list[str]:
        return [self.name, *self.aliases]


@dataclass
class Cast:
    members: list[CastMember]
    unsure: list[str] = field(default_factory=list)
    """Names the helper did not place in a group (joined by the word rule, or left alone)."""
    dropped: list[str] = field(default_factory=list)
    """Names that name nobody in particular ("everyone")."""
    helper_failed: str = ""

    def owner(self, name: str) -> CastMember | None:
        k = key(name)
        return next((m for m in self.members if any(key(n) == k for n in m.names)), None)


def is_name(name: str) -> bool:
    """A name names someone: it has a letter, and it is not "everyone", "unknown"..."""
    return any(ch.isalpha() for ch in name) and key(name) not in _NOBODY


def scene_names(scenes: list[ExtractedScene]) -> Counter[str]:
    """Every name the scene and participant steps used, with the number of scenes it is in."""
    counts: Counter[str] = Counter()
    for scene in scenes:
        for name in dict.fromkeys([*scene.speakers, *(scene.participants or [])]):
            if is_name(name):
                counts[name.strip()] += 1
    return counts


async def group_names(counts: Counter[str], work_title: str, model: ChatModel, prompts: PromptLibrary, *,
                      json_mode: bool = True) -> tuple[list[CharacterGroup], str]:
    """The helper's grouping of ``counts``' names ([] and the error when it could not be read)."""
    if not counts:
        return [], ""
    try:
        reply = await ask_structured(model, prompts, "canon_characters", CharacterGroups, json_mode=json_mode,
                                     work_title=work_title, names=sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    except IncanonError as exc:
        return [], str(exc)
    return reply.characters, ""


def _groups(counts: Counter[str], helper: list[CharacterGroup], trusted: bool
            ) -> tuple[list[list[str]], list[str], list[str]]:
    """Name groups (the helper's name first), unsure names, dropped names. A name the helper
    left out joins the one group holding all its words; otherwise it is dropped when the
    helper answered (it judged it no character: "the fishermen"), kept alone when it did not."""
    known = {key(n): n for n in counts}
    groups: list[list[str]] = []
    placed: set[str] = set()
    for g in helper:
        forms = [f.strip() for f in [g.name, *g.aliases] if is_name(f)]
        forms = [f for f in dict.fromkeys(forms) if key(f) not in placed]
        if not forms:
            continue
        placed.update(key(f) for f in forms)
        groups.append(forms)
    dropped = [n for n in counts if not is_name(n)]
    unsure: list[str] = []
    for k, name in known.items():
        if k in placed or k in _NOBODY:
            continue
        words = set(k.split())
        owners = [g for g in groups if any(words <= set(key(f).split()) for f in g)]
        placed.add(k)
        if len(owners) == 1:
            owners[0].append(name)
            unsure.append(name)
        elif trusted:
            dropped.append(name)
        else:
            groups.append([name])
            unsure.append(name)
    return groups, unsure, dropped


def _first_uses(forms: list[str], scenes: list[ExtractedScene]) -> dict[str, str]:
    """Each form → the first scene that lists it or whose text uses it."""
    first: dict[str, str] = {}
    for scene in scenes:
        listed = {key(n) for n in [*scene.speakers, *(scene.participants or [])]}
        for form in forms:
            if form in first:
                continue
            pattern = name_pattern([form])
            if key(form) in listed or (pattern is not None and pattern.search(scene.text)):
                first[form] = scene.id
    return first


def build_cast(counts: Counter[str], helper: list[CharacterGroup], scenes: list[ExtractedScene],
               helper_failed: str = "") -> Cast:
    """Characters from the names and the helper's grouping, dated by first use (see module doc)."""
    groups, unsure, dropped = _groups(counts, helper, trusted=bool(helper) and not helper_failed)
    order = {s.id: Position.parse(s.id).key for s in scenes}
    members: list[CastMember] = []
    for forms in groups:
        keys = {key(f) for f in forms}
        present = [s.id for s in scenes if keys & {key(n) for n in [*s.speakers, *(s.participants or [])]}]
        if not present:
            continue  # named by the helper but in no scene: not a character of this canon
        firsts = _first_uses(forms, scenes)
        # Names the text never uses are still in use from the character's first scene.
        # Earliest in use first; at a tie the helper's own name, then the most used.
        dated = sorted(forms, key=lambda f: (order.get(firsts.get(f, present[0]), 0), f != forms[0],
                                             -counts.get(f, 0)))
        name = dated[0]
        aliases = [f for f in dated[1:] if key(f) != key(name)]
        aliases = list(dict.fromkeys(aliases))
        start = order[present[0]]
        alias_from = {a: firsts[a] for a in aliases if a in firsts and order[firsts[a]] > start}
        members.append(CastMember(name=name, aliases=aliases, alias_from=alias_from, first_position=present[0],
                                  scenes=present))
    members.sort(key=lambda m: (-len(m.scenes), order[m.first_position or scenes[0].id]))
    return Cast(members=members, unsure=unsure, dropped=dropped, helper_failed=helper_failed)


def main_cast(cast: Cast, wanted: list[str] | None, count: int) -> list[CastMember]:
    """The characters given by name (a name no character has is left out: the caller says so),
    else the ``count`` present in the most scenes."""
    if wanted:
        return [m for w in wanted for m in [cast.owner(w)] if m is not None]
    return cast.members[:count]


__all__ = ["Cast", "CastMember", "CharacterGroup", "CharacterGroups", "build_cast", "group_names", "key",
           "main_cast", "scene_names"]

