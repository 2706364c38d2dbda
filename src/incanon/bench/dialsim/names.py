"""Adversarial name variants: swap the main characters' names with each other, or give them new ones.

A model that knows the story from pre-training can answer without listening; renaming the
characters (the paper's adversarial test) takes that away. One ``NameMap`` rewrites everything
the agent and the scorer see (the script's speakers and lines, every question wording, the
options and the gold answer), so a question stays answerable and its gold option stays the same.

Names are replaced as whole words, all at once (so a swap never renames twice), longest first:
full names, then given names, then surnames where the mapping of a surname is unambiguous
(siblings who share one keep it unless both map to one family). A renamed character's nicknames
(one-word aliases that are neither the given name nor the surname, such as "Wrennie" or
"Stormwren") would give the character away, so each gets a name the script never uses; the map
stays one-to-one.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, replace

from incanon.bench.dialsim.questions import Question
from incanon.bench.dialsim.script import DialScript, DialSession
from incanon.errors import ConfigError

NEW_GIVEN = ("Robin", "Marta", "Osric", "Tamsin", "Bertil", "Liesl", "Corin", "Hedda", "Anselm", "Brisa",
             "Emrys", "Solvi", "Piet", "Runa", "Caspar", "Idony")
NEW_SURNAMES = ("Ashdown", "Pellow", "Garner", "Whitlock", "Quarry", "Faulk", "Brennick", "Trask")


REFERENCE_SHOWS: dict[str, dict[str, dict[str, str]]] = {
    # The reference's fixed per-show mappings (its ``name_change``): "swap" is its ``shuffle``
    # mode, "new" its ``new_name`` mode. The main six (seven) characters of each show.
    "friends": {
        "swap": {"Monica": "Joey", "Chandler": "Rachel", "Joey": "Monica", "Phoebe": "Ross", "Rachel": "Chandler",
                 "Ross": "Phoebe"},
        "new": {"Monica": "Patricia", "Chandler": "James", "Joey": "John", "Phoebe": "Jennifer", "Rachel": "Linda",
                "Ross": "Robert"}},
    "bigbang": {
        "swap": {"Howard": "Amy", "Leonard": "Howard", "Raj": "Penny", "Penny": "Raj", "Bernadette": "Sheldon",
                 "Amy": "Leonard", "Sheldon": "Bernadette"},
        "new": {"Howard": "Robert", "Leonard": "James", "Raj": "Michael", "Penny": "Jennifer", "Bernadette": "Linda",
                "Amy": "Patricia", "Sheldon": "John"}},
    "theoffice": {
        "swap": {"Dwight": "Ryan", "Jim": "Michael", "Pam": "Dwight", "Ryan": "Jim", "Michael": "Pam"},
        "new": {"Dwight": "John", "Jim": "Robert", "Pam": "Jennifer", "Ryan": "William", "Michael": "James"}},
}


@dataclass(frozen=True)
class NameMap:
    """Replacements applied simultaneously: whole words, or (``whole_words=False``, the
    reference's ``str.replace``) anywhere in a word, so "Rossi" becomes "Phoebei"."""

    mapping: dict[str, str]
    mode: str = ""
    whole_words: bool = True

    def __post_init__(self) -> None:
        words = sorted(self.mapping, key=len, reverse=True)
        edge = r"\b" if self.whole_words else ""
        pattern = re.compile(edge + "(" + "|".join(map(re.escape, words)) + ")" + edge) if words else None
        object.__setattr__(self, "_pattern", pattern)

    def apply(self, text: str) -> str:
        pattern = getattr(self, "_pattern")
        return text if pattern is None else pattern.sub(lambda m: self.mapping[m.group(1)], text)

    def inverse(self) -> "NameMap":
        if len(set(self.mapping.values())) != len(self.mapping):
            raise ValueError("this name map is not one-to-one")
        return NameMap({v: k for k, v in self.mapping.items()}, mode=f"inverse {self.mode}", whole_words=self.whole_words)


def main_characters(script: DialScript, count: int = 6) -> list[str]:
    """The ``count`` characters with most lines (ties alphabetical)."""
    lines = Counter(line.speaker for s in script.sessions for line in s.lines)
    return sorted(lines, key=lambda n: (-lines[n], n))[:count]


def _parts(name: str) -> tuple[str, str | None]:
    words = name.split()
    return words[0], (words[-1] if len(words) > 1 else None)


def nicknames(script: DialScript, name: str) -> list[str]:
    """``name``'s one-word aliases other than its given name and surname ("Wrennie"), in the
    order the canon lists them; titles and descriptions ("the Provost") have several words."""
    given, surname = _parts(name)
    return [alias for alias, canonical in script.aliases.items()
            if canonical == name and alias not in (name, given, surname)
            and re.fullmatch(r"[A-Z][\w'-]*", alias)]


def _script_words(script: DialScript) -> set[str]:
    return {w for s in script.sessions for line in s.lines for w in re.findall(r"\w+", f"{line.speaker} {line.text}")}


def _with_nicknames(names: NameMap, script: DialScript, renamed: list[str], rng: random.Random) -> NameMap:
    # Unused names for the nicknames: never a word of the script, never a name already given.
    taken = _script_words(script) | {w for v in names.mapping.values() for w in v.split()}
    spare = [n for n in NEW_GIVEN if n not in taken]
    rng.shuffle(spare)
    mapping = dict(names.mapping)
    for name in renamed:
        for alias in nicknames(script, name):
            if alias in mapping:
                continue
            if not spare:
                raise ConfigError(f"not enough unused names for the nicknames of {name} ({alias!r} and more)")
            mapping[alias] = spare.pop()
    return NameMap(mapping, mode=names.mode)


def _build(pairs: dict[str, str], mode: str) -> NameMap:
    mapping: dict[str, str] = {}
    surnames: dict[str, set[str]] = {}
    for old, new in pairs.items():
        mapping[old] = new
        (og, osur), (ng, nsur) = _parts(old), _parts(new)
        if og != old:
            mapping[og] = ng
        if osur is not None and nsur is not None:
            surnames.setdefault(osur, set()).add(nsur)
    givens = {_parts(o)[0] for o in pairs}
    family = {old: next(iter(news)) for old, news in surnames.items() if len(news) == 1 and old not in givens}
    # A surname may only become one that is itself renamed away, or two families would merge
    # (and the map could not be undone).
    while True:
        merging = [old for old, new in family.items() if new in surnames and new not in family and new != old]
        if not merging:
            break
        for old in merging:
            del family[old]
    for old, new in family.items():
        mapping.setdefault(old, new)
    return NameMap({k: v for k, v in mapping.items() if k != v}, mode=mode)


def swap_names(script: DialScript, *, seed: int = 0, count: int = 6) -> NameMap:
    """Each of the main characters takes another one's name (a derangement, seeded)."""
    names = main_characters(script, count)
    if len(names) < 2:
        raise ConfigError("swapping names needs at least two characters who speak")
    rng = random.Random(f"swap:{seed}")
    shifted = names[:]
    while any(a == b for a, b in zip(names, shifted)):
        rng.shuffle(shifted)
    return _with_nicknames(_build(dict(zip(names, shifted)), "swap"), script, names, rng)


def new_names(script: DialScript, *, seed: int = 0, count: int = 6) -> NameMap:
    """The main characters get names the script never uses (one new surname per family)."""
    names = main_characters(script, count)
    words = _script_words(script)
    rng = random.Random(f"new:{seed}")
    given = [g for g in NEW_GIVEN if g not in words]
    family = [f for f in NEW_SURNAMES if f not in words]
    rng.shuffle(given)
    rng.shuffle(family)
    if len(given) < len(names):
        raise ConfigError("not enough unused new names for the main characters")
    new_family: dict[str, str] = {}
    pairs = {}
    for name, first in zip(names, given):
        surname = _parts(name)[1]
        if surname is not None:
            new_family.setdefault(surname, family.pop() if family else surname)
            pairs[name] = f"{first} {new_family[surname]}"
        else:
            pairs[name] = first
    return _with_nicknames(_build(pairs, "new"), script, names, rng)


def reference_names(show: str, mode: str) -> NameMap:
    """The reference's fixed mapping of ``show`` (friends, bigbang, theoffice) for ``mode``
    (swap or new), replaced as the reference replaces (inside words too)."""
    if show not in REFERENCE_SHOWS:
        raise ConfigError(f"the reference has fixed name mappings for {', '.join(REFERENCE_SHOWS)} only, not {show!r}")
    return NameMap(dict(REFERENCE_SHOWS[show][mode]), mode=f"{mode}:{show}", whole_words=False)


def check_names(mode: str | None) -> str | None:
    """``--names``: swap, new, swap:SHOW or new:SHOW (or nothing)."""
    if mode in (None, "", "original"):
        return None
    kind, _, show = mode.partition(":")
    if kind not in ("swap", "new") or (show and show not in REFERENCE_SHOWS):
        raise ConfigError(f"--names takes swap, new, swap:SHOW or new:SHOW (SHOW: {', '.join(REFERENCE_SHOWS)}), "
                          f"got {mode!r}")
    return mode


def name_map(script: DialScript, mode: str | None, *, seed: int = 0, count: int = 6,
             protocol: str = "incanon") -> NameMap | None:
    """``swap``, ``new`` (seeded, whole words; under the paper protocol the reference's fixed
    mapping of the show the work is), ``swap:SHOW`` / ``new:SHOW`` (the reference's mapping of
    SHOW), or None (original names)."""
    mode = check_names(mode)
    if mode is None:
        return None
    kind, _, show = mode.partition(":")
    if show:
        return reference_names(show, kind)
    if protocol == "paper":
        if script.work not in REFERENCE_SHOWS:
            raise ConfigError(f"under --protocol paper, --names {kind} uses the reference's fixed mapping of a show "
                              f"({', '.join(REFERENCE_SHOWS)}), and work {script.work!r} is none of them: pass "
                              f"--names {kind}:SHOW, or --protocol incanon for a seeded {kind}")
        return reference_names(script.work, kind)
    if kind == "swap":
        return swap_names(script, seed=seed, count=count)
    return new_names(script, seed=seed, count=count)


def rename_script(script: DialScript, names: NameMap) -> DialScript:
    """The script with every speaker, participant and line renamed."""
    def session(s: DialSession) -> DialSession:
        lines = tuple(replace(line, speaker=names.apply(line.speaker), text=names.apply(line.text)) for line in s.lines)
        return replace(s, participants=tuple(map(names.apply, s.participants)),
                       speakers=tuple(map(names.apply, s.speakers)), lines=lines)

    return DialScript(
        work=script.work, title=script.title, main=names.apply(script.main),
        sessions=[session(s) for s in script.sessions],
        personalities={names.apply(k): names.apply(v) for k, v in script.personalities.items()},
        aliases={names.apply(k): names.apply(v) for k, v in script.aliases.items()},
    )


def rename_question(question: Question, names: NameMap) -> Question:
    """The question with its wordings, options, answer and facts renamed (askers too)."""
    return question.model_copy(update={
        "texts": {(k if k == "default" else names.apply(k)): names.apply(v) for k, v in question.texts.items()},
        "options": [names.apply(o) for o in question.options],
        "answer": names.apply(question.answer),
        "facts": [[names.apply(x) for x in fact] for fact in question.facts],
    })
