"""How well normalization merged names, against a world's ground truth.

Every alias of the graph is a surface name; two names are *merged* when they ended on one node.
Against the ground truth (character and entity names with their aliases), a merged pair is
correct when both names belong to the same true entity; recall is over the pairs of extracted
names that truly are one entity. Names the ground truth does not know count as distinct."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations

from incanon.canon.world import World
from incanon.graph.db import GraphDB
from incanon.graph.names import fold
from incanon.graph.scripted import WorldOracle


@dataclass
class MergeQuality:
    merged_pairs: int
    correct_pairs: int
    true_pairs: int
    wrong: list[tuple[str, str]] = field(default_factory=list)
    missed: list[tuple[str, str]] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.correct_pairs / self.merged_pairs if self.merged_pairs else 1.0

    @property
    def recall(self) -> float:
        return self.correct_pairs / self.true_pairs if self.true_pairs else 1.0

    def to_dict(self) -> dict[str, object]:
        return {"precision": round(self.precision, 4), "recall": round(self.recall, 4),
                "merged_pairs": self.merged_pairs, "correct_pairs": self.correct_pairs,
                "true_pairs": self.true_pairs, "wrong": self.wrong[:20], "missed": self.missed[:20]}


def merge_quality(db: GraphDB, world: World) -> MergeQuality:
    truth = WorldOracle(world).canonical
    names = [(node, alias) for node, alias, _ in db.all_aliases()]
    by_node: dict[int, list[str]] = defaultdict(list)
    for node, alias in names:
        by_node[node].append(alias)
    merged = {tuple(sorted(p)) for aliases in by_node.values() for p in combinations(aliases, 2)}
    true_of = {alias: truth.get(fold(alias)) for _, alias in names}
    true_pairs = {tuple(sorted((a, b))) for (_, a), (_, b) in combinations(names, 2)
                  if true_of[a] is not None and true_of[a] == true_of[b]}
    correct = merged & true_pairs
    return MergeQuality(len(merged), len(correct), len(true_pairs),
                        wrong=sorted(merged - true_pairs), missed=sorted(true_pairs - merged))
