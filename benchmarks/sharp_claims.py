"""SHARP claim building on a large graph: edges/s end to end, and what a draw of N claims costs.

Prints figures; not a test. A synthetic ConceptNet-like graph (English, every relation SHARP
has a template for, an IsA taxonomy three levels deep, Antonym edges) of ``--edges`` edges is
built in memory and also written as a ConceptNet assertion CSV. Timed (CPU seconds):

1. ``build_claims(edges, n)`` end to end, the first call in the process (indexing the graph,
   the lazy imports of inflect and lemminflect, the draw): the figure a user waits for;
2. the same from the CSV file (``read_assertions`` then ``build_claims``);
3. its parts: ``ClaimSampler(edges)`` (the one pass over the graph) and each ``draw(n)`` on it,
   with how many pool edges the draw reached: a draw's cost follows N, not the graph.

The full English ConceptNet 5.7 has about 3.4 million English-English edges; the last line
scales the end-to-end rate to it.

    .venv/bin/python benchmarks/sharp_claims.py [--edges 200000] [-n 1000 10000] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import tempfile
import time
from pathlib import Path

from incanon import __version__
from incanon.bench.sharp import BuildReport, ClaimSampler, Edge, build_claims, parse_concept_uri, read_assertions

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


def write_csv(edges: list[Edge], path: Path) -> None:
    """The edges in ConceptNet's assertion layout (tab-separated, JSON info column)."""
    with path.open("w", encoding="utf-8") as out:
        for e in edges:
            info = json.dumps({"dataset": "/d/bench", "weight": e.weight})
            out.write(f"{e.uri}\t/r/{e.relation}\t{e.head.uri}\t{e.tail.uri}\t{info}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edges", type=int, default=200_000)
    parser.add_argument("-n", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"incanon {__version__}, Python {platform.python_version()}, {platform.machine()}, "
          f"load {os.getloadavg()[0]:.2f}; CPU seconds")
    edges = synthetic_graph(args.edges, args.seed)
    first = args.n[0]

    report = BuildReport()
    start = time.process_time()
    claims = build_claims(edges, n=first, seed=args.seed, report=report)
    took = time.process_time() - start
    print(f"build_claims, {len(edges):,} edges, {first:,} claims (first call: imports included): "
          f"{took:.2f} s = {len(edges) / took:,.0f} edges/s; made {len(claims):,} "
          f"({', '.join(f'{k} {v}' for k, v in report.made.items())})")

    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "assertions.csv"
        write_csv(edges, csv)
        start = time.process_time()
        read = list(read_assertions(csv, langs="en"))
        reading = time.process_time() - start
        build_claims(read, n=first, seed=args.seed)
        total = time.process_time() - start
    print(f"from a ConceptNet CSV: read {reading:.2f} s + claims {total - reading:.2f} s = "
          f"{len(read) / total:,.0f} edges/s")

    start = time.process_time()
    sampler = ClaimSampler(edges)
    indexing = time.process_time() - start
    print(f"ClaimSampler (one pass over the graph): {indexing:.2f} s = {len(edges) / indexing:,.0f} edges/s; "
          f"pool {len(sampler.pool):,} edges")
    for n in args.n:
        start = time.process_time()
        drawn = sampler.draw(n, seed=args.seed + 1)
        took = time.process_time() - start
        print(f"draw({n:,}): {took:.3f} s, {len(drawn):,} claims, reached {sampler.last_draw_touched:,} "
              f"of {len(sampler.pool):,} pool edges")
    per_edge = (indexing + took) / len(edges)
    print(f"at the last rate, ConceptNet's ~{FULL_EN_EDGES / 1e6:.1f}M English edges: "
          f"{per_edge * FULL_EN_EDGES / 60:.1f} CPU-minutes")


if __name__ == "__main__":
    main()
