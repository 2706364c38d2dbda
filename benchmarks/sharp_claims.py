"""SHARP claim building on a large graph: milliseconds per edge, and what a full dump would cost.

Prints figures; not a test. A synthetic ConceptNet-like graph (English, every relation SHARP
has a template for, an IsA taxonomy three levels deep, Antonym edges) of ``--edges`` edges is
built in memory, then ``build_claims`` draws ``-n`` claims from it, timed end to end (indexing
the graph, rendering candidates, the five counterfactual rules). The full English ConceptNet 5.7
has about 3.4 million English-English edges; the last line scales the measured rate to it.

    .venv/bin/python benchmarks/sharp_claims.py [--edges 40000] [-n 1000 10000] [--seed 0]
"""

from __future__ import annotations

import argparse
import platform
import random
import time

from incanon import __version__
from incanon.bench.sharp import BuildReport, Edge, build_claims, parse_concept_uri

FULL_EN_EDGES = 3_400_000
RELATIONS = ("IsA", "UsedFor", "CapableOf", "HasProperty", "AtLocation", "PartOf", "HasA", "MadeOf",
             "Desires", "CreatedBy", "ReceivesAction", "Causes", "HasSubevent", "HasPrerequisite")
SYLLABLES = "ka lo mi ru te sa no pi ve zu da ne fo gu ha ji".split()


def word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))


def synthetic_graph(size: int, seed: int) -> list[Edge]:
    """``size`` edges over ~size/4 nouns: taxonomy, properties, a few antonyms."""
    rng = random.Random(seed)
    nouns = list(dict.fromkeys(word(rng) for _ in range(size // 4)))
    # A three-level taxonomy (top classes, classes, nouns), so most heads share an ancestor:
    # the substitute rule then has to look hard for a donor that is not taxonomic kin.
    tops = nouns[:8]
    classes = nouns[8: max(40, len(nouns) // 50)]
    adjectives = ["hot", "cold", "big", "small", "wet", "dry", "loud", "quiet", "sweet", "bitter"]
    edges: list[Edge] = []

    def add(rel: str, head: str, tail: str, pos: tuple[str, str] = ("n", "n")) -> None:
        h, t = f"/c/en/{head}/{pos[0]}", f"/c/en/{tail}/{pos[1]}"
        edges.append(Edge(rel, parse_concept_uri(h), parse_concept_uri(t), weight=rng.choice((1.0, 2.0, 3.0)),
                          uri=f"/a/[/r/{rel}/,{h}/,{t}/]"))

    for cls in classes:
        add("IsA", cls, rng.choice(tops))
    for noun in nouns[len(tops) + len(classes):]:
        add("IsA", noun, rng.choice(classes))
    for a, b in zip(adjectives[::2], adjectives[1::2]):
        add("Antonym", a, b, ("a", "a"))
    while len(edges) < size:
        rel = rng.choice(RELATIONS)
        head = rng.choice(nouns)
        if rel == "HasProperty":
            add(rel, head, rng.choice(adjectives), ("n", "a"))
        elif rel in ("CapableOf", "UsedFor", "Desires", "HasSubevent", "HasPrerequisite", "ReceivesAction"):
            add(rel, head, f"{rng.choice(('make', 'cut', 'carry', 'hold', 'open'))} {rng.choice(nouns)}", ("n", "v"))
        else:
            add(rel, head, rng.choice(nouns))
    return edges


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edges", type=int, default=40_000)
    parser.add_argument("-n", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"incanon {__version__}, Python {platform.python_version()}, {platform.machine()}")
    edges = synthetic_graph(args.edges, args.seed)
    print(f"{'edges':>7} {'claims':>7} {'made':>6} {'seconds':>8} {'ms/edge':>8}  made per bucket")
    for n in args.n:
        report = BuildReport()
        start = time.process_time()
        claims = build_claims(edges, n=n, seed=args.seed, report=report)
        took = time.process_time() - start
        print(f"{len(edges):>7} {n:>7} {len(claims):>6} {took:>8.2f} {took * 1000 / len(edges):>8.3f}  "
              + ", ".join(f"{k} {v}" for k, v in report.made.items()))
        per_edge = took / len(edges)
    print(f"at the last rate, ConceptNet's ~{FULL_EN_EDGES / 1e6:.1f}M English edges: "
          f"{per_edge * FULL_EN_EDGES / 60:.1f} CPU-minutes")


if __name__ == "__main__":
    main()
