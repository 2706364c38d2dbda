"""The reference's *calibrated* multiple-choice verdict, next to the strict one.

The authors' simulator records two verdicts per question: the strict one of the marker rule
(:func:`incanon.bench.dialsim.scoring.score_mc`) and a calibrated one (``calibrate`` in their
``post_processing/process_answer.py``, called with ``lenient=True``), and two scores: the share
of "Correct" in each list. Calibration only touches *ambiguous* answers (several markers); every
other verdict is kept. An ambiguous answer becomes:

1. the (E) choice when it says "none of the options";
2. else, trying the options (A) to (E) in turn: the option of "answer is (X)" when the answer
   says so; and, when the answer has an ``[EXPLANATION]`` part, the gold option when the part
   before it names the gold marker and the whole answer names no other upper-case marker
   (otherwise still ambiguous), or, leniently, when the part before it (upper-cased, as the
   reference compares it) holds the gold option's text and no other option's text;
3. else wrong (and still ambiguous).

The same function gives the calibrated verdict of an incanon run and re-derives the recorded
one of a released log (tests check both against fixtures built in the authors' layout).
"""

from __future__ import annotations

from collections.abc import Sequence

from incanon.bench.dialsim.questions import MARKERS

_EXPLANATION = "[EXPLANATION]"


def _verdict(chosen: str, gold_marker: str) -> str:
    return "correct" if chosen == gold_marker else "wrong"


def calibrate_mc(verdict: str, answer: str, gold_marker: str, options: Sequence[str]) -> str:
    """The calibrated verdict (``correct``, ``wrong`` or ``ambiguous``) of a multiple-choice answer
    whose strict verdict is ``verdict``; ``options`` are the five choice texts, (A) to (E)."""
    if verdict != "ambiguous":
        return verdict
    if "none of the options" in answer:
        return _verdict("(E)", gold_marker)
    gold_text = options[MARKERS.index(gold_marker)].strip() if len(options) == len(MARKERS) else ""
    for option in MARKERS:
        if f"answer is {option}" in answer:
            return _verdict(option, gold_marker)
        if _EXPLANATION in answer.upper():
            explicit = answer.upper().split(_EXPLANATION)[0]
            if gold_marker in explicit:
                if any(m in answer for m in MARKERS if m != gold_marker):
                    return "ambiguous"
                return "correct"
            if gold_text and gold_text in explicit:
                others = [o.strip() for i, o in enumerate(options) if i != MARKERS.index(gold_marker)]
                return "ambiguous" if any(o and o in explicit for o in others) else "correct"
    return "wrong"
