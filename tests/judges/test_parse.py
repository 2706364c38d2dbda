import pytest

from incanon.judges import parse_score


@pytest.mark.parametrize(
    "text, expected",
    [
        ("The answer stays in the past.\nScore: 1", 1),
        ("**Score**: 0", 0),
        ("Reasoning mentions score: 1 as an example.\nFinal score: 0", 0),  # last verdict wins
        ("Score: 1\nScore: 1", 1),  # repeated
        ("I would give it one.\nScore: one", 1),  # number word
        ("verdict = 0/1", 0),
        ("Thinking...\n\n1", 1),  # bare number on the last line
        ("Score: 7", None),  # out of range for a 0/1 judge
        ("No verdict here.", None),
        ("", None),
    ],
)
def test_binary_scores_from_messy_outputs(text, expected):
    assert parse_score(text, {0, 1}) == expected


@pytest.mark.parametrize(
    "text, expected",
    [("Rating: 6/7", 6), ("[[5]]", 5), ("score is seven", 7), ("Score: 8", None), ("Score: 4.5", None)],
)
def test_range_scores(text, expected):
    assert parse_score(text, (1, 7)) == expected


def test_parse_never_returns_a_string():
    assert isinstance(parse_score("Score: 1", {0, 1}), int)
