"""The spatiotemporal judge's rubric agrees with the labels it is given."""

from incanon.judges import spatiotemporal_label
from incanon.templates import default_library


def _rubric() -> str:
    return default_library().render("judge_spatiotemporal", character="Ron", when="Halloween, 2nd year",
                                    question="Were you there?", answer="No.", label="Presence: ...")


def test_pleading_absence_is_not_consistent_by_default():
    text = _rubric()
    assert "staying vague" not in text and "or were not there" not in text
    # A past-presence label must fail an answer that claims to have missed the event...
    assert "says the character missed, or knows nothing of, an event the label says they were at" in text
    # ...and leaving out the true answer is an error (the "incomplete" hallucination type).
    assert "leaves out, what the label gives as the true answer" in text
    assert "only where the label itself says the event is still to come or that the character was not there" in text


def test_the_presence_label_forbids_claiming_absence():
    label = spatiotemporal_label("past-presence", "Ron", "Halloween", "The car flew.")
    assert "must not claim to have missed it" in label
