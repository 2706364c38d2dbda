"""Test-set sampling as CoSER draws its test set (paper, App. C.1).

1. Per book, a character's weight is √(number of plots the character is a key character of).
2. A conversation's weight is the mean weight of its characters, main characters and side roles
   alike (speakers and listed key characters; Environment and unnamed speakers weigh 0).
3. Separately for in-domain and out-of-domain books: rank the held-out conversations by weight,
   keep the top half, and draw without replacement with probability proportional to weight,
   from a seeded generator (same seed, same books → same test set).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from incanon.bench.coser.formats import ENVIRONMENT, BookData, Conversation, Domain, Plot, TestPlot, TestSample


def character_weights(book: BookData) -> dict[str, float]:
    """√(plots) per character of ``book`` (from its ``character_datasets``)."""
    return {name: math.sqrt(len(data.plots)) for name, data in book.character_datasets.items()}


def conversation_characters(conv: Conversation) -> list[str]:
    """Everyone taking part: speakers then listed key characters, Environment excluded."""
    names = [d.character for d in conv.dialogues] + [c.name for c in conv.key_characters]
    return [n for n in dict.fromkeys(names) if n != ENVIRONMENT]


def conversation_weight(conv: Conversation, weights: dict[str, float]) -> float:
    people = conversation_characters(conv)
    if not people:
        return 0.0
    return sum(weights.get(p, 0.0) for p in people) / len(people)


@dataclass(frozen=True)
class Candidate:
    book: BookData
    plot: Plot
    conv: Conversation
    weight: float
    domain: Domain
    i_p: int
    i_c: int


def candidates(books: Iterable[BookData], out_of_domain: set[str] = frozenset()) -> list[Candidate]:  # type: ignore[assignment]
    """Held-out conversations (plots from each book's split index on) with a speaking character."""
    found = []
    for book in books:
        weights = character_weights(book)
        domain: Domain = "out-of-domain" if book.title in out_of_domain else "in-domain"
        for i_p in range(book.split_index, len(book.plots)):
            plot = book.plots[i_p]
            for i_c, conv in enumerate(plot.conversation):
                if not any(d.character != ENVIRONMENT for d in conv.dialogues):
                    continue
                found.append(Candidate(book, plot, conv, conversation_weight(conv, weights), domain, i_p, i_c))
    return found


def top_half(items: Sequence[Candidate]) -> list[Candidate]:
    """The heavier half (rounded up), ties kept in input order."""
    ranked = sorted(items, key=lambda c: -c.weight)
    return ranked[: math.ceil(len(ranked) / 2)]


def weighted_sample(weights: Sequence[float], k: int, rng: random.Random) -> list[int]:
    """``k`` distinct indexes, each draw proportional to weight among those left.

    Zero-weight items are drawn only once every positive one is taken (then uniformly).
    """
    left = list(range(len(weights)))
    chosen: list[int] = []
    while left and len(chosen) < k:
        total = sum(weights[i] for i in left)
        if total <= 0:
            pick = left[int(rng.random() * len(left))]
        else:
            target, acc, pick = rng.random() * total, 0.0, left[-1]
            for i in left:
                acc += weights[i]
                if target < acc:
                    pick = i
                    break
        chosen.append(pick)
        left.remove(pick)
    return chosen


def to_sample(c: Candidate) -> TestSample:
    profiles = c.book.profiles()
    people = conversation_characters(c.conv)
    return TestSample(
        book=c.book.title,
        plot=TestPlot(summary=c.plot.summary, key_characters=c.plot.key_characters, chapter=c.plot.chapter,
                      i_p=c.i_p),
        character_profiles={p: profiles[p] for p in people if profiles.get(p)},
        domain=c.domain,
        weight=round(c.weight, 6),
        **{**c.conv.model_dump(exclude_none=True), "i_c": c.i_c},
    )


def sample_test_set(books: Sequence[BookData], n: int = 200, *, seed: int = 0,
                    out_of_domain: Iterable[str] = ()) -> list[TestSample]:
    """``n`` test samples; half from out-of-domain books when any are named (rest in-domain)."""
    ood = set(out_of_domain)
    unknown = ood - {b.title for b in books}
    if unknown:
        from incanon.errors import ConfigError

        raise ConfigError(f"out-of-domain books not among the inputs: {', '.join(sorted(unknown))}")
    pool = candidates(books, ood)
    rng = random.Random(seed)
    wanted = {"in-domain": n - n // 2, "out-of-domain": n // 2} if ood else {"in-domain": n, "out-of-domain": 0}
    samples: list[TestSample] = []
    for domain in ("in-domain", "out-of-domain"):
        top = top_half([c for c in pool if c.domain == domain])
        picks = weighted_sample([c.weight for c in top], wanted[domain], rng)
        samples.extend(to_sample(top[i]) for i in picks)
    return samples
