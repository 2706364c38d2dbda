"""How fast the canon store imports a large work and answers knowledge-scope queries.

Builds a synthetic work (default: 100k chunks, 2k scenes, 20 characters, 50k facts), imports it
into a fresh store, embeds the chunks with random 384-dimensional vectors, then times scope
queries for random (character, position) pairs. Prints figures; not a test.

    .venv/bin/python benchmarks/canon_scope.py [--chunks N] [--facts N] [--scenes N] [--queries N]
        [--before REV]

``--before REV``: after building the store, the scope queries run in fresh processes on commit
REV's source and on this tree's, alternated twice (before and after from one run, on one store).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from incanon.canon import CanonStore, KnowledgeScope, World

from benchtools import commit_source

BOOKS, CHAPTERS = 10, 20


def build_world(n_chunks: int, n_scenes: int, n_chars: int, n_facts: int, seed: int = 7) -> dict[str, Any]:
    """A synthetic world as JSON data: scenes spread evenly over 10 books of 20 chapters."""
    rng = random.Random(seed)
    names = [f"Character {i:02d}" for i in range(n_chars)]
    per_chapter = max(1, n_scenes // (BOOKS * CHAPTERS))
    scenes = []
    for i in range(n_scenes):
        chapter_index, scene_no = divmod(i, per_chapter)
        book, chapter = divmod(chapter_index, CHAPTERS)
        present = rng.sample(names, rng.randint(3, 6))
        scenes.append({
            "id": f"s{i}", "position": f"{book + 1}-{chapter + 1}-{scene_no + 1}",
            "summary": f"Scene {i}.", "participants": present, "speakers": present[:2],
            "messages": [
                {"speaker": p, "speech": f"Line {j} of scene {i}.", "thought": f"Thought {j}."}
                for j, p in enumerate(present[:2])
            ],
        })
    chunks = []
    for i in range(n_chunks):
        sc = scenes[i * n_scenes // n_chunks]
        tied = rng.random() < 0.8
        chunks.append({
            "id": f"c{i}", "position": sc["position"] if tied else sc["position"].rsplit("-", 1)[0],
            # Names in the text, as a novel's: what a character's known names are read from.
            "text": f"Chunk {i}: {sc['participants'][0]} spoke with {sc['participants'][-1]} near Place {i % 200}. "
                    + "words " * 24, "scene": sc["id"] if tied else None,
        })
    facts = []
    for i in range(n_facts):
        sc = rng.choice(scenes)
        kind = rng.random()
        fact: dict[str, Any] = {
            # A fact names a second person: a relation whose ends one known fact names is told.
            "id": f"f{i}", "subject": sc["participants"][0], "text": f"Fact {i}: {sc['participants'][0]} and "
            f"{rng.choice(names)}.", "position": sc["position"],
        }
        if kind < 0.6:
            fact["scene"] = sc["id"]
        elif kind < 0.7:
            fact["public"] = True
        else:
            fact["known_by"] = rng.sample(names, rng.randint(1, 2))
        book = int(sc["position"].split("-")[0])
        if rng.random() < 0.1 and book < BOOKS:
            fact["valid_to"] = f"{book + 1}-{CHAPTERS}"  # true until late in the next book
        facts.append(fact)
    relations = [
        {"source": a, "target": b, "type": "knows", "valid_from": f"{rng.randint(1, BOOKS)}-1"}
        for a in names for b in names if a != b and rng.random() < 0.3
    ]
    return {
        "work": {"id": "synthetic", "title": "Synthetic"},
        "characters": [
            {"name": n, "aliases": [f"C{i}"], "time_points": [{"label": f"end of book {b}", "position": str(b)} for b in range(1, BOOKS + 1)]}
            for i, n in enumerate(names)
        ],
        "scenes": scenes,
        "chunks": chunks,
        "facts": facts,
        "relations": relations,
        "entities": [{"name": f"Place {i}", "type": "location", "position": scenes[i * 10 % n_scenes]["position"]} for i in range(200)],
    }


def timed(label: str, fn: Callable[[], Any]) -> Any:
    t0 = time.perf_counter()
    result = fn()
    print(f"{label:<44} {time.perf_counter() - t0:8.2f} s")
    return result


def rate(label: str, scopes: list[KnowledgeScope], fn: Callable[[KnowledgeScope], Any]) -> None:
    sizes = []
    t0 = time.perf_counter()
    for scope in scopes:
        sizes.append(len(fn(scope)))
    elapsed = time.perf_counter() - t0
    print(
        f"{label:<44} {len(scopes) / elapsed:8.1f} /s   "
        f"({1000 * elapsed / len(scopes):6.1f} ms each, mean {np.mean(sizes):,.0f} results)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--scenes", type=int, default=2_000)
    parser.add_argument("--characters", type=int, default=20)
    parser.add_argument("--facts", type=int, default=50_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--before", help="also measure commit REV's source on the same store, alternated")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # a child of --before
    args = parser.parse_args()
    if args.measure:
        measure(args.measure, args.queries, args.dim)
        return

    print(f"synthetic work: {args.chunks:,} chunks, {args.scenes:,} scenes, {args.characters} characters, "
          f"{args.facts:,} facts, {args.dim}-dim vectors")
    data = timed("build world data", lambda: build_world(args.chunks, args.scenes, args.characters, args.facts))
    world = timed("validate World (pydantic)", lambda: World.model_validate(data))
    with tempfile.TemporaryDirectory() as tmp:
        store = CanonStore.open(tmp)
        timed("import_world (check references + write)", lambda: store.import_world(world))
        timed("import_world replace=True", lambda: store.import_world(world, replace=True))
        timed("export_world", lambda: store.export_world("synthetic"))
        rng = np.random.default_rng(0)
        matrix = rng.standard_normal((args.chunks, args.dim), dtype=np.float32)
        ids = [f"c{i}" for i in range(args.chunks)]
        timed("put_vectors (all chunks)", lambda: store.put_vectors("synthetic", "chunk", ids, "random", matrix))
        store.close()
        if not args.before:
            measure(Path(tmp), args.queries, args.dim)
            return
        before = commit_source(args.before, Path(tmp) / "before-src")
        for round_ in (1, 2):
            for side, src in ((f"before ({args.before})", before), ("now", None)):
                print(f"== {side}, round {round_}, load {os.getloadavg()[0]:.2f} ==", flush=True)
                env = {**os.environ, **({"PYTHONPATH": str(src)} if src else {})}
                subprocess.run([sys.executable, __file__, "--measure", tmp, "--queries", str(args.queries),
                                "--dim", str(args.dim)], env=env, check=True)


def measure(path: Path, queries: int, dim: int) -> None:
    """The scope queries on the store at ``path``, in this process (cold caches)."""
    store = CanonStore.open(path)
    rng = np.random.default_rng(1)
    py_rng = random.Random(1)
    names = [c.name for c in store.characters("synthetic")]
    points = [f"{py_rng.randint(1, BOOKS)}-{py_rng.randint(1, CHAPTERS)}" for _ in range(queries)]
    scopes = [store.scope("synthetic", py_rng.choice(names), p) for p in points]
    strict = [store.scope("synthetic", s.character, s.at, witnessed_only=True) for s in scopes]
    query = rng.standard_normal(dim, dtype=np.float32)
    timed("first search_chunks (loads the matrix)", lambda: scopes[0].search_chunks(query, "random", 10))
    timed("first facts() (reads the work's facts)", lambda: scopes[0].facts())

    print(f"-- {queries} random (character, position) scopes --")
    rate("scope.describe() (first: builds the names)", scopes, lambda s: [s.describe()])
    rate("scope.relations() (kept)", scopes, lambda s: s.relations())
    rate("scope.facts()", scopes, lambda s: s.facts())
    rate("scope.chunk_ids()", scopes, lambda s: s.chunk_ids())
    rate("scope.chunk_ids(witnessed_only=True)", strict, lambda s: s.chunk_ids())
    rate("scope.chunks() (records with text)", scopes, lambda s: s.chunks())
    rate("scope.scenes()", scopes, lambda s: s.scenes())
    rate("scope.missed_scenes()", scopes, lambda s: s.missed_scenes())
    rate("scope.search_chunks(k=10)", scopes, lambda s: s.search_chunks(query, "random", 10))
    rate("scope.search_chunks(k=10, witnessed_only)", strict, lambda s: s.search_chunks(query, "random", 10))
    store.close()
    store = CanonStore.open(path)  # a new connection: no summary or names kept
    fresh = [store.scope("synthetic", s.character, s.at) for s in scopes]
    rate("scope.relations() (first: builds the names)", fresh, lambda s: s.relations())
    rate("scope.describe() (names already built)", fresh, lambda s: [s.describe()])
    store.close()


if __name__ == "__main__":
    main()
