"""Test-set sampling on hand-computed weights: √plots per character, mean per conversation,
top half, weighted draws without replacement, seeded; in-domain / out-of-domain by book."""

from __future__ import annotations

import math

import pytest

from incanon.bench.coser.formats import BookData
from incanon.bench.coser.files import load_test_set, write_test_set
from incanon.bench.coser.sampling import (
    candidates,
    character_weights,
    conversation_weight,
    sample_test_set,
    top_half,
    weighted_sample,
)
from incanon.errors import ConfigError


def _conv(*speakers: str, listed: tuple[str, ...] = ()) -> dict:
    return {
        "scenario": "s", "topic": "t",
        "key_characters": [{"name": n, "thought": f"{n} wants"} for n in listed],
        "dialogues": [{"character": s, "message": f"[x] line of {s}"} for s in speakers],
    }


def _book(title: str = "Book", *, plots_a: int = 4, plots_b: int = 1, plots_c: int = 9) -> BookData:
    """Ten plots, the last one held out with five conversations of known weight.

    Weights: A √4 = 2, B √1 = 1, C √9 = 3, anyone else 0.
    """
    def entries(n: int) -> list[dict]:
        return [{"name": "x", "i_p": i} for i in range(n)]

    held_out = {"summary": "the end", "key_characters": [{"name": "A"}],
                "conversation": [
                    _conv("A", "B"),                        # (2 + 1) / 2 = 1.5
                    _conv("C", "Environment"),              # 3 / 1 = 3 (Environment is no character)
                    _conv("B", "Stranger"),                 # (1 + 0) / 2 = 0.5
                    _conv("A", listed=("A", "C")),          # (2 + 3) / 2 = 2.5 (listed side role counts)
                    _conv("Environment"),                   # nobody speaks: not a candidate
                ]}
    plots = [{"summary": f"p{i}", "conversation": [_conv("A", "B")]} for i in range(9)] + [held_out]
    return BookData.model_validate({
        "title": title, "plots": plots, "split_plot_index": 9,
        "character_datasets": {
            "A": {"profile": "A's profile", "plots": entries(plots_a)},
            "B": {"profile": "B's profile", "plots": entries(plots_b)},
            "C": {"profile": "", "plots": entries(plots_c)},
        },
    })


def test_character_and_conversation_weights_by_hand():
    book = _book()
    weights = character_weights(book)
    assert weights == {"A": 2.0, "B": 1.0, "C": 3.0}
    convs = book.plots[-1].conversation
    assert [conversation_weight(c, weights) for c in convs] == [1.5, 3.0, 0.5, 2.5, 0.0]
    assert math.isclose(conversation_weight(book.plots[0].conversation[0], {"A": math.sqrt(2), "B": 0}),
                        math.sqrt(2) / 2)


def test_candidates_are_held_out_conversations_with_a_speaker():
    pool = candidates([_book()])
    assert [c.weight for c in pool] == [1.5, 3.0, 0.5, 2.5]
    assert {c.i_p for c in pool} == {9} and [c.i_c for c in pool] == [0, 1, 2, 3]
    assert all(c.domain == "in-domain" for c in pool)


def test_top_half_rounds_up_and_ranks_by_weight():
    pool = candidates([_book()])
    assert [c.weight for c in top_half(pool)] == [3.0, 2.5]
    assert [c.weight for c in top_half(pool[:3])] == [3.0, 1.5]


class _Fixed:
    """An rng whose random() returns the given values in turn."""

    def __init__(self, *values: float):
        self.values = list(values)

    def random(self) -> float:
        return self.values.pop(0)


def test_weighted_draws_by_hand():
    # weights 1, 3, 6 (total 10): 0.05 → target 0.5 < 1 → item 0; then 3, 6 (total 9):
    # 0.5 → target 4.5 ≥ 3 → item 2; then only item 1 remains.
    assert weighted_sample([1, 3, 6], 3, _Fixed(0.05, 0.5, 0.99)) == [0, 2, 1]
    # 0.35 → target 3.5: 1 ≤ 3.5 < 4 → item 1.
    assert weighted_sample([1, 3, 6], 1, _Fixed(0.35)) == [1]
    # Zero weights wait until the positive ones are gone, then go uniformly.
    assert weighted_sample([0, 5, 0], 3, _Fixed(0.9, 0.0, 0.6)) == [1, 0, 2]
    assert weighted_sample([2, 2], 5, _Fixed(0.1, 0.1)) == [0, 1]


def test_weighted_draws_follow_the_weights_over_many_seeds():
    import random

    firsts = [weighted_sample([1, 3], 1, random.Random(seed))[0] for seed in range(2000)]
    share = firsts.count(1) / len(firsts)
    assert 0.70 < share < 0.80  # 3 / (1 + 3) = 0.75


def test_sample_is_seeded_without_replacement_from_the_top_half():
    book = _book()
    one = sample_test_set([book], 2, seed=7)
    assert sample_test_set([book], 2, seed=7) == one
    assert sorted(s.weight for s in one) == [2.5, 3.0]  # exactly the top half
    assert len({s.id for s in one}) == 2
    only = sample_test_set([book], 1, seed=1)
    assert len(only) == 1 and only[0].weight in (2.5, 3.0)


def test_samples_carry_context_and_profiles():
    (sample,) = [s for s in sample_test_set([_book()], 2, seed=0) if s.weight == 2.5]
    assert sample.book == "Book" and sample.plot.summary == "the end" and sample.plot.i_p == 9
    assert sample.motivation_of("C") == "C wants"
    assert sample.character_profiles == {"A": "A's profile"}  # C has an empty profile
    assert sample.speaking_characters_w_env == ["A"] and sample.major_characters == ["A"]
    assert sample.domain == "in-domain"


def test_in_domain_and_out_of_domain_halves(tmp_path):
    books = [_book("Seen"), _book("Unseen")]
    samples = sample_test_set(books, 4, seed=3, out_of_domain=["Unseen"])
    assert [(s.book, s.domain) for s in samples].count(("Seen", "in-domain")) == 2
    assert [(s.book, s.domain) for s in samples].count(("Unseen", "out-of-domain")) == 2
    path = write_test_set(samples, tmp_path / "test.json")
    assert [s.domain for s in load_test_set(path)] == [s.domain for s in samples]
    with pytest.raises(ConfigError, match="Missing"):
        sample_test_set(books, 4, out_of_domain=["Missing"])


def test_asking_for_more_than_the_top_half_returns_the_top_half():
    assert len(sample_test_set([_book()], 50, seed=0)) == 2
