"""ClaimSampler: the graph is indexed once; a draw renders only the edges it reaches (O(N))."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from sharp_helpers import edge

import incanon.bench.sharp.sampling as sampling
from incanon.bench.sharp import ClaimSampler, build_claims

WORDS = [f"{a}{b}" for a in ("ka", "lo", "mi", "ru", "te", "sa", "no", "pi") for b in ("ve", "zu", "da", "ne", "fo")]


def graph(size: int, seed: int = 0) -> list:
    """``size`` edges: an IsA taxonomy, properties, abilities, parts and a few antonyms."""
    rng = random.Random(seed)
    nouns = [f"{rng.choice(WORDS)}{rng.choice(WORDS)}{k}" for k in range(size // 4)]
    classes = nouns[:20]
    edges = [edge("Antonym", "hot/a", "cold/a"), edge("Antonym", "big/a", "small/a")]
    edges += [edge("IsA", f"{n}/n", f"{rng.choice(classes)}/n") for n in nouns[20:]]
    while len(edges) < size:
        rel = rng.choice(("HasProperty", "CapableOf", "PartOf", "UsedFor"))
        head = f"{rng.choice(nouns)}/n"
        if rel == "HasProperty":
            edges.append(edge(rel, head, f"{rng.choice(('hot', 'big', 'cold', 'small'))}/a"))
        elif rel in ("CapableOf", "UsedFor"):
            edges.append(edge(rel, head, f"{rng.choice(('carry', 'cut', 'hold'))}_{rng.choice(nouns)}/v"))
        else:
            edges.append(edge(rel, head, f"{rng.choice(nouns)}/n"))
    return edges


@pytest.fixture
def renders(monkeypatch) -> Counter:
    """Counts every factual rendering the sampler asks for."""
    counts: Counter = Counter()
    original = sampling.edge_to_claim

    def counting(e, lang="en"):
        counts["renders"] += 1
        return original(e, lang)

    monkeypatch.setattr(sampling, "edge_to_claim", counting)
    return counts


def test_a_draw_renders_what_it_reaches_not_the_graph(renders):
    small, large = graph(2_000), graph(40_000)
    made = {}
    for name, edges in (("small", small), ("large", large)):
        renders.clear()
        sampler = ClaimSampler(edges)
        assert renders["renders"] == 0  # indexing renders nothing
        claims = sampler.draw(40, seed=3)
        assert len(claims) == 40
        made[name] = renders["renders"]
        assert renders["renders"] == sampler.last_draw_touched  # one rendering per edge reached
    # Twenty times the graph, about the same work: the cost follows N, not the graph.
    assert made["large"] <= 2 * made["small"] + 20
    assert made["large"] < 400


def test_work_grows_with_n(renders):
    sampler = ClaimSampler(graph(20_000))
    sampler.draw(20, seed=1)
    few = sampler.last_draw_touched
    sampler.draw(400, seed=1)
    many = sampler.last_draw_touched
    assert few < many < 20 * few + 100
    assert many < len(sampler.pool) // 10


def test_sampler_draws_equal_build_claims():
    edges = graph(3_000)
    sampler = ClaimSampler(edges)
    for seed in (0, 5):
        a = [c.model_dump() for c in sampler.draw(60, seed=seed)]
        b = [c.model_dump() for c in build_claims(edges, n=60, seed=seed)]
        assert a == b
