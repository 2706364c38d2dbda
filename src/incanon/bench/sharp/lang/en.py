"""English claim templates, one function per ConceptNet relation.

Each function returns (fact, negated, absolute) clauses; ``Language.forms`` capitalises and
punctuates them. The absolute form is a universal or "never" statement: when the fact is
commonsense (it holds typically, or for some members), the absolute form is false, which is
what makes it a counterfactual rather than merely a stronger claim.
"""

from __future__ import annotations

from incanon.bench.sharp.conceptnet import Concept
from incanon.bench.sharp.lang import _en_lexicon as lex
from incanon.bench.sharp.lang._en_grammar import (NP, gerund, infinitive, is_adjective, is_verbal, participle,
                                                  place_phrase, third_person, verb_phrase)
from incanon.bench.sharp.templates import Forms, Language, register_language

EN = Language(
    code="en",
    name="English",
    antonyms=dict(lex.ANTONYMS),
    verb_antonyms=dict(lex.VERB_ANTONYMS),
    claim_exclude=frozenset({"Antonym", "Synonym"}),
    verbal=is_verbal,
    determiners=frozenset("the a an my your his her its our their this that these those".split()),
)
relation = EN.relation

_ABSTRACT_SUFFIXES = ("tion", "sion", "ment", "ness", "ity", "ance", "ence", "ism", "ing")


def _object(concept: Concept) -> str:
    """A noun after a preposition: bare when abstract or mass ('for transportation'), else 'a ...'."""
    np = NP.of(concept)
    if np.kind == "count" and np.text.lower().endswith(_ABSTRACT_SUFFIXES):
        return np.text
    return np.a


def _to_or_object(concept: Concept, noun_prefix: str = "", *, event: bool = False) -> str:
    """'to cut bread' for a verb phrase, 'to be happy' for an adjective, else '<noun_prefix> a
    noun' (never "a staying dry", "a to be happy", "a hungry": an article is for nouns)."""
    if is_verbal(concept, event=event):
        return f"to {verb_phrase(infinitive(concept.text))}"
    if is_adjective(concept):
        return f"to be {concept.text}"
    return f"{noun_prefix}{_object(concept)}".strip()


def _event(concept: Concept) -> str:
    """An event after "involves": 'exchanging rings' for a verb phrase, else 'a noun'."""
    return gerund(concept.text) if is_verbal(concept, event=True) else NP.of(concept).a


def _do(np: NP) -> str:
    return "do" if np.kind == "plural" else "does"


@relation("IsA")
def _is_a(head: Concept, tail: Concept) -> Forms:
    h, t = NP.of(head), NP.of(tail)
    return Forms(
        f"{h.a} {h.be} {t.a}",
        f"{h.a} {h.be} not {t.a}",
        f"{t.every} {t.be} {h.a}",  # the class is wider than one member: "Every animal is a dog."
    )


@relation("UsedFor")
def _used_for(head: Concept, tail: Concept) -> Forms:
    h = NP.of(head)
    purpose = _to_or_object(tail, "for ")
    return Forms(
        f"{h.a} {h.be} used {purpose}",
        f"{h.a} {h.be} not used {purpose}",
        f"{h.pl} {h.pl_be} never used {purpose}",
    )


@relation("CapableOf")
def _capable_of(head: Concept, tail: Concept) -> Forms:
    h = NP.of(head)
    act = verb_phrase(infinitive(tail.text))  # ConceptNet's CapableOf tails are verb phrases ("bark", "climb trees")
    return Forms(f"{h.a} can {act}", f"{h.a} cannot {act}", f"{h.pl} can never {act}")


@relation("HasProperty")
def _has_property(head: Concept, tail: Concept) -> Forms:
    h = NP.of(head)
    prop = NP.of(tail).a if tail.pos == "n" else tail.text
    return Forms(f"{h.a} {h.be} {prop}", f"{h.a} {h.be} not {prop}", f"{h.pl} {h.pl_be} never {prop}")


@relation("AtLocation")
def _at_location(head: Concept, tail: Concept) -> Forms:
    h, where = NP.of(head), place_phrase(tail)
    return Forms(
        f"you can find {h.a} {where}",
        f"you cannot find {h.a} {where}",
        f"{h.pl} {h.pl_be} never found {where}",
    )


@relation("PartOf")
def _part_of(head: Concept, tail: Concept) -> Forms:
    h, t = NP.of(head), NP.of(tail)
    return Forms(
        f"{h.a} {h.be} part of {t.a}",
        f"{h.a} {h.be} not part of {t.a}",
        f"{t.pl} never {t.pl_verb('have')} {h.pl}",
    )


def _owned(tail: Concept) -> str:
    t = NP.of(tail)
    return t.pl if t.text.lower() in lex.PLURAL_PARTS else t.a


@relation("HasA")
def _has_a(head: Concept, tail: Concept) -> Forms:
    h, owned = NP.of(head), _owned(tail)
    return Forms(
        f"{h.a} {h.a_verb('have')} {owned}",
        f"{h.a} {_do(h)} not have {owned}",
        f"{h.no} {h.a_verb('have')} {owned}",
    )


@relation("Desires")
def _desires(head: Concept, tail: Concept) -> Forms:
    h, wish = NP.of(head), _to_or_object(tail)
    return Forms(
        f"{h.a} {h.a_verb('want')} {wish}",
        f"{h.a} {_do(h)} not want {wish}",
        f"{h.pl} never {h.pl_verb('want')} {wish}",
    )


@relation("MadeOf")
def _made_of(head: Concept, tail: Concept) -> Forms:
    h, stuff = NP.of(head), NP.of(tail).pl
    return Forms(
        f"{h.a} {h.be} made of {stuff}",
        f"{h.a} {h.be} not made of {stuff}",
        f"{h.pl} {h.pl_be} never made of {stuff}",
    )


