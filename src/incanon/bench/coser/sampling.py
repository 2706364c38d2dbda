"""Test-set sampling as CoSER draws its test set (paper, App. C.1; data_construction/transform.py).

1. Per book, a character's weight is max(1, √(number of plots in its ``character_datasets``
   entry)); a speaker the book has no entry for weighs 1.
2. A conversation's weight is the mean weight of its speakers (Environment excluded); a
   conversation without one weighs 1. Files that already carry a ``weight`` (the released
   ``held_out_plots.json``) keep it.
3. Separately for in-domain and out-of-domain books, the held-out conversations (book order,
   then plot, then conversation) are ranked by weight (stable sort), the first
   ``max(n, half)`` are kept, and conversations are drawn with probability proportional to
   weight from numpy's ``RandomState(seed)`` (the reference seeds numpy's global generator with
   42 before each domain), redrawing duplicates, until ``n`` are chosen.

Books read from a folder are taken in the reference's deterministic order (a 31-multiplier
string hash of the file name), so the same files give the reference's test set.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from incanon.bench.coser.formats import ENVIRONMENT, BookData, Conversation, Domain, Plot, TestPlot, TestSample

DEFAULT_SEED = 42
"""The reference's seed."""


def stable_order(titles: Iterable[str]) -> list[str]:
    """``titles`` sorted by the reference's 32-bit hash of ``<title>.json`` (stable_shuffle)."""
    def string_hash(text: str) -> int:
        h = 0
        for ch in text:
            h = (31 * h + ord(ch)) & 0xFFFFFFFF
        return h

    return sorted(titles, key=lambda t: string_hash(f"{t}.json"))


def character_weights(book: BookData) -> dict[str, float]:
    """max(1, √plots) per character of ``book`` (from its ``character_datasets``)."""
    return {name: max(1.0, math.sqrt(len(data.plots))) for name, data in book.character_datasets.items()}


def conversation_weight(conv: Conversation, weights: dict[str, float]) -> float:
    """Mean weight of the speakers (unknown ones 1); 1 when nobody but the Environment speaks."""
    stored = (conv.model_extra or {}).get("weight")
    if isinstance(stored, (int, float)) and not isinstance(stored, bool) and math.isfinite(stored):
        return float(stored)
    people = [p for p in conv.speakers if p != ENVIRONMENT]
    if not people:
        return 1.0
    return sum(weights.get(p, 1.0) for p in people) / len(people)


@dataclass(frozen=True)
class Candidate:
    """A held-out conversation that can be drawn."""

    book: BookData
    plot: Plot
    conv: Conversation
    weight: float
    domain: Domain
    i_p: int
    i_c: int


def candidates(books: Iterable[BookData], out_of_domain: set[str] = frozenset(),  # type: ignore[assignment]
               domains: dict[str, Domain] | None = None) -> list[Candidate]:
    """Held-out conversations (plots from each book's split index on), in book order."""
    found = []
    for book in books:
        weights = character_weights(book)
        domain: Domain = (domains or {}).get(book.title) or (
            "out-of-domain" if book.title in out_of_domain else "in-domain")
        for i_p in range(book.split_index, len(book.plots)):
            plot = book.plots[i_p]
            for i_c, conv in enumerate(plot.conversation):
                index = plot.i_p if plot.i_p is not None else i_p
                found.append(Candidate(book, plot, conv, conversation_weight(conv, weights), domain, index, i_c))
    return found


def keep_top(items: Sequence[Candidate], n: int) -> list[Candidate]:
    """The first ``max(n, half)`` by weight, heaviest first (ties in input order)."""
    ranked = sorted(items, key=lambda c: -c.weight)
    return ranked[: max(n, len(ranked) // 2)]


def weighted_draws(weights: Sequence[float], k: int, seed: int) -> list[int]:
    """``k`` distinct indexes drawn as the reference draws them: ``choice(len, p=w)`` from a
    numpy generator seeded with ``seed``, duplicates drawn again."""
    import numpy as np

    k = min(k, len(weights))
    if k <= 0:
        return []
    probs = np.asarray(weights, dtype=float)
    probs = probs / probs.sum() if probs.sum() > 0 else np.full(len(probs), 1.0 / len(probs))
    rng = np.random.RandomState(seed)
    chosen: list[int] = []
    while len(chosen) < k:
        pick = int(rng.choice(len(probs), p=probs))
        if pick not in chosen:
            chosen.append(pick)
    return chosen


def to_sample(c: Candidate) -> TestSample:
    """The test-set entry of a drawn conversation (profiles of its major characters)."""
    profiles = c.book.profiles()
    speakers = c.conv.speakers
    conv = c.conv.model_dump(exclude_none=True)
    for key in ("weight", "i_c", "i_p"):
        conv.pop(key, None)
    sample = TestSample(
        book=c.book.title,
        plot=TestPlot(summary=c.plot.summary, key_characters=c.plot.key_characters, chapter=c.plot.chapter, i_p=c.i_p),
        domain=c.domain, weight=c.weight, i_c=c.i_c,
        **{"speaking_characters_w_env": speakers, **conv},
    )
    sample.character_profiles = {p: profiles[p] for p in sample.major_characters if p in profiles}
    if not sample.major_characters:
        sample.major_characters = [p for p in sample.speaking_characters_w_env if p in profiles]
        sample.character_profiles = {p: profiles[p] for p in sample.major_characters}
    return sample


def sample_test_set(books: Sequence[BookData], n: int = 200, *, seed: int = DEFAULT_SEED,
                    out_of_domain: Iterable[str] = (), domains: dict[str, Domain] | None = None,
                    per_domain: int | None = None) -> list[TestSample]:
    """``n`` test samples (half out-of-domain when any book is), or ``per_domain`` from each
    domain as the reference draws 100 + 100."""
    ood = set(out_of_domain)
    unknown = ood - {b.title for b in books}
    if unknown:
        from incanon.errors import ConfigError

        raise ConfigError(f"out-of-domain books not among the inputs: {', '.join(sorted(unknown))}")
    pool = candidates(books, ood, domains)
    has_ood = any(c.domain == "out-of-domain" for c in pool)
    if per_domain is not None:
        wanted = {"in-domain": per_domain, "out-of-domain": per_domain if has_ood else 0}
    else:
        wanted = {"in-domain": n - n // 2, "out-of-domain": n // 2} if has_ood else {"in-domain": n, "out-of-domain": 0}
    samples: list[TestSample] = []
    for domain in ("in-domain", "out-of-domain"):
        top = keep_top([c for c in pool if c.domain == domain], wanted[domain])
        picks = weighted_draws([c.weight for c in top], wanted[domain], seed)
        samples.extend(to_sample(top[i]) for i in picks)
    return samples
