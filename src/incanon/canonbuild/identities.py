"""Secret identities in a built book: which grouped name is a person's secret, and where the story
reveals it.

The helper groups the names of one person (``canon_characters``), as a good model should: "Edward
Hyde" with "Henry Jekyll". But a name's date of first use is not when anyone knows whose name it
is. For every group that holds two names sharing no word (titles aside), the helper is asked
(``canon_identity``) whether the story keeps their being one person hidden, which name is the
secret, which the person's own, and in which scene it comes out. A secret name becomes an alias
with ``"secret": true`` and ``revealed_in`` that scene (see ``incanon.canon.identities``); the
person is named by the true name. An answer that cannot be used leaves the group as it was and
is reported, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pydantic import BaseModel

from incanon.llmout.structured import ask_structured
from incanon.canonbuild.scene_extract import ExtractedScene
from incanon.canon.namebook import name_pattern
from incanon.canonbuild.cast import Cast, CastMember, key
from incanon.errors import IncanonError
from incanon.models.types import ChatModel
from incanon.templates import PromptLibrary

#: Forms of address that do not tell two names apart ("Dr. Jekyll" and "Mr. Jekyll" share "Jekyll").
_TITLES = {"mr", "mrs", "ms", "miss", "dr", "doctor", "sir", "lady", "lord", "madam", "master", "mistress",
           "captain", "capt", "the", "old", "young", "little", "saint", "st", "father", "mother", "uncle", "aunt"}
#: At most this many scenes are shown per question (the first ones and those naming both names).
_SCENES = 24


class IdentityAnswer(BaseModel):
    """The helper's reply to ``canon_identity``."""

    secret: bool = False
    secret_name: str = ""
    true_name: str = ""
    revealed_in: str | None = None


@dataclass
class IdentityResult:
    """What the identity step found and what it could not use."""

    asked: int = 0
    secrets: list[tuple[str, str, str | None]] = field(default_factory=list)
    """(person, secret name, revealing scene id or None)."""
    problems: list[str] = field(default_factory=list)


def _words(name: str) -> set[str]:
    return {w for w in re.findall(r"\w+", key(name)) if w not in _TITLES}


def two_identities(member: CastMember) -> bool:
    """True when the group's names fall apart into two or more sets linked by no shared word
    (titles aside): a candidate for a secret identity, as "Edward Hyde" and "Henry Jekyll" are, and
    "Mara" and "the Harbour Keeper" may be. "Tobias", "Master Venn" and "Tobias Venn" are one set."""
    clusters: list[set[str]] = []
    for words in (w for w in (_words(n) for n in member.names) if w):
        joined = [c for c in clusters if c & words]
        merged = set(words).union(*joined)
        clusters = [c for c in clusters if not (c & words)] + [merged]
    return len(clusters) > 1


def _scenes_of(member: CastMember, scenes: list[ExtractedScene]) -> list[ExtractedScene]:
    patterns = [(n, name_pattern([n])) for n in member.names]
    listed = {key(n) for n in member.names}
    using: list[tuple[ExtractedScene, int]] = []
    for s in scenes:
        named = {n for n, p in patterns if p is not None and p.search(s.text)}
        named |= {n for n in [*s.speakers, *(s.participants or [])] if key(n) in listed}
        if named:
            using.append((s, len({key(n) for n in named})))
    if len(using) <= _SCENES:
        return [s for s, _ in using]
    # The first scenes, then those naming two of the names (where a reveal would be), in story order.
    keep = {id(s) for s, _ in using[: _SCENES // 2]}
    keep |= {id(s) for s, n in using if n > 1}
    return [s for s, _ in using if id(s) in keep][: _SCENES * 2]


async def find_secret_identities(cast: Cast, scenes: list[ExtractedScene], work_title: str, model: ChatModel,
                                 prompts: PromptLibrary, *, json_mode: bool = True) -> IdentityResult:
    """Ask about every group with two identities; mark the secrets on ``cast``'s members."""
    result = IdentityResult()
    ids = {s.id for s in scenes}
    for member in cast.members:
        if not two_identities(member):
            continue
        shown = _scenes_of(member, scenes)
        result.asked += 1
        try:
            answer = await ask_structured(
                model, prompts, "canon_identity", IdentityAnswer, json_mode=json_mode, work_title=work_title,
                names=member.names, scenes=[{"position": s.id, "summary": s.summary or s.text[:200]} for s in shown])
        except IncanonError as exc:
            result.problems.append(f"{member.name}: {exc}")
            continue
        if not answer.secret:
            continue
        names = {key(n): n for n in member.names}
        secret, true = names.get(key(answer.secret_name)), names.get(key(answer.true_name))
        if secret is None or true is None or secret == true:
            result.problems.append(f"{member.name}: the helper named {answer.secret_name!r} / {answer.true_name!r}, "
                                   f"which are not two of the names {member.names}; left as one person")
            continue
        revealed = answer.revealed_in if answer.revealed_in in ids else None
        if answer.revealed_in and revealed is None:
            result.problems.append(f"{member.name}: reveal scene {answer.revealed_in!r} is not a scene position; "
                                   "kept secret to the end")
        mark_secret(member, secret, true, revealed)
        result.secrets.append((member.name, secret, revealed))
    return result


def mark_secret(member: CastMember, secret: str, true: str, revealed: str | None) -> None:
    """Make ``secret`` a secret alias of ``member``, named ``true`` from now on."""
    if member.name != true:
        # The true name becomes the person's name; the old one (the secret, or another form) an alias.
        old = member.name
        member.aliases = [old, *(a for a in member.aliases if a != true)]
        member.name = true
        member.alias_from.pop(true, None)
    member.secret[secret] = revealed


__all__ = ["IdentityAnswer", "IdentityResult", "find_secret_identities", "mark_secret", "two_identities"]
