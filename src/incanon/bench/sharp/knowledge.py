"""What the counterfactual rules know about the graph: known triples, antonyms, IsA ancestry.

A counterfactual is only useful if it is false. The rules check every candidate against the
whole graph handed to ``build_claims``: a "counterfactual" that is another edge of the graph, or
follows from an IsA ancestor, or pairs kin concepts, is refused. The relation sets below say
which rules suit which relations, with the reason next to each.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

import zhconv

from incanon.bench.sharp.conceptnet import Concept, Edge
from incanon.bench.sharp.templates import get_language

# Relations whose facts are negative: negating them is fine, the other rules would make claims
# that are usually still true ("A penguin cannot fly." → "A penguin cannot sing.").
NEGATIVE_RELATIONS = frozenset({"NotCapableOf", "NotDesires", "NotHasProperty", "NotUsedFor", "DistinctFrom"})
LEXICAL_RELATIONS = frozenset({"Antonym", "Synonym", "SimilarTo", "RelatedTo", "FormOf", "DerivedFrom",
                               "EtymologicallyRelatedTo", "EtymologicallyDerivedFrom"})
# Reversing these gives a false statement ("A car is part of a wheel.").
_INVERSE = {"PartOf": "HasA", "HasA": "PartOf"}
"""Relations that say the same fact from the other end ("a wheel is part of a car": "a car has
a wheel")."""

ASYMMETRIC_RELATIONS = frozenset({"IsA", "PartOf", "MadeOf", "HasA", "AtLocation", "CreatedBy"})
SAMENESS_RELATIONS = frozenset({"Synonym", "SimilarTo"})
# Abilities and possible actions are not exclusive: what can cry can usually laugh, and a door
# that can be opened can be closed. An antonym there often gives another truth.
ANTONYM_UNSAFE_RELATIONS = frozenset({"CapableOf", "ReceivesAction"})
# Relations whose tails are specific enough that a tail from another head is usually false.
# Left out: AtLocation (most things can be found in many places), ReceivesAction (most things
# can be opened, mailed, washed), causes, goals and desires ("An earthquake can cause pain.",
# "People go to bed because they want to keep warm." are plausible).
SUBSTITUTABLE_RELATIONS = frozenset({"IsA", "UsedFor", "CapableOf", "HasProperty", "PartOf", "HasA",
                                     "MadeOf", "CreatedBy"})
_ANCESTOR_DEPTH = 3
# IsA ancestors so general that sharing them says nothing about shared properties.
GENERIC_ANCESTORS = frozenset({"thing", "object", "entity", "item", "something", "physical object",
                               "artifact", "artefact", "concept", "whole", "unit", "matter", "stuff"})

_Key = tuple[str, str]  # (language, casefolded text)
_NO_DONORS = NEGATIVE_RELATIONS | LEXICAL_RELATIONS
"""Relations whose edges are never donors to the substitute rule (made once, not per edge)."""


@lru_cache(maxsize=65536)
def _fold(lang: str, text: str) -> str:
    # Chinese graphs mix scripts (ConceptNet's PTT edges are traditional, users' graphs often
    # simplified): "動物" and "动物" are one concept to the index.
    folded = text.casefold()
    return zhconv.convert(folded, "zh-hans") if lang.startswith("zh") else folded


def concept_key(concept: Concept) -> _Key:
    """(language, casefolded text, Chinese in simplified script): how the index names a concept."""
    return (concept.lang, _fold(concept.lang, concept.text))


def text_key(lang: str, text: str) -> str:
    """A claim sentence as the index compares sentences: folded, without spaces or end mark."""
    return "".join(_fold(lang, text).rstrip(".!?。！？").split())


class KnowledgeIndex:
    """What the rules may consult about the graph the edges came from."""

    def __init__(self, edges: Iterable[Edge] = ()):
        self.triples: set[tuple[str, _Key, _Key]] = set()
        self.pairs: set[tuple[_Key, _Key]] = set()
        self.antonyms: dict[_Key, dict[tuple[str, str | None], float]] = defaultdict(dict)
        self.parents: dict[_Key, set[str]] = defaultdict(set)
        self.by_relation: dict[tuple[str, str], list[Edge]] = defaultdict(list)
        self._sorted: set[tuple[str, str]] = set()
        self.by_head: dict[_Key, list[Edge]] = defaultdict(list)
        self.by_tail: dict[_Key, list[Edge]] = defaultdict(list)
        self._true: dict[_Key, frozenset[str]] = {}
        """Per head: the facts its edges state, as ``text_key`` sentences (rendered on demand)."""
        self._ancestors: dict[_Key, frozenset[str]] = {}
        """IsA ancestry per concept, computed once: the substitute rule asks for it up to 64
        times per edge (donor by donor), which dominated claim building on large graphs."""
        for edge in edges:
            self.add(edge)

    def add(self, edge: Edge) -> None:
        """Index one edge."""
        h, t = concept_key(edge.head), concept_key(edge.tail)
        self.triples.add((edge.relation, h, t))
        self.pairs.add((h, t))
        self.by_head[h].append(edge)
        self.by_tail[t].append(edge)
        self._true.clear()  # a head's facts include its ancestors' and inverse edges
        if edge.relation == "Antonym" and edge.head.lang == edge.tail.lang:
            for a, b in ((edge.head, edge.tail), (edge.tail, edge.head)):
                entry = (b.text, b.pos if b.pos == a.pos else None)
                prev = self.antonyms[concept_key(a)].get(entry, float("-inf"))
                self.antonyms[concept_key(a)][entry] = max(prev, edge.weight)
        elif edge.relation == "IsA":
            self.parents[h].add(t[1])
            self._ancestors.clear()
        if edge.relation not in _NO_DONORS:
            self.by_relation[(edge.head.lang, edge.relation)].append(edge)
            self._sorted.discard((edge.head.lang, edge.relation))

    def donors(self, lang: str, relation: str) -> list[Edge]:
        """Edges of one relation in a fixed order (so draws do not depend on input order)."""
        key = (lang, relation)
        found = self.by_relation.get(key, [])
        if key not in self._sorted:
            found.sort(key=lambda e: (e.key, e.uri))
            self._sorted.add(key)
        return found

    def knows(self, relation: str, head: Concept, tail: Concept) -> bool:
        """Is (head, relation, tail) an edge of the graph?"""
        return (relation, concept_key(head), concept_key(tail)) in self.triples

    def linked(self, a: Concept, b: Concept) -> bool:
        """Does any edge join a and b, in either direction?"""
        return (concept_key(a), concept_key(b)) in self.pairs or (concept_key(b), concept_key(a)) in self.pairs

    def graph_antonyms(self, lang: str, word: str, *, verb: bool | None = None) -> list[str]:
        """Antonyms from the graph's Antonym edges, highest weight first.

        ``verb=True`` keeps verb antonyms (or untagged ones), ``False`` keeps non-verbs.
        """
        found = self.antonyms.get((lang, _fold(lang, word)), {})
        ranked = sorted(found.items(), key=lambda kv: (-kv[1], kv[0][0]))
        out: list[str] = []
        for (text, pos), _ in ranked:
            if verb is not None and pos is not None and (pos == "v") != verb:
                continue
            if text not in out:
                out.append(text)
        return out

    def ancestors(self, concept: Concept) -> frozenset[str]:
        """IsA parents, their parents, ... (a few levels), as casefolded texts."""
        key = concept_key(concept)
        cached = self._ancestors.get(key)
        if cached is None:
            cached = self._ancestors[key] = frozenset(self._climb(key))
        return cached

    def _climb(self, start: _Key) -> set[str]:
        found: set[str] = set()
        frontier = {start}
        for _ in range(_ANCESTOR_DEPTH):
            nxt = {(key[0], p) for key in frontier for p in self.parents.get(key, ())}
            nxt = {key for key in nxt if key[1] not in found}
            found |= {key[1] for key in nxt}
            frontier = nxt
        return found

    def implied(self, relation: str, head: Concept, tail: Concept) -> bool:
        """Is the triple known, or inherited from an IsA ancestor of the head ("A shark can
        swim" from "A fish can swim"), or, for IsA, is the tail an ancestor of the head?"""
        if self.knows(relation, head, tail):
            return True
        ancestors = self.ancestors(head)
        if relation == "IsA" and concept_key(tail)[1] in ancestors:
            return True
        t = concept_key(tail)
        return any((relation, (head.lang, a), t) in self.triples for a in ancestors)

    def siblings(self, a: Concept, b: Concept) -> bool:
        """Are a and b taxonomic kin: one an ancestor of the other, or both under a common IsA
        ancestor that is not one of the catch-alls (thing, object...)? Kin tend to share
        abilities and parts, so a tail taken from one often holds for the other."""
        up_a, up_b = self.ancestors(a), self.ancestors(b)
        if concept_key(a)[1] in up_b or concept_key(b)[1] in up_a:
            return True
        return bool((up_a & up_b) - GENERIC_ANCESTORS)

    def states(self, lang: str, text: str, *concepts: Concept) -> bool:
        """Does an edge of the graph whose head is one of ``concepts`` state ``text`` as its fact?
        A counterfactual that does ("狗会跑。" where the graph says a dog can run, reached by
        negating a contradicting NotCapableOf edge) is true by the graph, so it is refused."""
        language = get_language(lang)
        wanted = text_key(lang, text)
        for concept in concepts:
            key = concept_key(concept)
            if key not in self._true:
                self._true[key] = frozenset(text_key(lang, f.fact) for f in self._facts_of(language, concept)
                                            if f is not None and f.fact)
            if wanted in self._true[key]:
                return True
        return False

    def _facts_of(self, language: Any, concept: Concept) -> Iterator[Any]:
        """The forms of what the graph says of ``concept``: its own edges; its IsA ancestors'
        edges said of it ("人会哭" with 医生 IsA 人 says "医生会哭"); and a part's edge said by
        the whole ("尾巴是鸟的一部分" says "鸟有尾巴", and "A bird has a tail" says "A tail is part
        of a bird")."""
        key = concept_key(concept)
        for e in self.by_head.get(key, ()):
            yield language.forms(e.relation, e.head, e.tail)
        for ancestor in self.ancestors(concept):
            for e in self.by_head.get((key[0], ancestor), ()):
                if e.relation not in ("IsA", "Antonym", "Synonym") and not e.relation.startswith("Not"):
                    yield language.forms(e.relation, concept, e.tail)
        for e in self.by_tail.get(key, ()):
            if e.relation in _INVERSE:
                yield language.forms(_INVERSE[e.relation], concept, e.head)
