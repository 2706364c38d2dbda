"""Claims from a ConceptNet-format graph of our own (English and Chinese edges, the assertion CSV
layout) read right, and the stance parser reads the detector texts it was found to miss. Every
claim every rule can make from the graph is checked, not only the examples."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
import zhconv

from incanon.bench.sharp.claims import edge_to_claim
from incanon.bench.sharp.conceptnet import read_assertions
from incanon.bench.sharp.counterfactual import RULE_FUNCTIONS
from incanon.bench.sharp.knowledge import KnowledgeIndex
from incanon.bench.sharp.stance import StanceDetector, parse_stance
from incanon.models import ScriptedModel

from sharp_helpers import cn_line

EDGES = [
    ("Desires", "student/n", "good_grades/n"), ("CreatedBy", "honey/n", "bees/n"), ("HasA", "clock/n", "hands/n"),
    ("IsA", "mercury/n", "metal/n"), ("HasA", "bird/n", "wings/n"), ("PartOf", "wheel/n", "car/n"),
    ("IsA", "copper/n", "metal/n"), ("AtLocation", "bees/n", "hive/n"), ("Desires", "dog/n", "bones/n"),
    ("HasA", "child/n", "toys/n"), ("CapableOf", "bee/n", "make_honey/v"), ("IsA", "physics/n", "science/n"),
    ("UsedFor", "ladder/n", "climb/v"), ("HasProperty", "ice/n", "cold/a"), ("IsA", "dog/n", "animal/n"),
    ("/c/zh/學生", "Desires", "/c/zh/好成績"), ("/c/zh/梯子", "UsedFor", "/c/zh/爬高"), ("/c/zh/冰", "HasProperty", "/c/zh/冷"),
    ("/c/zh/狗", "IsA", "/c/zh/動物"), ("/c/zh/大象", "HasProperty", "/c/zh/很大"), ("/c/zh/学生", "Desires", "/c/zh/好成绩"),
]
WRONG = ["A student wants a good grades.", "Honey is made by beess.", "A clock has a hands.", "A mercury is metal.",
         "A wings has a bird.", "梯子可以用来爬矮。", "學生想要坏成績。"]
RIGHT = ["A student wants good grades.", "Honey is made by bees.", "A clock has hands.", "Mercury is metal.",
         "Wings have a bird.", "學生想要壞成績。", "学生想要坏成绩。", "大象是很小的。"]


@pytest.fixture(scope="module")
def claims(tmp_path_factory) -> dict[str, set[str]]:
    path = tmp_path_factory.mktemp("cn") / "assertions.csv"
    lines = []
    for a, b, c in EDGES:
        lines.append(cn_line(b, a, c) if a.startswith("/c/zh") else cn_line(a, b, c))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out: dict[str, set[str]] = {}
    for lang in ("en", "zh"):
        edges = list(read_assertions(path, langs=lang))
        index = KnowledgeIndex(edges)
        texts = {c.text for c in (edge_to_claim(e, lang) for e in edges) if c is not None}
        for rule in RULE_FUNCTIONS.values():
            texts |= {c.text for c in (rule(e, index, lang=lang) for e in edges) if c is not None}
        out[lang] = texts
    return out


def test_the_listed_claims_read_right(claims):
    made = claims["en"] | claims["zh"]
    assert not set(WRONG) & made
    assert set(RIGHT) <= made


def test_no_english_claim_puts_an_article_before_a_plural_or_doubles_an_s(claims):
    plurals = {"grades", "bees", "hands", "wings", "bones", "toys"}
    for text in claims["en"]:
        assert not re.search(rf"\b(?:a|an) (?:\w+ )?(?:{'|'.join(plurals)})\b", text, re.I), text
        assert not re.search(r"\w(?:ss)\b", text.replace("glass", "")), text
        assert not text.startswith(("A mercury", "A copper", "A physics")), text


def test_every_chinese_claim_is_in_one_script(claims):
    for text in claims["zh"]:
        assert zhconv.convert(text, "zh-hans") == text or zhconv.convert(text, "zh-tw") == text, text
    assert not any("爬矮" in t or "爬低" in t for t in claims["zh"])


# What a detector answered, in Chinese and English, and the stance it means. "FAVOR/AGAINST" and
# a bare "不支持" name no one stance: they are unreadable (asked once more), never FAVOR.
STANCE_TEXTS = [
    ('{"立场": "反对", "理由": "他说这不对"}', "AGAINST"), ('{"立場": "支持", "理由": "他說對"}', "FAVOR"),
    ('```json\n{"态度": "中立"}\n```', "NEUTRAL"), ("立场是反对", "AGAINST"), ("立場為支持，因為他同意。", "FAVOR"),
    ("立场：中立", "NEUTRAL"), ("他不同意。", "AGAINST"), ("回答表示贊同。", "FAVOR"), ("他明确反对这个说法。", "AGAINST"),
    ("回答支持这个观点。", "FAVOR"), ("既不支持也不反对", "NEUTRAL"), ("他的回答既不赞同也不反对。", "NEUTRAL"),
    ("既不贊成，也不反對。", "NEUTRAL"), ("Stance: 中立", "NEUTRAL"), ("Stance：反对", "AGAINST"),
    ("态度：赞成", "FAVOR"), ('{"stance": "反对", "reason": "不对"}', "AGAINST"), ("立场: 不支持", None),
    ('{"stance": "FAVOR/AGAINST"}', None), ("Stance: FAVOR/AGAINST", None), ("Stance: AGAINST. He does not favor it.", "AGAINST"),
]


@pytest.mark.parametrize("text,stance", STANCE_TEXTS)
def test_the_detector_texts_are_read(text, stance):
    got = parse_stance(text).stance
    assert (got.value if got else None) == stance


def test_an_ambiguous_stance_is_asked_again_and_never_read_as_favor():
    model = ScriptedModel(default='{"stance": "FAVOR/AGAINST", "reason": "both"}')
    verdict = asyncio.run(StanceDetector(model).detect("Ice is cold.", "Maybe."))
    assert verdict.stance is None and verdict.repaired and len(model.calls) == 2
