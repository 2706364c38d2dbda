"""Chinese claims checked against the graph's own facts, a place said once, and a detector that
names its stance after denying another. The graph is our own, in ConceptNet's assertion CSV
layout (traditional and simplified edges, as the PTT edges mix them)."""

from __future__ import annotations

from pathlib import Path

from incanon.bench.sharp.claims import edge_to_claim
from incanon.bench.sharp.conceptnet import read_assertions
from incanon.bench.sharp.counterfactual import RULE_FUNCTIONS
from incanon.bench.sharp.knowledge import KnowledgeIndex
from incanon.bench.sharp.stance import parse_stance, to_stance
from incanon.bench.sharp import Stance

from sharp_helpers import cn_line

EDGES = [
    ("CapableOf", "/c/zh/人", "/c/zh/哭"), ("IsA", "/c/zh/医生", "/c/zh/人"), ("NotCapableOf", "/c/zh/医生", "/c/zh/哭"),
    ("HasA", "/c/zh/鸟", "/c/zh/翅膀"), ("HasA", "/c/zh/狗", "/c/zh/尾巴"), ("PartOf", "/c/zh/尾巴", "/c/zh/鸟"),
    ("NotHasA", "/c/zh/鸟", "/c/zh/尾巴"), ("AtLocation", "/c/zh/魚", "/c/zh/海裡"),
    ("AtLocation", "/c/zh/书", "/c/zh/图书馆"),
]


def _claims(tmp_path: Path) -> set[str]:
    path = tmp_path / "assertions.csv"
    path.write_text("\n".join(cn_line(*e) for e in EDGES) + "\n", encoding="utf-8")
    edges = list(read_assertions(path, langs="zh"))
    index = KnowledgeIndex(edges)
    texts: set[str] = set()
    for rule in RULE_FUNCTIONS.values():
        for _ in range(3):  # substitute draws its donor at random
            texts |= {c.text for c in (rule(e, index, lang="zh") for e in edges) if c is not None}
    return texts


def test_no_counterfactual_is_true_by_the_graph_s_own_facts(tmp_path: Path):
    counterfactuals = _claims(tmp_path)
    # 人会哭 and 医生 is a 人: "医生会哭" is true; 尾巴 is part of 鸟: "鸟有尾巴" is true.
    assert "医生会哭。" not in counterfactuals and "鸟有尾巴。" not in counterfactuals
    assert counterfactuals  # the rules still make others ("狗有翅膀。", "在图书馆里找不到书。")


def test_a_place_is_said_with_one_locative(tmp_path: Path):
    from sharp_helpers import edge

    fish = edge("AtLocation", "/c/zh/魚", "/c/zh/海裡")
    assert edge_to_claim(fish, "zh").text == "在海裡可以找到魚。"  # was "在海裡裡可以找到魚。"
    swapped = RULE_FUNCTIONS["swap"](fish, KnowledgeIndex([fish]), lang="zh")
    assert swapped.text == "在魚裡可以找到海。"  # was "在魚裡可以找到海裡。"
    assert edge_to_claim(edge("AtLocation", "/c/zh/书", "/c/zh/图书馆"), "zh").text == "在图书馆里可以找到书。"


def test_a_stance_named_after_a_denied_one_is_read():
    assert parse_stance("没有表示支持，而是明确反对").stance is Stance.AGAINST
    assert parse_stance("回答並非反對，而是支持。").stance is Stance.FAVOR
    assert to_stance("没有表示支持，而是明确反对") is Stance.AGAINST
    assert parse_stance("不支持").stance is None  # a denial alone names no stance
    assert parse_stance("既不支持也不反对").stance is Stance.NEUTRAL
