"""Just enough English morphology for template claims: articles, plurals, agreement, -ing, -s."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from incanon.bench.sharp.conceptnet import Concept
from incanon.bench.sharp.lang import _en_lexicon as lex

_PREPOSITIONS = frozenset("of in on for with from to at by".split())
_VOWELS = "aeiou"


# Letters whose spoken name starts with a vowel sound: "an FBI agent", "an MRI", "a UN report".
_AN_LETTERS = frozenset("AEFHILMNORSX")


def is_acronym(word: str) -> bool:
    """'FBI', 'TV', 'MRI': two or more capitals, read letter by letter."""
    letters = word.rstrip("'s")
    return len(letters) > 1 and letters.isalpha() and letters.isupper()


def is_name(text: str) -> bool:
    """Does a (surface-cased) phrase start with a proper name ('Harry Potter', 'London')?"""
    first = text.split(" ", 1)[0] if text else ""
    return bool(first) and first[0].isupper() and not is_acronym(first)


def article(word: str) -> str:
    """'a' or 'an' for the word that follows, by sound as far as spelling allows."""
    first = word.split(" ", 1)[0]
    if is_acronym(first):
        return "an" if first[0] in _AN_LETTERS else "a"
    low = word.lower()
    if low.startswith(lex.AN_BEFORE_CONSONANT):
        return "an"
    if low[:1] in _VOWELS and not low.startswith(lex.A_BEFORE_VOWEL):
        return "an"
    return "a"


def pluralize(word: str) -> str:
    """Plural of one noun."""
    low = word.lower()
    if low in lex.IRREGULAR_PLURALS:
        return lex.IRREGULAR_PLURALS[low]
    if low in lex.SAME_PLURAL or low in lex.PLURAL_ONLY:
        return word
    if low.endswith("man") and low not in lex.MAN_NOT_MEN:
        return word[:-3] + "men"
    if low.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if low.endswith("y") and low[-2:-1] not in _VOWELS:
        return word[:-1] + "ies"
    return word + "s"


def third_person(phrase: str) -> str:
    """'study hard' → 'studies hard' (the first word is the verb)."""
    verb, _, rest = phrase.partition(" ")
    low = verb.lower()
    if low in lex.IRREGULAR_THIRD:
        out = lex.IRREGULAR_THIRD[low]
    elif low.endswith(("s", "x", "z", "ch", "sh", "o")):
        out = verb + "es"
    elif low.endswith("y") and low[-2:-1] not in _VOWELS:
        out = verb[:-1] + "ies"
    else:
        out = verb + "s"
    return f"{out} {rest}".strip()


def _syllables(word: str) -> int:
    return len(re.findall(r"[aeiouy]+", word.lower()))


def gerund(phrase: str) -> str:
    """'cut bread' → 'cutting bread'; 'make tea' → 'making tea'."""
    verb, _, rest = phrase.partition(" ")
    low = verb.lower()
    if low.endswith("ing") and len(low) > 4:
        out = verb
    elif low in lex.IRREGULAR_GERUND:
        out = lex.IRREGULAR_GERUND[low]
    elif low in ("begin", "forget", "prefer", "regret", "admit", "control"):
        out = verb + verb[-1] + "ing"
    elif low.endswith("ie"):
        out = verb[:-2] + "ying"
    elif low.endswith("e") and not low.endswith(("ee", "ye", "oe")) and len(low) > 2:
        out = verb[:-1] + "ing"
    elif (
        _syllables(low) == 1
        and len(low) >= 3
        and low[-1] not in _VOWELS + "wxy"
        and low[-2] in _VOWELS
        and low[-3] not in _VOWELS
    ):
        out = verb + verb[-1] + "ing"
    else:
        out = verb + "ing"
    return f"{out} {rest}".strip()


def is_verbal(concept: Concept) -> bool:
    """Does the concept read as a verb phrase ('cut bread') rather than a noun phrase?"""
    if concept.pos == "v":
        return True
    if concept.pos in ("n", "a", "s", "r"):
        return False
    words = concept.text.split()
    if not words:
        return False
    if len(words) == 1 and (words[0] in lex.MASS_NOUNS or words[0].endswith("ing")):
        return False
    return words[0].lower() in lex.COMMON_VERBS


@dataclass(frozen=True)
class NP:
    """A noun phrase built from a concept, with the forms the templates need."""

    text: str
    kind: str = "count"
    """count (a dog / dogs), mass (water), plural (scissors), unique (the sky) or name
    (Harry Potter: no article, never pluralised)."""

    @classmethod
    def of(cls, concept: Concept | str) -> "NP":
        """Noun phrase for a concept; a verb phrase becomes its -ing form ('cutting bread')."""
        if isinstance(concept, Concept):
            if is_verbal(concept):
                return cls(gerund(concept.text), "mass")
            text = concept.text
        else:
            text = concept
        words = text.split()
        noun = _head_noun(words).lower()
        if is_name(text):
            return cls(text, "name")
        if text.lower() in lex.THE_PLACES:
            return cls(text, "unique")
        if noun in lex.PLURAL_ONLY:
            return cls(text, "plural")
        if noun in lex.MASS_NOUNS or (noun.endswith("ing") and len(noun) > 4 and noun not in lex.NOUNS_ENDING_ING):
            return cls(text, "mass")
        if noun.endswith("ness"):
            return cls(text, "mass")
        return cls(text, "count")

    @property
    def a(self) -> str:
        """Indefinite form: 'a dog', 'an apple', 'water', 'scissors' (and 'the sky')."""
        if self.kind == "unique":
            return f"the {self.text}"
        return f"{article(self.text)} {self.text}" if self.kind == "count" else self.text

    @property
    def be(self) -> str:
        """Verb 'to be' agreeing with ``a``."""
        return "are" if self.kind == "plural" else "is"

    @cached_property
    def pl(self) -> str:
        """Generic plural: 'dogs', 'cups of tea', 'water'."""
        if self.kind == "unique":
            return f"the {self.text}"
        if self.kind != "count":
            return self.text
        words = self.text.split()
        i = _head_index(words)
        words[i] = pluralize(words[i])
        return " ".join(words)

    @property
    def pl_be(self) -> str:
        """Verb 'to be' agreeing with ``pl``."""
        return "is" if self.kind in ("mass", "unique", "name") else "are"

    def pl_verb(self, verb: str) -> str:
        """A present-tense verb phrase agreeing with ``pl`` ('dogs bark', 'water flows')."""
        return third_person(verb) if self.kind in ("mass", "unique", "name") else verb

    def a_verb(self, verb: str) -> str:
        """A present-tense verb phrase agreeing with ``a`` ('a dog barks', 'scissors cut')."""
        return verb if self.kind == "plural" else third_person(verb)

    @property
    def every(self) -> str:
        """Universal form: 'every dog', 'all water', 'all scissors', 'all of the sky'."""
        if self.kind == "unique":
            return f"all of the {self.text}"
        if self.kind == "name":
            return self.text
        return f"every {self.text}" if self.kind == "count" else f"all {self.text}"

    @property
    def no(self) -> str:
        """'no dog', 'no water'."""
        return f"no {self.text}"


def _head_index(words: list[str]) -> int:
    for i, word in enumerate(words):
        if i > 0 and word.lower() in _PREPOSITIONS:
            return i - 1
    return len(words) - 1


def _head_noun(words: list[str]) -> str:
    return words[_head_index(words)] if words else ""


def place_phrase(place: Concept) -> str:
    """'in a kitchen', 'on a table', 'at school', 'in the sky', 'in water'."""
    noun = _head_noun(place.text.split()).lower()
    prep = "on" if noun in lex.LOCATION_ON else "at" if noun in lex.LOCATION_AT else "in"
    if place.text.lower() in lex.BARE_PLACES:
        return f"{prep} {place.text}"
    if place.text.lower() in lex.THE_PLACES:
        return f"{prep} the {place.text}"
    return f"{prep} {NP.of(place).a}"
