"""English morphology for template claims: articles and plurals from ``inflect``, verb forms
(-s, -ing) from ``lemminflect``; the lexicon keeps only what templates need beyond them."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

from incanon.bench.sharp.conceptnet import Concept
from incanon.bench.sharp.lang import _en_lexicon as lex

_PREPOSITIONS = frozenset("of in on for with from to at by".split())




def is_acronym(word: str) -> bool:
    """'FBI', 'TV', 'MRI': two or more capitals, read letter by letter."""
    letters = word.rstrip("'s")
    return len(letters) > 1 and letters.isalpha() and letters.isupper()


def is_name(text: str) -> bool:
    """Does a (surface-cased) phrase start with a proper name ('Harry Potter', 'London')?"""
    first = text.split(" ", 1)[0] if text else ""
    return bool(first) and first[0].isupper() and not is_acronym(first)


def _unchecked(target: Any = None, **_: Any) -> Any:
    """Stands in for ``typeguard.typechecked`` while inflect is imported (see ``_inflect``)."""
    return target if target is not None else (lambda inner: inner)


@lru_cache(maxsize=1)
def _inflect() -> "inflect.engine":  # noqa: F821 - imported lazily
    if "inflect" not in sys.modules:
        # inflect wraps its methods in typeguard's run-time argument checks: instrumenting them
        # took ~2.4 s of CPU at import and each check ~0.2 ms per call, most of what drawing
        # 1,000 claims cost. We only ever pass it str, so it is imported without them (the
        # decorator is swapped for the import only, then put back).
        import typeguard

        checked = typeguard.typechecked
        typeguard.typechecked = _unchecked
        try:
            import inflect  # noqa: F401
        finally:
            typeguard.typechecked = checked
    import inflect

    return inflect.engine()


def _keep_case(source: str, out: str) -> str:
    return out[:1].upper() + out[1:] if source[:1].isupper() and out[:1].islower() else out


# inflect checks its arguments with typeguard on every call (about 0.2 ms each): the article and
# plural of a word never change, and a graph repeats its words, so each is worked out once.
_MORPHOLOGY_CACHE = 65536


@lru_cache(maxsize=_MORPHOLOGY_CACHE)
def article(word: str) -> str:
    """'a' or 'an' for the word that follows, by sound (inflect: "an FBI agent", "a university",
    "an hour", "an x-ray")."""
    if not word:
        return "a"
    return _inflect().a(word).split(" ", 1)[0].lower()


@lru_cache(maxsize=_MORPHOLOGY_CACHE)
def is_plural(word: str) -> bool:
    """Is ``word`` already the plural of a noun ('grades', 'bees', 'mice', 'glasses')? Its most
    common noun lemma differs and pluralizes back to it ('physics', 'news', 'bus' do not)."""
    low = word.lower()
    if low in lex.PLURAL_ONLY:
        return True
    lemmas = _lemmas(low).get("NOUN", ())
    return bool(lemmas) and lemmas[0] != low and _inflect().plural_noun(lemmas[0]) == low


@lru_cache(maxsize=_MORPHOLOGY_CACHE)
def pluralize(word: str) -> str:
    """Plural of one noun (inflect: criteria, analyses, knives, people); a plural stays as it is
    ('bees', not 'beess')."""
    low = word.lower()
    if low in lex.SAME_PLURAL or low in lex.PLURAL_ONLY or is_plural(low):
        return word
    return _keep_case(word, _inflect().plural_noun(low) or word)


@lru_cache(maxsize=_MORPHOLOGY_CACHE)
def _verb_form(verb: str, tag: str) -> str:
    """``verb`` inflected with a Penn tag (``VBZ`` runs, ``VBG`` running) by lemminflect."""
    import lemminflect

    forms = lemminflect.getInflection(verb.lower(), tag=tag)
    if not forms:
        forms = lemminflect.getInflection(verb.lower(), tag=tag, inflect_oov=True)
    return _keep_case(verb, forms[0]) if forms else verb


def third_person(phrase: str) -> str:
    """'study hard' → 'studies hard' (the first word is the verb)."""
    verb, _, rest = phrase.partition(" ")
    low = verb.lower()
    out = lex.IRREGULAR_THIRD[low] if low in lex.IRREGULAR_THIRD else _verb_form(verb, "VBZ")
    return f"{out} {rest}".strip()


def _without_to(phrase: str) -> str:
    """'to be happy' → 'be happy' (ConceptNet writes some verb phrases with their "to")."""
    return phrase[3:] if phrase[:3].lower() == "to " and len(phrase) > 3 else phrase


def gerund(phrase: str) -> str:
    """'cut bread' → 'cutting bread'; 'panic' → 'panicking' (lemminflect)."""
    verb, _, rest = _without_to(phrase).partition(" ")
    low = verb.lower()
    if low.endswith("ing") and len(low) > 4:
        out = verb
    elif low in lex.IRREGULAR_GERUND:
        out = lex.IRREGULAR_GERUND[low]
    else:
        out = _verb_form(verb, "VBG")
    return f"{out} {rest}".strip()


@lru_cache(maxsize=_MORPHOLOGY_CACHE)
def _lemmas(word: str) -> dict[str, tuple[str, ...]]:
    import lemminflect

    return lemminflect.getAllLemmas(word.lower())


def infinitive(phrase: str) -> str:
    """'cutting bread' → 'cut bread': a verb phrase led by an -ing form, in its base form (the
    phrase as it is otherwise), so "used to cutting" becomes "used to cut"; a leading "to" goes."""
    phrase = _without_to(phrase)
    verb, _, rest = phrase.partition(" ")
    low = verb.lower()
    base = _lemmas(low).get("VERB", (low,))[0]
    if low.endswith("ing") and base != low and _verb_form(base, "VBG").lower() == low:
        return f"{_keep_case(verb, base)} {rest}".strip()
    return phrase


def participle(phrase: str) -> str:
    """'mail' → 'mailed', 'eat' → 'eaten' for "can be ___" (lemminflect); a word that is already
    a participle or an adjective ('eaten', 'broken', 'open') stays."""
    verb, _, rest = phrase.partition(" ")
    lemmas = _lemmas(verb)
    if "VERB" not in lemmas or "ADJ" in lemmas:
        return phrase
    done = _verb_form(lemmas["VERB"][0], "VBN")
    return phrase if done.lower() == verb.lower() else f"{_keep_case(verb, done)} {rest}".strip()


def _bare_singular(word: str) -> bool:
    """A singular count noun that needs an article or a plural ('mouse', not 'bread' or 'home')."""
    lemmas = _lemmas(word)
    low = word.lower()
    return ("NOUN" in lemmas and not {"ADJ", "ADV"} & set(lemmas) and low not in lex.MASS_NOUNS
            and low not in lex.PLURAL_ONLY and not is_acronym(word) and not word[:1].isupper()
            and _inflect().singular_noun(low) is False)


def verb_phrase(phrase: str) -> str:
    """'catch mouse' → 'catch mice': a bare singular count noun right after the verb becomes
    plural (the generic reading, as in "cats catch mice"); any other phrase stays."""
    words = phrase.split()
    if len(words) == 2 and _bare_singular(words[1]):
        return f"{words[0]} {pluralize(words[1])}"
    return phrase


_QUANTITIES = frozenset("two three four five six seven eight nine ten eleven twelve many several few some "
                        "both".split())


_DETERMINERS = frozenset("a an the your their his her my our its some".split())


def _ing_verb(word: str, *, noun_too: bool = False) -> bool:
    """An -ing form of a verb ("staying"), not a noun of its own ("building", "scoring";
    ``noun_too``: those as well)."""
    low = word.lower()
    if not low.endswith("ing") or len(low) <= 4 or low in lex.NOUNS_ENDING_ING:
        return False
    lemmas = _lemmas(low)
    return "VERB" in lemmas and lemmas["VERB"][0] != low and (noun_too or low not in lemmas.get("NOUN", ()))


def _base_verb(word: str) -> bool:
    """A verb in its base form ("preheat", "pass", "exchange")."""
    lemmas = _lemmas(word)
    return "VERB" in lemmas and lemmas["VERB"][0] == word.lower()


def _adjective_only(word: str) -> bool:
    lemmas = _lemmas(word)
    return "ADJ" in lemmas and not {"NOUN", "VERB"} & set(lemmas)


def is_adjective(concept: Concept) -> bool:
    """One word read as an adjective ("hungry", "happy"): tagged so, or an adjective only."""
    if concept.pos in ("a", "s"):
        return True
    words = concept.text.split()
    return concept.pos is None and len(words) == 1 and _adjective_only(words[0])


def is_verbal(concept: Concept, *, event: bool = False) -> bool:
    """Does the concept read as a verb phrase ('cut bread') rather than a noun phrase?

    Untagged phrases read as verbs when they start with a common verb, with "to" ("to be
    happy"), with an -ing verb and go on ("staying dry", "scoring a goal"; one word, "cutting",
    stays a noun), or with a verb followed by a determiner ("pass an exam", "preheat the
    oven"). ``event``: the relation's tail is an event (HasSubevent, HasPrerequisite,
    MotivatedByGoal), so a verb followed by a plural noun is one too ("exchange rings")."""
    if concept.pos == "v":
        return True
    if concept.pos in ("n", "a", "s", "r"):
        return False
    words = concept.text.split()
    if not words:
        return False
    if len(words) == 1 and (words[0] in lex.MASS_NOUNS or words[0].endswith("ing")):
        return False
    first = words[0].lower()
    if first in lex.COMMON_VERBS:
        return True
    if len(words) < 2:
        return False
    if first == "to" and _base_verb(words[1]):
        return True
    if _ing_verb(first) or (_ing_verb(first, noun_too=True) and words[1].lower() in _DETERMINERS):
        return True  # "scoring a goal": "scoring" is a noun too, but not before "a goal"
    if _base_verb(first) and (words[1].lower() in _DETERMINERS or (len(words) == 2 and _adjective_only(words[1]))):
        return True  # "pass an exam", "stay healthy" (and the antonym rule's "leave healthy")
    return event and len(words) == 2 and _base_verb(first) and is_plural(words[1])


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
        if len(words) > 1 and (words[0].lower() in _QUANTITIES or words[0].isdigit()):
            return cls(text, "plural")  # "four legs": counted already, no article
        if text.lower() in lex.THE_PLACES:
            return cls(text, "unique")
        if noun in lex.PLURAL_ONLY or (noun not in lex.MASS_NOUNS and is_plural(noun)):
            return cls(text, "plural")  # "good grades", "hands": already plural, no article
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
