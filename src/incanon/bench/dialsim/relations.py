"""The 32 relations of DialSim's temporal knowledge graph, and how questions phrase each one.

The relation set is the paper's (adapted from DialogRE). Each relation says what kind of value
its tail is (for distractors), whether it changes over time (only those get dated "on {time}"
questions), and how a question about it reads in the present and in the past. Wording is
incanon's own; ``{x}`` is a noun phrase ("Jory", "that roommate", "Wren's brother") and
``{when}`` a time phrase ("on March 22, 1187", "in March 1187").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

ValueKind = Literal["person", "place", "job", "major", "age", "date", "pet"]


@dataclass(frozen=True)
class RelationInfo:
    """One TKG relation: what its tail is and how questions about it are worded."""

    name: str
    kind: ValueKind
    temporal: bool
    """True when the value changes over time (boss, job, girlfriend); dated questions use it."""
    present: str
    """Question in the present tense about ``{x}``."""
    past: str | None
    """Question in the past about ``{x}`` ``{when}``; None for relations that do not change."""
    noun: str
    """How the tail is called in a two-hop question ("the roommate")."""


def _r(name: str, kind: ValueKind, present: str, past: str | None = None, noun: str | None = None) -> RelationInfo:
    return RelationInfo(name, kind, past is not None, present, past, noun or name)


RELATIONS: dict[str, RelationInfo] = {r.name: r for r in (
    _r("age", "age", "How old is {x}?", "How old was {x} {when}?"),
    _r("alumni", "person", "Who is a former student of {x}?", noun="former student"),
    _r("boss", "person", "Who does {x} report to?", "Who did {x} report to {when}?"),
    _r("boyfriend", "person", "Who is the boyfriend of {x}?", "Who was the boyfriend of {x} {when}?"),
    _r("brother", "person", "Who is the brother of {x}?"),
    _r("client", "person", "Who is one of {x}'s clients?", "Who was one of {x}'s clients {when}?"),
    _r("date of birth", "date", "On what date was {x} born?"),
    _r("dating with", "person", "Who is {x} seeing?", "Who was {x} seeing {when}?", noun="person"),
    _r("ex-boyfriend", "person", "Who is a former boyfriend of {x}?", noun="former boyfriend"),
    _r("ex-fiance", "person", "Who was {x} once engaged to?", noun="former fiance"),
    _r("ex-fiancee", "person", "Who was {x} once engaged to?", noun="former fiancee"),
    _r("ex-girlfriend", "person", "Who is a former girlfriend of {x}?", noun="former girlfriend"),
    _r("ex-husband", "person", "Who is the former husband of {x}?", noun="former husband"),
    _r("ex-roommate", "person", "Who used to share a home with {x}?", noun="former roommate"),
    _r("ex-wife", "person", "Who is the former wife of {x}?", noun="former wife"),
    _r("father", "person", "Who is the father of {x}?"),
    _r("fiance", "person", "Who is {x} engaged to?", "Who was {x} engaged to {when}?"),
    _r("fiancee", "person", "Who is {x} engaged to?", "Who was {x} engaged to {when}?"),
    _r("girlfriend", "person", "Who is the girlfriend of {x}?", "Who was the girlfriend of {x} {when}?"),
    _r("hometown", "place", "Where does {x} come from?"),
    _r("husband", "person", "Who is {x} married to?", "Who was {x} married to {when}?"),
    _r("job", "job", "What does {x} do for a living?", "What did {x} do for a living {when}?"),
    _r("major", "major", "What does {x} study?", "What was {x} studying {when}?"),
    _r("mother", "person", "Who is the mother of {x}?"),
    _r("neighbor", "person", "Who lives next door to {x}?", "Who lived next door to {x} {when}?"),
    _r("pet", "pet", "What is the name of {x}'s pet?", "What was the name of {x}'s pet {when}?"),
    _r("place of birth", "place", "Where was {x} born?"),
    _r("place of work", "place", "Where does {x} work?", "Where did {x} work {when}?", noun="workplace"),
    _r("roommate", "person", "Who shares a home with {x}?", "Who shared a home with {x} {when}?"),
    _r("sister", "person", "Who is the sister of {x}?"),
    _r("subordinate", "person", "Who reports to {x}?", noun="subordinate"),
    _r("wife", "person", "Who is {x} married to?", "Who was {x} married to {when}?"),
)}

assert len(RELATIONS) == 32

#: First hops of two-hop questions that read "{sub} had a {relation} on {time}." (Table 9).
PARTNER_HOPS = frozenset({"roommate", "wife", "husband", "girlfriend", "boyfriend", "client", "neighbor",
                          "boss", "subordinate", "fiance", "fiancee"})
#: First hops that read "{sub}'s {relation}" (kin do not change, so they carry no time).
FAMILY_HOPS = frozenset({"mother", "father", "sister", "brother"})
#: Second hops allowed after a person reached by a partner or family hop.
SECOND_HOPS = frozenset(PARTNER_HOPS | FAMILY_HOPS | {
    "pet", "dating with", "job", "major", "age", "date of birth", "place of birth", "place of work", "hometown"})
#: Second hops after "{sub} was seeing someone on {time}" (Table 9 allows people only).
AFTER_DATING = frozenset(PARTNER_HOPS)

_ALIASES = {
    "dating": "dating with", "date": "dating with", "dates": "dating with", "dating_with": "dating with",
    "partner": "dating with", "lover": "dating with", "occupation": "job", "profession": "job",
    "work": "job", "workplace": "place of work", "employer": "place of work", "works at": "place of work",
    "birthplace": "place of birth", "born in": "place of birth", "birthday": "date of birth",
    "birth date": "date of birth", "home town": "hometown", "alumnus": "alumni", "alumna": "alumni",
    "fiancé": "fiance", "fiancée": "fiancee", "manager": "boss", "supervisor": "boss",
    "employee": "subordinate", "room mate": "roommate", "flatmate": "roommate",
}


def normalize_relation(text: str) -> str | None:
    """The relation ``text`` names (``"ex_girlfriend"``, ``"Place-of-Work"``), or None."""
    key = re.sub(r"[\s_]+", " ", text.strip().lower()).strip()
    key = key.replace("ex ", "ex-") if key.startswith("ex ") else key
    if key in RELATIONS:
        return key
    spaced = key.replace("-", " ")
    if spaced in RELATIONS:
        return spaced
    if spaced.startswith("ex ") and f"ex-{spaced[3:]}" in RELATIONS:
        return f"ex-{spaced[3:]}"
    return _ALIASES.get(key) or _ALIASES.get(spaced)


def one_hop(relation: str, x: str, when: str | None = None) -> str:
    """The question about ``relation`` of ``x``, in the past ``when`` given (else the present)."""
    info = RELATIONS[relation]
    if when is None or info.past is None:
        return info.present.format(x=x)
    return info.past.format(x=x, when=when)


def two_hop(first: str, sub: str, first_when: str | None, second: str, second_when: str | None) -> str:
    """A two-hop question: ``second`` of the person who was ``sub``'s ``first``."""
    if first in FAMILY_HOPS:
        x = f"{sub}'s {RELATIONS[first].noun}"
        return capitalize(one_hop(second, x, second_when))
    if first == "dating with":
        lead = f"{sub} was seeing someone {first_when}." if first_when else f"{sub} is seeing someone."
        x = "that person"
    else:
        noun = RELATIONS[first].noun
        lead = f"{sub} had {_article(noun)} {noun} {first_when}." if first_when else f"{sub} has {_article(noun)} {noun}."
        x = f"that {noun}"
    return f"{lead} {capitalize(one_hop(second, x, second_when))}"


def two_hop_allowed(first: str, second: str) -> bool:
    """Whether Table 9 has a template for ``first`` then ``second``."""
    if first == "dating with":
        return second in AFTER_DATING
    return (first in PARTNER_HOPS or first in FAMILY_HOPS) and second in SECOND_HOPS


def capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]


def _article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"
