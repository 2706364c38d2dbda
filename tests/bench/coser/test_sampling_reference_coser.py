"""incanon's test-set sampler draws the conversations CoSER's own sampler draws.

``reference_draw`` restates, from reading data_construction/transform.py, what the reference does
(``process`` weights every held-out conversation, ``to_test_circumstance`` ranks and draws); the
fixtures are books of our own invention written to disk in the released layouts (a
``held_out_plots.json`` and a ``data/final`` folder of per-book files) and read back through
incanon's loaders, so the comparison covers the loading as well as the drawing.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np

from incanon.bench.coser.files import load_sampling_source
from incanon.bench.coser.sampling import sample_test_set

NAMES = ["Ada", "Bram", "Cato", "Dove", "Eli", "Fenn", "Gus", "Hale", "Ivo", "Juno"]


def reference_hash(text: str) -> int:
    """The 31-multiplier 32-bit hash the reference orders its book files by."""
    h = 0
    for ch in text:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return h


def reference_draw(books: dict[str, dict], n: int) -> list[tuple[str, int, int]]:
    """(book, i_p, i_c) of the reference's draw from ``{book: {"plots": held-out plots}}``:
    every conversation with its weight (1.0 when it has none), sorted by weight descending
    (Python's sort is stable), the first max(n, half) kept, then numpy's global generator seeded
    42 draws ``choice(len, p=normalised weights)`` until n distinct ones are chosen."""
    pool = [(book, i, j, conv.get("weight", 1.0))
            for book, entry in books.items()
            for i, plot in enumerate(entry["plots"])
            for j, conv in enumerate(plot["conversation"])]
    n = min(n, len(pool))
    pool = sorted(pool, key=lambda s: s[-1], reverse=True)[:max(n, len(pool) // 2)]
    weights = np.array([s[-1] for s in pool])
    weights = weights / weights.sum()
    np.random.seed(42)
    chosen: list[tuple] = []
    while len(chosen) < n:
        pick = pool[np.random.choice(len(weights), p=weights)]
        if pick not in chosen:
            chosen.append(pick)
    return [(b, books[b]["plots"][i]["i_p"], j) for b, i, j, _ in chosen]


def reference_weight(conv: dict, datasets: dict[str, dict]) -> float:
    """The reference's conversation weight: mean of max(1, √plots) over the speakers but the
    Environment (1 for an unknown speaker), 1 when the mean cannot be taken."""
    weights = {name: max(1, math.sqrt(len(d["plots"]))) for name, d in datasets.items()}
    people = [c for c in conv["speaking_characters_w_env"] if c != "Environment"]
    return sum(weights.get(c, 1) for c in people) / len(people) if people else 1


def invented_book(rng: random.Random, title: str, plots: int) -> dict:
    """A per-book file in the ``data/final`` layout, with invented people and lines."""
    cast = rng.sample(NAMES, 6)
    datasets = {name: {"profile": f"{name} of {title}.", "plots": [{"name": name, "i_p": i} for i in range(rng.randint(0, 30))]}
                for name in cast}
    out = []
    for i_p in range(plots):
        conversations = []
        for _ in range(rng.randint(1, 4)):
            speakers = rng.sample(cast, rng.randint(1, 3)) + (["Environment"] if rng.random() < 0.3 else [])
            conversations.append({
                "scenario": f"A room in {title}.", "topic": "talk",
                "key_characters": [{"name": s, "motivation": "to be heard"} for s in speakers if s != "Environment"],
                "speaking_characters_w_env": speakers,
                "major_characters": [s for s in speakers if s != "Environment"],
                "dialogues": [{"character": s, "message": f"{s} speaks in plot {i_p}."} for s in speakers]})
        out.append({"summary": f"Plot {i_p} of {title}.", "key_characters": [{"name": cast[0]}],
                    "chapter": f"Chapter {i_p}", "conversation": conversations})
    return {"plots": out, "character_datasets": datasets, "split_plot_index": plots - rng.randint(5, 9)}


def test_held_out_plots_give_the_reference_draw_of_70(tmp_path: Path):
    rng = random.Random(7)
    held: dict[str, dict] = {"id": {}, "ood": {}}
    for b in range(9):
        plots = []
        for i_p in range(40, 40 + rng.randint(6, 10)):
            # Weights repeat on purpose (ties keep file order in both samplers).
            convs = [{"scenario": "s", "speaking_characters_w_env": ["Ada"], "major_characters": ["Ada"],
                      "dialogues": [{"character": "Ada", "message": "Hello."}],
                      "weight": rng.choice([1, 1.5, math.sqrt(2), 2.25, 3, math.sqrt(7)])}
                     for _ in range(rng.randint(1, 5))]
            if rng.random() < 0.2:
                del convs[0]["weight"]  # the reference's default 1.0
            plots.append({"summary": "p", "key_characters": [], "i_p": i_p, "conversation": convs})
        held["ood" if b >= 7 else "id"][f"Invented Book {b}"] = {"character_profiles": {"Ada": "A."}, "plots": plots}
    path = tmp_path / "held_out_plots.json"
    path.write_text(json.dumps(held))
    total = sum(len(p["conversation"]) for e in held["id"].values() for p in e["plots"])
    assert total > 140  # half the pool exceeds 70: the top-half cut matters

    books, domains = load_sampling_source(path)
    drawn = sample_test_set(books, per_domain=70, domains=domains)
    ours = [(s.book, s.plot.i_p, s.i_c) for s in drawn if s.domain == "in-domain"]
    assert len(ours) == 70 and ours == reference_draw(held["id"], 70)
    theirs_ood = reference_draw(held["ood"], 70)
    assert [(s.book, s.plot.i_p, s.i_c) for s in drawn if s.domain == "out-of-domain"] == theirs_ood


def test_a_folder_of_final_books_gives_the_reference_draw(tmp_path: Path):
    rng = random.Random(11)
    folder = tmp_path / "final"
    folder.mkdir()
    books = {f"Invented Saga {chr(65 + b)}": invented_book(rng, f"Invented Saga {chr(65 + b)}", rng.randint(12, 20))
             for b in range(10)}
    for title, data in books.items():
        (folder / f"{title}.json").write_text(json.dumps(data))
    # The reference: files in hash order, the first 90% in-domain, held-out plots from the split.
    order = sorted(books, key=lambda t: reference_hash(f"{t}.json"))
    held = {}
    for t in order:
        plots = books[t]["plots"]
        for i_p, plot in enumerate(plots):
            plot["i_p"] = i_p
            for conv in plot["conversation"]:
                conv["weight"] = reference_weight(conv, books[t]["character_datasets"])
        held[t] = {"plots": plots[books[t]["split_plot_index"]:]}
    in_domain = {t: held[t] for i, t in enumerate(order) if i < len(order) * 0.9}
    out_domain = [t for t in order if t not in in_domain]

    loaded, _ = load_sampling_source(folder)
    assert [b.title for b in loaded] == order
    drawn = sample_test_set(loaded, per_domain=70, out_of_domain=out_domain)
    ours = [(s.book, s.plot.i_p, s.i_c) for s in drawn if s.domain == "in-domain"]
    assert len(ours) == 70 and ours == reference_draw(in_domain, 70)
    # A different seed draws differently: the comparison can fail.
    other = sample_test_set(loaded, per_domain=70, out_of_domain=out_domain, seed=43)
    assert [(s.book, s.plot.i_p, s.i_c) for s in other if s.domain == "in-domain"] != ours
