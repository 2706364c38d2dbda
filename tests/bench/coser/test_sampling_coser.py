"""Test-set sampling as the reference draws it, on hand-computed weights: max(1, √plots) per
character (unknown speakers 1), mean over speakers, keep max(n, half), numpy draws seeded 42."""

from __future__ import annotations

import math

import pytest

from incanon.bench.coser.formats import BookData
from incanon.bench.coser.files import load_test_set, write_test_set
from incanon.bench.coser.files import held_out_books, load_sampling_source
from incanon.bench.coser.sampling import (
    candidates,
    character_weights,
    conversation_weight,
    keep_top,
    sample_test_set,
    stable_order,
    weighted_draws,
)
from incanon.errors import InputError
from incanon.errors import ConfigError


def _conv(*speakers: str, listed: tuple[str, ...] = ()) -> dict:
    return {
        "scenario": "s", "topic": "t",
        "key_characters": [{"name": n, "thought": f"{n} wants"} for n in listed],
        "dialogues": [{"character": s, "message": f"[x] line of {s}"} for s in speakers],
    }


def _book(title: str = "Book", *, plots_a: int = 4, plots_b: int = 1, plots_c: int = 9) -> BookData:
    """Ten plots, the last one held out with five conversations of known weight.

    Weights: A √4 = 2, B √1 = 1, C √9 = 3, anyone unknown 1; D has no plot: max(1, 0) = 1.
    """
    def entries(n: int) -> list[dict]:
        return [{"name": "x", "i_p": i} for i in range(n)]

    held_out = {"summary": "the end", "key_characters": [{"name": "A"}],
                "conversation": [
                    _conv("A", "B"),                        # (2 + 1) / 2 = 1.5
                    _conv("C", "Environment"),              # 3 / 1 = 3 (Environment is no character)
                    _conv("B", "Stranger"),                 # (1 + 1) / 2 = 1 (unknown speaker: 1)
                    _conv("A", "D", listed=("A", "C")),     # (2 + 1) / 2 = 1.5 (only speakers count)
                    _conv("Environment"),                   # nobody speaks: 1
                ]}
    plots = [{"summary": f"p{i}", "conversation": [_conv("A", "B")]} for i in range(9)] + [held_out]
    return BookData.model_validate({
        "title": title, "plots": plots, "split_plot_index": 9,
        "character_datasets": {
            "A": {"profile": "A's profile", "plots": entries(plots_a)},
            "B": {"profile": "B's profile", "plots": entries(plots_b)},
            "C": {"profile": "", "plots": entries(plots_c)},
            "D": {"profile": "D's profile", "plots": []},
        },
    })


def test_character_and_conversation_weights_by_hand():
    book = _book()
    weights = character_weights(book)
    assert weights == {"A": 2.0, "B": 1.0, "C": 3.0, "D": 1.0}
    convs = book.plots[-1].conversation
    assert [conversation_weight(c, weights) for c in convs] == [1.5, 3.0, 1.0, 1.5, 1.0]


def test_every_held_out_conversation_is_a_candidate_in_book_order():
    pool = candidates([_book()])
    assert [c.weight for c in pool] == [1.5, 3.0, 1.0, 1.5, 1.0]
    assert {c.i_p for c in pool} == {9} and [c.i_c for c in pool] == [0, 1, 2, 3, 4]


def test_keep_max_of_n_and_half_stable_by_weight():
    pool = candidates([_book()])
    assert [(c.weight, c.i_c) for c in keep_top(pool, 1)] == [(3.0, 1), (1.5, 0)]      # half of 5 = 2
    assert [(c.weight, c.i_c) for c in keep_top(pool, 3)] == [(3.0, 1), (1.5, 0), (1.5, 3)]


def test_draws_are_numpy_choice_with_redraws_of_duplicates():
    import numpy as np

    weights = [3.0, 1.5, 1.5]
    rng = np.random.RandomState(42)
    expected: list[int] = []
    while len(expected) < 2:
        pick = int(rng.choice(3, p=np.array(weights) / sum(weights)))
        if pick not in expected:
            expected.append(pick)
    assert weighted_draws(weights, 2, 42) == expected
    assert sorted(weighted_draws(weights, 5, 42)) == [0, 1, 2]


def test_sample_is_seeded_and_carries_context():
    book = _book()
    one = sample_test_set([book], 2, seed=42)
    assert sample_test_set([book], 2, seed=42) == one
    assert sorted(s.weight for s in one) == [1.5, 3.0] and len({s.id for s in one}) == 2
    (sample,) = [s for s in one if s.weight == 3.0]
    assert sample.book == "Book" and sample.plot.i_p == 9 and sample.i_c == 1
    assert sample.speaking_characters_w_env == ["C", "Environment"] and sample.major_characters == ["C"]
    assert sample.character_profiles == {"C": ""}
    assert sample.published()["tag"] == "id" and sample.published()["i_p"] == 9


def test_in_domain_and_out_of_domain_halves(tmp_path):
    books = [_book("Seen"), _book("Unseen")]
    samples = sample_test_set(books, 4, seed=3, out_of_domain=["Unseen"])
    assert [(s.book, s.domain) for s in samples].count(("Seen", "in-domain")) == 2
    assert [(s.book, s.domain) for s in samples].count(("Unseen", "out-of-domain")) == 2
    path = write_test_set(samples, tmp_path / "test.json")
    assert [s.domain for s in load_test_set(path)] == [s.domain for s in samples]
    with pytest.raises(ConfigError, match="Missing"):
        sample_test_set(books, 4, out_of_domain=["Missing"])


def test_asking_for_more_than_there_is_returns_everything():
    assert len(sample_test_set([_book()], 50, seed=0)) == 5


def test_held_out_plots_layout_loads_with_domains_and_stored_weights(tmp_path):
    import json

    plot = {"summary": "s", "key_characters": [], "i_p": 41, "conversation": [
        {**_conv("A", "B"), "weight": 7.0, "speaking_characters_w_env": ["A", "B"], "major_characters": ["A"]}]}
    path = tmp_path / "held_out_plots.json"
    path.write_text(json.dumps({"id": {"Seen": {"character_profiles": {"A": "pa"}, "plots": [plot]}},
                                "ood": {"Unseen": {"character_profiles": {}, "plots": [plot]}}}))
    books, domains = load_sampling_source(path)
    assert [b.title for b in books] == ["Seen", "Unseen"] and domains == {"Seen": "in-domain", "Unseen": "out-of-domain"}
    samples = sample_test_set(books, 2, domains=domains)
    assert [(s.book, s.plot.i_p, s.weight, s.domain) for s in samples] == [
        ("Seen", 41, 7.0, "in-domain"), ("Unseen", 41, 7.0, "out-of-domain")]
    assert samples[0].character_profiles == {"A": "pa"}
    with pytest.raises(InputError, match="held_out_plots.json"):
        load_test_set(path)
    with pytest.raises(InputError, match="plots"):
        held_out_books({"id": {"X": {"plots": 3}}}, source="f.json")


def test_folder_books_come_in_the_reference_order():
    # 31-multiplier hash of "<title>.json", as the reference's stable_shuffle.
    def h(text: str) -> int:
        value = 0
        for ch in text:
            value = (31 * value + ord(ch)) & 0xFFFFFFFF
        return value

    titles = ["Othello", "King Lear", "Pride and Prejudice", "Dracula"]
    assert stable_order(titles) == sorted(titles, key=lambda t: h(t + ".json"))
