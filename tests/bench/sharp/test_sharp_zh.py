"""SHARP in Chinese: claims from /c/zh/ edges, Chinese prompts, Chinese relation types."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incanon.bench.sharp import (
    AffectionMap, BuildReport, build_claims, edge_to_claim, get_language, load_relations, prompt_for,
    read_assertions,
)
from incanon.bench.sharp.counterfactual import RULE_FUNCTIONS
from incanon.bench.sharp.knowledge import KnowledgeIndex
from incanon.bench.sharp.lang.zh import segment
from incanon.errors import InputError
from incanon.templates import PromptLibrary

from sharp_helpers import cn_line, edge

EXAMPLE = Path(__file__).parents[3] / "examples" / "sharp" / "conceptnet_zh_en.csv"


def zh(rel: str, head: str, tail: str, hp: str = "n", tp: str = "n"):
    return edge(rel, f"/c/zh/{head}/{hp}", f"/c/zh/{tail}/{tp}")


def test_chinese_templates_and_the_four_rules():
    index = KnowledgeIndex([zh("HasProperty", "柠檬", "酸", tp="a"), zh("Antonym", "酸", "甜", "a", "a"),
                            zh("IsA", "狗", "动物"), zh("CapableOf", "鸟", "飞", tp="v"), zh("CapableOf", "鱼", "游泳", tp="v")])
    lemon = zh("HasProperty", "柠檬", "酸", tp="a")
    assert edge_to_claim(lemon, "zh").text == "柠檬是酸的。"
    assert RULE_FUNCTIONS["negation"](lemon, index, lang="zh").text == "柠檬不是酸的。"
    assert RULE_FUNCTIONS["absolute"](lemon, index, lang="zh").text == "柠檬从来都不是酸的。"
    antonym = RULE_FUNCTIONS["antonym"](lemon, index, lang="zh")
    assert antonym.text == "柠檬是甜的。" and "graph" in antonym.detail
    assert RULE_FUNCTIONS["swap"](zh("IsA", "狗", "动物"), index, lang="zh").text == "动物是一种狗。"
    bird = RULE_FUNCTIONS["substitute"](zh("CapableOf", "鸟", "飞", tp="v"), index, lang="zh")
    assert bird.text == "鸟会游泳。" and bird.label == "counterfactual"
    # An English edge makes no Chinese claim, and the other way round.
    assert edge_to_claim(edge("IsA", "dog/n", "animal/n"), "zh") is None


def test_lexicon_antonym_keeps_words_whole_and_traditional_graphs_get_traditional_frames():
    assert segment("很干净的水") == ["很", "干净", "的", "水"]
    room = zh("HasProperty", "房间", "干净", tp="a")
    assert RULE_FUNCTIONS["antonym"](room, KnowledgeIndex([room]), lang="zh").text == "房间是脏的。"
    ptt = edge("HasSubevent", "/c/zh/檢查", "/c/zh/經理來訪")  # ConceptNet's own PTT edge form
    assert edge_to_claim(ptt, "zh").text == "檢查的時候會經理來訪。"


def test_claims_from_a_mixed_file_are_balanced_in_each_language():
    for lang, count in (("zh", 63), ("en", 39)):
        reader = read_assertions(EXAMPLE, langs=lang)
        edges = list(reader)
        report = BuildReport()
        claims = build_claims(edges, n=24, seed=1, lang=lang, report=report)
        assert reader.stats.edges == count and len(claims) == 24 and report.balanced
        assert {c.lang for c in claims} == {lang}
        assert sum(c.label == "factual" for c in claims) == 12
    assert get_language("zh").name == "中文"


def test_short_edges_report_the_gap_and_strict_balance_drops_to_it():
    # Only one edge supports the one rule asked for: 5 facts, 1 counterfactual.
    edges = [zh("IsA", f"狗{i}", "动物") for i in range(6)] + [zh("HasProperty", "冰", "冷", tp="a")]
    loose, strict = BuildReport(), BuildReport()
    made = build_claims(edges, n=10, seed=0, lang="zh", rules=["antonym"], report=loose)
    assert (loose.factual, loose.counterfactual, loose.balanced_size) == (5, 1, 2)
    assert not loose.balanced and "unbalanced" in loose.balance_note()
    kept = build_claims(edges, n=10, seed=0, lang="zh", rules=["antonym"], strict_balance=True, report=strict)
    labels = [c.label for c in kept]
    assert len(kept) == strict.balanced_size == loose.balanced_size < len(made)
    assert labels.count("factual") == labels.count("counterfactual") and strict.dropped == len(made) - len(kept)


@pytest.mark.parametrize(("kind", "level"), [
    ("朋友", "high"), ("好朋友", "high"), ("师父", "high"), ("徒弟", "high"), ("妹妹", "high"), ("前妻", "low"),
    ("死对头", "low"), ("杀父仇人", "low"), ("师叔", None), ("前辈", None),
    ("friends", "high"), ("enemies", "low"), ("rivals", "low"), ("siblings", "high"), ("married", "high"),
    ("competitor", "low"), ("master", "high"), ("disciple", "high"), ("ex-wife", "low"), ("classmate", None),
])
def test_default_affection_table_in_both_languages(kind, level):
    assert AffectionMap().of(kind) == level


def test_chinese_mapping_keys_and_hpd_scores(tmp_path):
    path = tmp_path / "rel.json"
    path.write_text(json.dumps({"mapping": {"师叔": "high"}, "relations": [
        {"source": "林晓", "target": "吴婶", "affection": 6}, {"source": "林晓", "target": "孙浩", "affection": "-4"}]},
        ensure_ascii=False))
    loaded = load_relations(path)
    assert loaded.affection_map().of("师叔") == "high"
    assert [e.affection for e in loaded.entries] == ["high", "low"]
    path.write_text('{"relations": [{"source": "a", "target": "b", "affection": 0}]}')
    with pytest.raises(InputError, match="not 0"):
        load_relations(path)
    path.write_text('{"mapping": {"123": "high"}}')
    with pytest.raises(InputError, match="no letters"):
        load_relations(path)


def test_prompts_follow_the_claim_language():
    prompts = PromptLibrary()
    assert prompt_for(prompts, "sharp_question", "zh") == "sharp_question_zh"
    assert prompt_for(prompts, "sharp_stance", "en") == "sharp_stance"
    assert prompt_for(prompts, "sharp_stance", "fr") == "sharp_stance"  # no French template: English, warned
    from incanon.bench.sharp import question
    from incanon.bench.sharp.claims import make_claim

    claim = make_claim(zh("IsA", "狗", "动物"), "狗是一种动物。", label="factual", lang="zh")
    assert question(prompts, claim).startswith("我敢肯定：狗是一种动物。")


def test_empty_conceptnet_file_is_an_error(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("\n\n")
    with pytest.raises(InputError, match="empty"):
        list(read_assertions(empty))
    with pytest.raises(InputError, match="directory"):
        read_assertions(tmp_path)
    nan = tmp_path / "nan.csv"
    nan.write_text(cn_line("IsA", "dog/n", "animal/n").replace('"weight": 1.0', '"weight": NaN') + "\n")
    with pytest.raises(InputError, match=r"nan.csv \(line 1\)"):
        list(read_assertions(nan))
