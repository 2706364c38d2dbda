"""Chinese claim templates, one function per ConceptNet relation (``/c/zh/...`` edges).

Each function returns (fact, negated, absolute) clauses; ``Language.forms`` adds the full stop
(。). Chinese needs no articles, plurals or agreement, so the templates are plain frames; the
absolute form ("所有的动物都是狗", "狗从来都不会叫") contradicts a commonsense fact the way the
English "every" / "never" forms do. Words are found by a greedy longest match against the
antonym and verb lists, so the antonym rule swaps "干净" for "脏", not one character of it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import zhconv

from incanon.bench.sharp.conceptnet import Concept
from incanon.bench.sharp.lang import _zh_lexicon as lex
from incanon.bench.sharp.templates import Forms, Language, register_language

_LONGEST = max(len(w) for w in lex.VOCABULARY)


def segment(text: str) -> list[str]:
    """Greedy longest-match words: known words whole, anything else one character at a time."""
    words: list[str] = []
    i = 0
    text = "".join(text.split())
    while i < len(text):
        for size in range(min(_LONGEST, len(text) - i), 0, -1):
            piece = text[i:i + size]
            if size == 1 or piece in lex.VOCABULARY:
                words.append(piece)
                i += size
                break
    return words


def is_verbal(concept: Concept) -> bool:
    """Does the concept read as a verb phrase ('吃饭') rather than a noun ('米饭')?"""
    if concept.pos == "v":
        return True
    if concept.pos in ("n", "a", "s", "r"):
        return False
    words = segment(concept.text)
    return len(words) > 1 and words[0] in lex.COMMON_VERBS


def swappable(words: list[str], i: int) -> bool:
    """A one-character word right after a character the segmenter does not know is the second
    half of a word ("爬高": climb high, "成長"), not a word of its own: swapping it alone makes
    no word ("爬矮"). A character after a known word ("很高", "好成績"'s "好") may be swapped."""
    return not (len(words[i]) == 1 and i > 0 and len(words[i - 1]) == 1 and words[i - 1] not in lex.VOCABULARY)


ZH = Language(
    code="zh",
    name="中文",
    antonyms=dict(lex.ANTONYMS),
    verb_antonyms=dict(lex.VERB_ANTONYMS),
    claim_exclude=frozenset({"Antonym", "Synonym"}),
    verbal=is_verbal,
    word_sep="",
    segment=segment,
    swappable=swappable,
    end_mark="。",
)


@lru_cache(maxsize=65536)
def simplified(text: str) -> str:
    """``text`` in simplified characters (zhconv's character and phrase tables)."""
    return zhconv.convert(text, "zh-hans")


def is_traditional(text: str) -> bool:
    """Does ``text`` hold a character written differently in simplified script?"""
    return simplified(text) != text


@lru_cache(maxsize=65536)
def traditional(text: str) -> str:
    """``text`` in traditional characters as Taiwan writes them (ConceptNet's PTT edges are
    Taiwanese: 為, 裡, 吃 rather than 爲, 裏, 喫)."""
    return zhconv.convert(text, "zh-tw")


_H, _T = "\x00H\x00", "\x00T\x00"


def relation(name: str, *, place: bool = False):  # noqa: ANN201 - a decorator factory like Language.relation
    """Register a template; each claim is in one script: traditional when either concept is
    (as ConceptNet's PTT edges are), else simplified, so a graph mixing scripts ("樂器" with
    "钢琴") never mixes them in a sentence. A concept already in the claim's script keeps its
    own characters; the frame and a concept in the other script are converted. ``place``: the
    tail is a place the frame follows with 里, which a tail ending in a locative already has
    ("在海裡可以找到魚", never "海裡裡"), and the head is a thing, said without one (the swap
    rule's "在魚裡可以找到海", never "找到海裡")."""

    def register(fn):  # noqa: ANN001, ANN202
        def render(head: Concept, tail: Concept) -> Forms | None:
            # Placeholders keep the concepts out of the frame's conversion (a phrase table
            # could otherwise change a word that runs across the frame and a concept).
            forms = fn(Concept(uri="", lang="zh", text=_H), Concept(uri="", lang="zh", text=_T))
            if forms is None:
                return None
            if is_traditional(head.text) or is_traditional(tail.text):
                frame, h, t = traditional, _keep_or(head.text, traditional), _keep_or(tail.text, traditional)
            else:
                frame, h, t = (lambda c: c), head.text, tail.text
            if place:
                h = _thing(h)
                if t.endswith(_LOCATIVE) and len(t) > 1:
                    forms = Forms(*(None if c is None else c.replace(_T + "里", _T) for c in forms))
            return Forms(*(None if c is None else frame(c).replace(_H, h).replace(_T, t) for c in forms))

        ZH.relation(name)(render)
        return fn

    return register


def _keep_or(text: str, convert: Callable[[str], str]) -> str:
    """A concept already traditional keeps its characters; any other, or one mixing scripts
    (a traditional tail with a simplified antonym swapped in: "坏成績"), is converted."""
    return text if is_traditional(text) and not _has_simplified_only(text) else convert(text)


def _has_simplified_only(text: str) -> bool:
    """Does ``text`` hold a character written only in simplified script ("坏", not "好")?"""
    return any(traditional(ch) != ch and simplified(ch) == ch for ch in text)


def _de(text: str) -> str:
    """'酸' → '酸的' (a property as a predicate); '危险的' stays."""
    return text if text.endswith("的") else f"{text}的"


@relation("IsA")
def _is_a(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}是一种{t.text}", f"{h.text}不是一种{t.text}", f"所有的{t.text}都是{h.text}")


@relation("UsedFor")
def _used_for(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}可以用来{t.text}", f"{h.text}不能用来{t.text}", f"{h.text}从来都不是用来{t.text}的")


@relation("CapableOf")
def _capable_of(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}会{t.text}", f"{h.text}不会{t.text}", f"{h.text}从来都不会{t.text}")


@relation("HasProperty")
def _has_property(h: Concept, t: Concept) -> Forms:
    prop = _de(t.text)
    return Forms(f"{h.text}是{prop}", f"{h.text}不是{prop}", f"{h.text}从来都不是{prop}")


_LOCATIVE = ("里", "裡", "裏", "中", "内", "內", "上")
"""Words that end a place phrase ("海裡", "桌上"): ConceptNet's Chinese places often have one."""


def _thing(text: str) -> str:
    """A thing found somewhere, without a locative ("海裡" swapped into a thing's slot is "海")."""
    return text[:-1] if text.endswith(_LOCATIVE) and len(text) > 1 else text


@relation("AtLocation", place=True)
def _at_location(h: Concept, t: Concept) -> Forms:
    return Forms(f"在{t.text}里可以找到{h.text}", f"在{t.text}里找不到{h.text}", f"{t.text}里从来都不会有{h.text}")


@relation("PartOf")
def _part_of(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}是{t.text}的一部分", f"{h.text}不是{t.text}的一部分", f"没有任何{t.text}有{h.text}")


@relation("HasA")
def _has_a(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}有{t.text}", f"{h.text}没有{t.text}", f"没有任何{h.text}有{t.text}")


@relation("Desires")
def _desires(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}想要{t.text}", f"{h.text}不想要{t.text}", f"{h.text}从来都不想要{t.text}")


@relation("MadeOf")
def _made_of(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}是用{t.text}做的", f"{h.text}不是用{t.text}做的", f"{h.text}从来都不是用{t.text}做的")


@relation("HasPrerequisite")
def _has_prerequisite(h: Concept, t: Concept) -> Forms:
    return Forms(f"要{h.text}，就得先{t.text}", f"要{h.text}，不需要先{t.text}", f"{h.text}从来都不需要{t.text}")


@relation("CausesDesire")
def _causes_desire(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}会让人想{t.text}", f"{h.text}不会让人想{t.text}", f"{h.text}从来不会让任何人想{t.text}")


@relation("MotivatedByGoal")
def _motivated_by_goal(h: Concept, t: Concept) -> Forms:
    # ConceptNet's Chinese goals come from "因為…而…" sentences whose tail is the reason, often a
    # state ("餓"): "because they want to be hungry" (想餓) would make the fact false and its
    # negation true, so the frame says "because of" as the source did.
    return Forms(f"人们会因为{t.text}而{h.text}", f"人们不会因为{t.text}而{h.text}",
                 f"从来没有人因为{t.text}而{h.text}")


@relation("ReceivesAction")
def _receives_action(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}可以被{t.text}", f"{h.text}不能被{t.text}", f"{h.text}永远都不能被{t.text}")


@relation("CreatedBy")
def _created_by(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}是由{t.text}制造的", f"{h.text}不是由{t.text}制造的", f"{h.text}从来都不是由{t.text}制造的")


@relation("Causes")
def _causes(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}会导致{t.text}", f"{h.text}不会导致{t.text}", f"{h.text}从来都不会导致{t.text}")


@relation("HasSubevent")
def _has_subevent(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}的时候会{t.text}", f"{h.text}的时候不会{t.text}", f"{h.text}的时候从来都不会{t.text}")


@relation("HasFirstSubevent")
def _has_first_subevent(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}的第一步是{t.text}", f"{h.text}的第一步不是{t.text}", f"{h.text}的时候从来都不会{t.text}")


@relation("HasLastSubevent")
def _has_last_subevent(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}的最后一步是{t.text}", f"{h.text}的最后一步不是{t.text}",
                 f"{h.text}的时候从来都不会{t.text}")


@relation("LocatedNear")
def _located_near(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}通常在{t.text}附近", f"{h.text}不在{t.text}附近", f"{h.text}从来都不会在{t.text}附近")


@relation("SymbolOf")
def _symbol_of(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}象征着{t.text}", f"{h.text}并不象征{t.text}")


@relation("NotCapableOf")
def _not_capable_of(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}不会{t.text}", f"{h.text}会{t.text}")


@relation("NotDesires")
def _not_desires(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}不想要{t.text}", f"{h.text}想要{t.text}")


@relation("Antonym")
def _antonym(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}的反义词是{t.text}", f"{h.text}的反义词不是{t.text}")


@relation("Synonym")
def _synonym(h: Concept, t: Concept) -> Forms:
    return Forms(f"{h.text}和{t.text}意思相同", f"{h.text}和{t.text}意思不同")


register_language(ZH)
