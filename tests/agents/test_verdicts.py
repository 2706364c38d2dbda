import pytest

from incanon.agents import is_later, parse_period, parse_presence, parse_relative
from incanon.canon import Axis, Position

BOOKS = {"1": "Oil", "2": "The Storm", "3": "Ash"}


@pytest.mark.parametrize("text, expected", [
    ("Position: 2-5", "2-5"),
    ("Book 2, Chapter 5", "2-5"),
    ("book two chapter five", "2-5"),
    ("Book II, ch. 7", "2-7"),
    ("Chapter 4 of Book 3", "3-4"),
    ("It's in Chapter 4 of The Storm.", "2-4"),
    ("B3-C4", "3-4"),
    ("2-5-3", "2-5-3"),
    ("Book 1 chapter 2 is mentioned, but the scene is later.\nPosition: 3-1\nPosition: 3-1", "3-1"),
    ("The scene (1-2) is not it; it happens in book 3, chapter 2.", "3-2"),
    ("Position: <book number-chapter number>", None),
    ("no idea", None),
])
def test_periods_are_read_from_many_spellings(text, expected):
    found = parse_period(text, Axis.CHAPTER, BOOKS)
    assert (str(found) if found else None) == expected


def test_dates_on_a_date_axis():
    assert parse_period("It was on 2024-03-07.\nPosition: 2024-05-01", Axis.DATE) == Position.parse("2024-05-01")
    assert parse_period("Position: 2-5", Axis.DATE) is None


def test_is_later_compares_at_the_experts_granularity():
    at = Position.parse("2-5-3")
    assert not is_later(Position.parse("2-5"), at)  # same chapter: past, as in TimeChara
    assert is_later(Position.parse("2-6"), at)
    assert not is_later(Position.parse("2"), at) and is_later(Position.parse("3"), at)
    assert is_later(Position.parse("2-5-4"), at) and not is_later(Position.parse("2-5-3"), at)
    assert not is_later(Position.parse("1-9"), Position.parse("2"))


@pytest.mark.parametrize("text, expected", [
    ("Relative: future", "future"),
    ("It was in the past... no wait.\nRelative: **Future**", "future"),
    ("Relative: <past or future>", None),
    ("This is in the past.", "past"),
    ("nothing", None),
])
def test_relative_words(text, expected):
    assert parse_relative(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("Verdict: absent", "absent"),
    ("Verdict: **Present**", "present"),
    ("Ada was present earlier...\nVerdict: not present", "absent"),
    ("She wasn't there.", "absent"),
    ("Ada was a participant in the scene.", "present"),
    ("Verdict: <present or absent>\nunsure", None),
    ("Ada was absent, I think.\nVerdict: present or absent, hard to say", "absent"),
    ("hmm", None),
])
def test_presence_verdicts(text, expected):
    assert parse_presence(text) == expected
