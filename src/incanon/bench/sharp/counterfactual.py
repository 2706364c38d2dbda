"""SHARP's transformation rules: turn a commonsense edge into a false ("ridiculous") claim.

The paper names four kinds of rule: add a negation, add an absolute qualifier, replace an entity
by its antonym, disrupt the relation between the entities. Disruption comes in two forms here,
each its own rule so the sampler can balance them: ``swap`` (head and tail trade places, for
relations where the reverse is false) and ``substitute`` (the tail is replaced by the tail of an
unrelated edge of the same relation).

Every rule is a function ``rule(edge, index=None, *, lang="en", rng=None) -> Claim | None`` and
returns None when it cannot make a clean counterfactual of that edge: no garbage claims.
The ``KnowledgeIndex`` (``knowledge.py``) is what the rules know about the rest of the graph:
antonyms, known triples (so a "counterfactual" that is in fact another edge of the graph is
refused), IsA ancestry.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from incanon.bench.sharp.claims import Claim, make_claim
from incanon.bench.sharp.conceptnet import Concept, Edge
from incanon.bench.sharp.knowledge import (
    ANTONYM_UNSAFE_RELATIONS,
    ASYMMETRIC_RELATIONS,
    LEXICAL_RELATIONS,
    NEGATIVE_RELATIONS,
    SAMENESS_RELATIONS,
    SUBSTITUTABLE_RELATIONS,
    KnowledgeIndex,
    concept_key,
)
from incanon.bench.sharp.templates import Forms, Language, get_language

RULES: tuple[str, ...] = ("negation", "absolute", "antonym", "swap", "substitute")


def _forms(edge: Edge, lang: str, head: Concept | None = None, tail: Concept | None = None
           ) -> tuple[Language, Forms | None]:
    language = get_language(lang)
    if edge.head.lang != lang or edge.tail.lang != lang:
        return language, None
    return language, language.forms(edge.relation, head or edge.head, tail or edge.tail)


def _counterfactual(edge: Edge, text: str | None, lang: str, rule: str, detail: str | None = None,
                    index: KnowledgeIndex | None = None) -> Claim | None:
    if not text:
        return None
    _, original = _forms(edge, lang)
    if original is None or text.casefold() == original.fact.casefold():
        return None
    # A "counterfactual" that an edge of the graph states as a fact is true by the graph.
    if index is not None and index.states(lang, text, edge.head, edge.tail):
        return None
    return make_claim(edge, text, label="counterfactual", lang=lang, rule=rule, detail=detail)


def negation(edge: Edge, index: KnowledgeIndex | None = None, *, lang: str = "en",
             rng: random.Random | None = None) -> Claim | None:
    """'A dog is an animal.' → 'A dog is not an animal.' (negative relations turn positive)."""
    _, forms = _forms(edge, lang)
    return _counterfactual(edge, forms.negated if forms else None, lang, "negation", "negated", index)


def absolute(edge: Edge, index: KnowledgeIndex | None = None, *, lang: str = "en",
             rng: random.Random | None = None) -> Claim | None:
    """'A dog can bark.' → 'Dogs can never bark.'; 'A hammer is a tool.' → 'Every tool is a hammer.'

    The absolute form contradicts the fact rather than overstating it. IsA edges between
    near-synonyms are refused, since "every drink is a beverage" would be true.
    """
    if edge.relation in LEXICAL_RELATIONS:
        return None
    if index is not None and edge.relation == "IsA" and _reverse_known(edge, index):
        return None
    _, forms = _forms(edge, lang)
    return _counterfactual(edge, forms.absolute if forms else None, lang, "absolute", "absolute qualifier", index)


def antonym(edge: Edge, index: KnowledgeIndex | None = None, *, lang: str = "en",
            rng: random.Random | None = None) -> Claim | None:
    """'Ice is cold.' → 'Ice is hot.': the tail (or one word of it) becomes its antonym.

    Antonyms come from the graph's Antonym edges when it has any for the word, else from the
    language's built-in lexicon. Only the tail changes: swapping the head for its antonym tends
    to give a sibling that shares the property ("Night is a time."). Abilities are left alone
    (``ANTONYM_UNSAFE_RELATIONS``): "A baby can cry." → "A baby can laugh." is still true.
    """
    if edge.relation in NEGATIVE_RELATIONS | LEXICAL_RELATIONS | ANTONYM_UNSAFE_RELATIONS:
        return None
    language, forms = _forms(edge, lang)
    if forms is None:
        return None
    origin: dict[str, str] = {}
    tail_is_verb = language.verbal(edge.tail)

    def opposites(word: str, position: int) -> list[str]:
        # The first word of a verb phrase is its verb; every other word is not.
        verb = tail_is_verb if position <= 0 else False
        found = index.graph_antonyms(lang, word, verb=verb) if index is not None else []
        where = "graph"
        if not found:
            table = language.verb_antonyms if verb else language.antonyms
            fallback = table.get(word.casefold())
            found, where = ([fallback] if fallback else []), "lexicon"
        for w in found:
            origin[w] = where
        return found

    for new_text, old, new in language.replacements(edge.tail.text, opposites):
        new_tail = edge.tail.with_text(new_text)
        if index is not None and (index.implied(edge.relation, edge.head, new_tail)
                                  or index.linked(edge.head, new_tail)):
            continue
        _, changed = _forms(edge, lang, tail=new_tail)
        claim = _counterfactual(edge, changed.fact if changed else None, lang, "antonym",
                                f"{old!r} -> {new!r} (antonym from {origin.get(new, 'lexicon')})", index)
        if claim is not None:
            return claim
    return None


def _reverse_known(edge: Edge, index: KnowledgeIndex) -> bool:
    h, t = concept_key(edge.head), concept_key(edge.tail)
    return (t, h) in index.pairs or any((r, h, t) in index.triples or (r, t, h) in index.triples
                                        for r in SAMENESS_RELATIONS)


def swap(edge: Edge, index: KnowledgeIndex | None = None, *, lang: str = "en",
         rng: random.Random | None = None) -> Claim | None:
    """'A wheel is part of a car.' → 'A car is part of a wheel.' (asymmetric relations only)."""
    language = get_language(lang)
    if edge.relation not in ASYMMETRIC_RELATIONS or language.verbal(edge.head) or language.verbal(edge.tail):
        return None
    if edge.head.text.casefold() == edge.tail.text.casefold():
        return None
    if index is not None and _reverse_known(edge, index):
        return None
    _, forms = _forms(edge, lang, head=edge.tail, tail=edge.head)
    return _counterfactual(edge, forms.fact if forms else None, lang, "swap", "head and tail swapped", index)


_SUBSTITUTE_TRIES = 64


def _content_words(language: Language, text: str) -> set[str]:
    return {w.casefold() for w in language.words(text) if len(w) > 2 or not language.word_sep}


def substitute(edge: Edge, index: KnowledgeIndex | None = None, *, lang: str = "en",
               rng: random.Random | None = None) -> Claim | None:
    """'A dog can bark.' → 'A dog can attract iron.': the tail of another edge of the relation.

    The donor's head must differ and not be taxonomic kin (no shared IsA ancestor); the new pair
    must not be joined by any edge of the graph nor follow from an IsA ancestor; the new tail
    shares no word with the old one ("cut paper" for "cut bread" is often still true). Only
    relations with specific tails (``SUBSTITUTABLE_RELATIONS``) are disrupted this way.
    Needs an index to draw from; ``rng`` picks the donor (default: seeded from the edge, so
    the result is reproducible).
    """
    if index is None or edge.relation not in SUBSTITUTABLE_RELATIONS:
        return None
    donors = index.donors(edge.head.lang, edge.relation)
    if len(donors) < 2:
        return None
    rng = rng or random.Random(f"substitute|{edge.uri}|{edge.key}")
    language = get_language(lang)
    old_words = _content_words(language, edge.tail.text)
    for pick in rng.sample(range(len(donors)), min(_SUBSTITUTE_TRIES, len(donors))):
        donor = donors[pick]
        new_tail = donor.tail
        name = new_tail.text.casefold()
        if (
            donor.head.text.casefold() == edge.head.text.casefold()
            or new_tail.lang != edge.tail.lang
            or name in (edge.tail.text.casefold(), edge.head.text.casefold())
            or (new_tail.pos and edge.tail.pos and new_tail.pos != edge.tail.pos)
            or index.implied(edge.relation, edge.head, new_tail)
            or index.linked(edge.head, new_tail)
            or index.siblings(edge.head, donor.head)
            or old_words & _content_words(language, new_tail.text)  # "cut bread" ~ "cut paper"
        ):
            continue
        _, forms = _forms(edge, lang, tail=new_tail)
        claim = _counterfactual(edge, forms.fact if forms else None, lang, "substitute",
                                f"tail {edge.tail.text!r} -> {new_tail.text!r} from {donor.uri or donor.key}", index)
        if claim is not None:
            return claim
    return None


Rule = Callable[..., "Claim | None"]

RULE_FUNCTIONS: dict[str, Rule] = {
    "negation": negation,
    "absolute": absolute,
    "antonym": antonym,
    "swap": swap,
    "substitute": substitute,
}
