"""Which names of a work a text uses, and which of them a character has met.

Matching is case-insensitive on word boundaries, longest name first, so "Aldric Hame
Marrow-Hame" is one (later) name and not "Aldric Hame" followed by text. A name is *attested*
when it occurs in the texts given to ``attest`` (what a character has seen and heard).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from incanon.canon.names import norm

#: Words before a name that are forms of address, not part of what identifies the person.
_TITLES = frozenset({"mr", "mrs", "ms", "miss", "dr", "sir", "lady", "lord", "madam", "master", "mistress",
                     "captain", "capt", "colonel", "general", "father", "mother", "sister", "brother",
                     "saint", "st", "king", "queen", "prince", "princess", "the", "of", "de", "van", "von"})


def _alternation(names: Iterable[str]) -> str | None:
    """The names as one regex alternation, longest first, any run of spaces between words."""
    forms = sorted({n.strip() for n in names if n.strip()}, key=len, reverse=True)
    if not forms:
        return None
    return "|".join(r"\s+".join(re.escape(part) for part in form.split()) for form in forms)


def _pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    alternation = _alternation(names)
    return None if alternation is None else re.compile(rf"(?<!\w)(?:{alternation})(?!\w)", re.IGNORECASE)


def name_pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    """A regex finding any of ``names`` (case-insensitive, on word boundaries), or None for no names."""
    return _pattern(names)


def _starts(names: Iterable[str]) -> re.Pattern[str] | None:
    # The longest name starting at *every* word start, overlaps included: "the flood of 1170"
    # attests "the flood" and "flood of 1170" both.
    alternation = _alternation(names)
    return None if alternation is None else re.compile(rf"(?<!\w)(?=((?:{alternation}))(?!\w))", re.IGNORECASE)


_WORD = re.compile(r"\w+")


def _word_char(text: str, i: int) -> bool:
    """True when ``text[i]`` exists and is a word character (as the regex ``\\w``)."""
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")


def _occurs(blob: str, form: str, longer: tuple[str, ...]) -> bool:
    """``form`` occurs in ``blob`` on word boundaries at a start where none of the ``longer``
    names (which begin with it) matches too."""
    at = blob.find(form)
    while at >= 0:
        end = at + len(form)
        if not _word_char(blob, at - 1) and not _word_char(blob, end):
            if not any(blob.startswith(other, at) and not _word_char(blob, at + len(other)) for other in longer):
                return True
        at = blob.find(form, at + 1)
    return False


def surnames(named: Iterable[tuple[str, Iterable[str]]]) -> dict[str, str]:
    """Bare surnames that identify one owner: ``{"Carew": "Sir Danvers Carew"}``.

    People are named by surname alone ("Carew was clubbed to death"), so a later character's
    surname is a later name, not just a word. Only the last word of a name of two words or more
    counts, capitalized, alphabetic, not a form of address, and only when no other owner has it
    as a name part (two Brands make "Brand" nobody's)."""
    owners: dict[str, set[str]] = {}
    full: set[str] = set()
    for name, aliases in named:
        for form in [name, *aliases]:
            words = form.split()
            full.add(norm(form))
            for w in words:
                owners.setdefault(w.strip(".,").casefold(), set()).add(name)
            if len(words) < 2:
                continue
            last = words[-1].strip(".,")
            if len(last) >= 3 and last[:1].isupper() and last.replace("-", "").replace("'", "").isalpha() \
                    and last.casefold() not in _TITLES:
                owners.setdefault("\0" + last, set()).add(name)
    found: dict[str, str] = {}
    for key, who in owners.items():
        if not key.startswith("\0"):
            continue
        last = key[1:]
        if len(who) == 1 and owners.get(last.casefold(), set()) == who and norm(last) not in full:
            found[last] = next(iter(who))
    return found


def surname_pattern(forms: Iterable[str]) -> re.Pattern[str] | None:
    """Case-sensitive matcher of bare surnames (a capital letter is what tells "Brand" the
    person from "brand" the word)."""
    alternation = "|".join(re.escape(f) for f in sorted(set(forms), key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?:{alternation})(?![\w-])") if alternation else None


class NameBook:
    """Every name of a work's characters and entities, and which of them a text has used."""

    def __init__(self, named: Iterable[tuple[str, Iterable[str]]]):
        """From ``(canonical name, aliases)`` pairs; the first owner of a name keeps it."""
        self.owners: dict[str, str] = {}
        """Normalized name → the canonical name of the character or entity it belongs to."""
        self.attested: set[str] = set()
        """Normalized names found in the texts given to ``attest``."""
        forms: list[str] = []
        self._forms: dict[str, str] = {}
        """Normalized name → the form it was given in."""
        for name, aliases in named:
            for form in [name, *aliases]:
                if form.strip() and norm(form) not in self.owners:
                    self.owners[norm(form)] = name
                    self._forms[norm(form)] = form
                    forms.append(form)
        self._re = _pattern(forms)
        self._starts = _starts(forms)
        self._attest_plan: list[tuple[str, str, frozenset[str], tuple[str, ...]]] | None = None

    def mentions(self, text: str) -> list[str]:
        """The normalized names ``text`` mentions, in order (longest match at each place)."""
        if self._re is None or not text:
            return []
        return [norm(m.group(0)) for m in self._re.finditer(text)]

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, normalized name) of every mention in ``text``, in order."""
        if self._re is None or not text:
            return []
        return [(m.start(), m.end(), norm(m.group(0))) for m in self._re.finditer(text)]

    def attest(self, texts: Iterable[str]) -> None:
        """Mark every name the texts mention as attested (names inside or overlapping a longer
        name included, so attesting never misses a name a later text uses on its own).

        The same names as running ``_starts`` over each text (a name at a word start, followed
        by no word character, unless a longer name matches at that start), found without a
        regex pass over every text: a novel's witnessed text is megabytes, and the alternation
        of every name tried at every word start cost a character's first relations over a second
        at 100k chunks. The texts become one lower-cased string with single spaces (``\x00``
        between texts, so no name spans two); a name whose words do not all occur is skipped by
        a set lookup, the others are found with ``str.find``."""
        if self._starts is None:
            return
        blob = "\x00".join(" ".join(t.split()) for t in texts if t).lower()
        if not blob:
            return
        # Distinct whitespace-separated tokens first: a text repeats its words, and the word
        # regex then runs over each distinct token once, not over the megabytes.
        words = {w for token in set(blob.split()) for w in _WORD.findall(token)}
        for key, form, form_words, longer in self._plan():
            if key not in self.attested and words.issuperset(form_words) and _occurs(blob, form, longer):
                self.attested.add(key)

    def _plan(self) -> list[tuple[str, str, frozenset[str], tuple[str, ...]]]:
        """Per name: its key, lower-cased single-spaced form, words, and the longer names that
        begin with it (which win at a start where both match)."""
        if self._attest_plan is None:
            forms = {key: " ".join(form.split()).lower() for key, form in self._forms.items()}
            self._attest_plan = [
                (key, form, frozenset(_WORD.findall(form)),
                 tuple(other for other in forms.values() if len(other) > len(form) and other.startswith(form)))
                for key, form in forms.items()]
        return self._attest_plan

    def attest_all(self) -> None:
        """Take every name as attested (a work with no source text to date names by)."""
        self.attested.update(self.owners)

    def keys_for(self, name: str, aliases: Iterable[str]) -> list[str]:
        """The attested names of one owner, canonical first; the canonical name alone when none
        is attested (the owner is known some other way, e.g. met in a scene)."""
        found = [f for f in [name, *aliases] if norm(f) in self.attested]
        return found or [name]

    def unknown_in(self, text: str, known: set[str]) -> list[str]:
        """Names ``text`` mentions that are not in ``known`` (normalized names)."""
        return [n for n in self.mentions(text) if n not in known]
