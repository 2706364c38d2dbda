"""A grammar check for English template claims: a list of forbidden patterns.

The templates build claims from ConceptNet phrases whose part of speech is often unknown, and
the mistakes they make are few and regular: an article in front of a verb phrase ("used for a
staying dry", "need a preheat the oven", "wants a to be happy", "want a hungry"), or a bare verb
where a noun is needed ("involves exchange rings"). ``problems`` names each such pattern in a
sentence; a claim set is checked with ``ungrammatical``. It is a check of the templates'
output, not a parser: it knows only the forms the templates produce, and each pattern is kept
because it was seen to fail (``tests/bench/sharp/test_sharp_en_check.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from incanon.bench.sharp.lang import _en_lexicon as lex

_ARTICLE = re.compile(r"\b(a|an)\s+([A-Za-z'-]+)(?:\s+([A-Za-z'-]+))?", re.I)
_AFTER_VERB = re.compile(r"\b(involves?|needs?|wants?|causes?)\s+([a-z'-]+)\s+([a-z'-]+)")
_DETERMINERS = frozenset("a an the your their his her my our its some".split())
_DITRANSITIVE = frozenset("give gives show shows tell tells send sends offer offers bring brings buy buys".split())


@lru_cache(maxsize=8192)
def _lemmas(word: str) -> dict[str, tuple[str, ...]]:
    import lemminflect

    return lemminflect.getAllLemmas(word.lower())


@lru_cache(maxsize=8192)
def _ing(word: str) -> bool:
    """An -ing form of a verb that is not also a noun of its own ("staying", "scoring"; not
    "building", "wedding", "ring")."""
    low = word.lower()
    if not low.endswith("ing") or len(low) <= 4 or low in lex.NOUNS_ENDING_ING:
        return False
    lemmas = _lemmas(low)
    return "VERB" in lemmas and lemmas["VERB"][0] != low and low not in lemmas.get("NOUN", ())


@lru_cache(maxsize=8192)
def _bare_verb(word: str) -> bool:
    """A verb in its base form that is no noun or adjective ("preheat", "exchange" is a noun)."""
    lemmas = _lemmas(word)
    return "VERB" in lemmas and lemmas["VERB"][0] == word.lower() and not {"NOUN", "ADJ"} & set(lemmas)


@lru_cache(maxsize=8192)
def _verb_first(word: str) -> bool:
    """A base-form verb, whatever else the word can be ("exchange", "pass", "score")."""
    lemmas = _lemmas(word)
    return "VERB" in lemmas and lemmas["VERB"][0] == word.lower()


@lru_cache(maxsize=8192)
def _adjective_only(word: str) -> bool:
    lemmas = _lemmas(word)
    return "ADJ" in lemmas and not {"NOUN", "VERB"} & set(lemmas)


def problems(sentence: str) -> list[str]:
    """The forbidden patterns ``sentence`` holds, each as a short reason (empty: none found)."""
    found: list[str] = []
    for m in _ARTICLE.finditer(sentence):
        word, nxt = m[2], (m[3] or "")
        before = sentence[: m.start()].split()
        if word.lower() == "to":
            found.append(f"an article before an infinitive: {m[0]!r}")
        elif _ing(word) and (not nxt or nxt.lower() in _DETERMINERS or not _lemmas(nxt).get("NOUN")):
            # "a scoring a goal", "a staying dry", "an eating too much"; "a rolling pin" is a noun.
            found.append(f"an article before a gerund: {m[0]!r}")
        elif _bare_verb(word):
            found.append(f"an article before a verb: {m[0]!r}")
        elif nxt.lower() in _DETERMINERS and not (before and before[-1].lower() in _DITRANSITIVE):
            found.append(f"an article before a verb phrase: {m[0]!r}")
        elif _adjective_only(word) and (not nxt or not _lemmas(nxt).get("NOUN")):
            found.append(f"an article before an adjective alone: {m[0]!r}")
        elif nxt and _adjective_only(nxt) and re.match(r"\s*[.,;!?]|\s*$", sentence[m.end():]):
            found.append(f"a noun with an adjective after it: {m[0]!r}")  # "want a leave healthy."
    for m in _AFTER_VERB.finditer(sentence):
        verb, word, nxt = m[1], m[2], m[3]
        if word in _DETERMINERS or word == "to" or word.endswith("ing") or not _verb_first(word):
            continue
        if nxt in _DETERMINERS or (_lemmas(nxt).get("NOUN") and _plural(nxt)) or _bare_verb(word):
            found.append(f"a bare verb after {verb!r}: {m[0]!r}")
    return found


def _plural(word: str) -> bool:
    from incanon.bench.sharp.lang._en_grammar import is_plural

    return is_plural(word)


def ungrammatical(sentences: Iterable[str]) -> dict[str, list[str]]:
    """Each sentence with a forbidden pattern, with what was found."""
    return {s: p for s in sentences if (p := problems(s))}
