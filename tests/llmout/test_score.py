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


# Judge outputs in the authors' format (their prompt: reason step by step, print the score on
# its own line, then repeat it alone on a new line). The reasoning quotes other scores.
PAPER_STYLE = [
    "1. The fact says Ron was present.\n2. A response denying it would get a score of 0.\n"
    "3. The response says he was there.\nTherefore the score of 0 does not apply.\n1\n1",
    "Step 1: knowledge scope ... Step 4: a contradiction would be scored 0, but there is none, "
    "so I assign a score of 1 rather than 0.\n\n1\n\n1",
    "Reasoning: an answer revealing the future would deserve Score: 0. This answer reveals "
    "nothing.\nScore: 1\n1",
    "The response is consistent (score of 0 would mean inconsistent).\n**1**\n1",
]


@pytest.mark.parametrize("text", PAPER_STYLE)
def test_the_final_line_wins_over_scores_quoted_in_the_reasoning(text):
    assert parse_score(text, {0, 1}) == 1


def test_incanon_prompt_style_and_the_authors_last_number_rule():
    assert parse_score("It leaks book 3.\nScore: 0", {0, 1}) == 0
    assert parse_score("Mostly in character, a 7 would be too high.\nScore: 6/7", (1, 7)) == 6
    assert parse_score("I give it a 5.", (1, 7)) == 5  # the last number alone on the final line
    assert parse_score("Score: 1\n(end of evaluation)", {0, 1}) == 1  # no score on the last line: look back
