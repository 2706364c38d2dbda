"""Wrong choices for TKG questions, most tempting first.

The paper takes incorrect choices from the tails of other quadruples with the same relation, and
prefers the same subject's past or future values of that relation (knowing the old girlfriend is
the classic wrong answer). When a small graph has too few of those, incanon widens the pool step
by step: tails of other relations with the same kind of value, then (for people) the script's
characters, then (for ages) nearby numbers. Values that are also true are never distractors.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from incanon.bench.dialsim.relations import RELATIONS
from incanon.bench.dialsim.tkg import Quad


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def distractor_pool(
    quads: Iterable[Quad], head: str, relation: str, *, people: Iterable[str] = (), gold: str | None = None
) -> list[list[str]]:
    """Candidate wrong values in tiers of preference (each tier sorted, not yet shuffled)."""
    quads = list(quads)
    kind = RELATIONS[relation].kind
    same_subject = sorted({q.tail for q in quads if q.head == head and q.relation == relation})
    same_relation = sorted({q.tail for q in quads if q.relation == relation})
    same_kind = sorted({q.tail for q in quads if RELATIONS[q.relation].kind == kind})
    tiers = [same_subject, same_relation, same_kind]
    if kind == "person":
        tiers.append(sorted(set(people)))
    if kind == "age" and gold is not None and gold.strip().isdigit():
        n = int(gold)
        tiers.append([str(v) for v in (n - 5, n + 4, n - 11, n + 9, n - 2) if v > 0])
    return tiers


def pick_distractors(
    tiers: list[list[str]], exclude: Iterable[str], count: int, rng: random.Random
) -> list[str]:
    """Up to ``count`` values, tier by tier (shuffled within a tier by ``rng``), none in ``exclude``."""
    banned = {_fold(v) for v in exclude}
    chosen: list[str] = []
    for tier in tiers:
        candidates = [v for v in tier if _fold(v) not in banned]
        rng.shuffle(candidates)
        for value in candidates:
            if len(chosen) == count:
                return chosen
            if _fold(value) not in banned:
                chosen.append(value)
                banned.add(_fold(value))
    return chosen