@relation("HasPrerequisite")
def _has_prerequisite(head: Concept, tail: Concept) -> Forms:
    lead = f"to {infinitive(head.text)}" if is_verbal(head, event=True) else f"for {_object(head)}"
    need = _to_or_object(tail, event=True)
    return Forms(
        f"{lead}, you need {need}",
        f"{lead}, you do not need {need}",
        f"{lead}, you never need {need}",
    )


@relation("CausesDesire")
def _causes_desire(head: Concept, tail: Concept) -> Forms:
    h, wish = NP.of(head), _to_or_object(tail)
    return Forms(
        f"{h.a} {h.a_verb('make')} you want {wish}",
        f"{h.a} {_do(h)} not make you want {wish}",
        f"{h.a} never {h.a_verb('make')} anyone want {wish}",
    )


_THEIR = {"your": "their", "yourself": "themselves", "you": "them"}


def _their(phrase: str) -> str:
    """'brush your teeth' → 'brush their teeth' (the subject becomes 'people')."""
    return " ".join(_THEIR.get(w, w) for w in phrase.split())


@relation("MotivatedByGoal")
def _motivated_by_goal(head: Concept, tail: Concept) -> Forms | None:
    if not is_verbal(head, event=True):
        return None
    act = _their(infinitive(head.text))
    if is_adjective(tail):  # eat → hungry: the goal is said as the state that moves them
        reason = f"because they are {tail.text}"
    else:
        reason = f"because they want {_their(_to_or_object(tail, event=True))}"
    return Forms(
        f"people {act} {reason}",
        f"people do not {act} {reason}",
        f"nobody ever {third_person(act)} {reason}",
    )


@relation("ReceivesAction")
def _receives_action(head: Concept, tail: Concept) -> Forms:
    h, done = NP.of(head), participle(tail.text)  # "A letter can be mailed.", not "... be mail."
    return Forms(f"{h.a} can be {done}", f"{h.a} cannot be {done}", f"{h.pl} can never be {done}")


@relation("CreatedBy")
def _created_by(head: Concept, tail: Concept) -> Forms:
    h, t = NP.of(head), NP.of(tail)
    maker = t.a if h.kind == "count" else t.pl  # "A cake ... by a baker", "Honey ... by bees"
    return Forms(
        f"{h.a} {h.be} made by {maker}",
        f"{h.a} {h.be} not made by {maker}",
        f"{h.pl} {h.pl_be} never made by {t.pl}",
    )


@relation("Causes")
def _causes(head: Concept, tail: Concept) -> Forms:
    h = NP.of(head)
    if is_verbal(tail):
        effect, never = f"make you {tail.text}", f"{h.a_verb('make')} you {tail.text}"
    else:
        effect = _object(tail)
        never, effect = f"{h.a_verb('cause')} {effect}", f"cause {effect}"
    return Forms(f"{h.a} can {effect}", f"{h.a} cannot {effect}", f"{h.a} never {never}")


@relation("HasSubevent")
def _has_subevent(head: Concept, tail: Concept) -> Forms:
    h, event = NP.of(head), _event(tail)
    return Forms(
        f"{h.a} {h.a_verb('involve')} {event}",
        f"{h.a} {_do(h)} not involve {event}",
        f"{h.a} never {h.a_verb('involve')} {event}",
    )


def _first_last(which: str, head: Concept, tail: Concept) -> Forms | None:
    if not (is_verbal(head) and is_verbal(tail)):
        return None
    return Forms(
        f"the {which} thing you do when you {head.text} is {tail.text}",
        f"the {which} thing you do when you {head.text} is not {tail.text}",
        f"when you {head.text}, you never {tail.text}",
    )


@relation("HasFirstSubevent")
def _has_first_subevent(head: Concept, tail: Concept) -> Forms | None:
    return _first_last("first", head, tail)


@relation("HasLastSubevent")
def _has_last_subevent(head: Concept, tail: Concept) -> Forms | None:
    return _first_last("last", head, tail)


@relation("LocatedNear")
def _located_near(head: Concept, tail: Concept) -> Forms:
    h, t = NP.of(head), NP.of(tail)
    return Forms(
        f"{h.a} {h.be} often found near {t.a}",
        f"{h.a} {h.be} not found near {t.a}",
        f"{h.pl} {h.pl_be} never found near {t.pl}",
    )


@relation("SymbolOf")
def _symbol_of(head: Concept, tail: Concept) -> Forms:
    h, t = NP.of(head), _object(tail)
    return Forms(f"{h.a} {h.be} a symbol of {t}", f"{h.a} {h.be} not a symbol of {t}")


@relation("NotCapableOf")
def _not_capable_of(head: Concept, tail: Concept) -> Forms:
    h, act = NP.of(head), verb_phrase(infinitive(tail.text))
    return Forms(f"{h.a} cannot {act}", f"{h.a} can {act}")


@relation("NotDesires")
def _not_desires(head: Concept, tail: Concept) -> Forms:
    h, wish = NP.of(head), _to_or_object(tail)
    return Forms(f"{h.a} {_do(h)} not want {wish}", f"{h.a} {h.a_verb('want')} {wish}")


@relation("Antonym")
def _antonym(head: Concept, tail: Concept) -> Forms:
    return Forms(f"the opposite of {head.text} is {tail.text}", f"the opposite of {head.text} is not {tail.text}")


@relation("Synonym")
def _synonym(head: Concept, tail: Concept) -> Forms:
    return Forms(f"{head.text} means the same as {tail.text}", f"{head.text} does not mean the same as {tail.text}")


register_language(EN)
