"""Penalty-based scoring of given-circumstance acting (CoSER §4.3 and Appendix C.3).

A critic lists the *flaws* of a simulated conversation for one dimension, each with a severity
from 1 (minor) to 5 (severe); the Storyline Quality rubric lets mechanical repetition go up to
10. A dimension's score starts at 100 and loses 5 points per severity point, with a length
correction that gives back 1.5 points (5 × 0.3) per actor message, since longer simulations
collect more flaws::

    score = max(0, min(100, 100 - 5 * (sum(severity) - 0.3 * actor_rounds)))

Severities are counted as CoSER's evaluator counts them: an integer counts as itself (0 counts
0, nothing is clamped), a flaw without a severity counts 1, and a severity written any other way
(``"4"``, ``4.0``, ``"severe"``) counts 0, since its sum keeps ``int`` values only. The lenient
reading (numbers read from text, clamped to 1-10) is available as ``coerce_flaws(...,
lenient=True)``. ``--no-length-penalty`` (``length_credit=0``) scores without the correction,
as in the released ``*_no_length_penalty`` files.

``actor_rounds`` counts the messages of the simulation not spoken by the Environment (original
messages given with continue-from included, as CoSER's evaluator counts them). A case's score is
the mean of its four dimensions; a run reports the mean of each dimension over its cases and the
mean of those four means.
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterable, Mapping, Sequence

from pydantic import BaseModel, Field

from incanon.bench.coser.formats import ENVIRONMENT

DIMENSIONS: tuple[str, ...] = (
    "Storyline Consistency",
    "Anthropomorphism",
    "Character Fidelity",
    "Storyline Quality",
)
"""The four dimensions, in the paper's Table 2 column order."""
PENALTY = 5.0
"""Points lost per severity point."""
LENGTH_CREDIT = 0.3
"""Severity points forgiven per actor message (λ = 1.5 points = 5 × 0.3)."""
MIN_SEVERITY = 1
MAX_SEVERITY = 10
"""Severities are 1-5; the repetition item of Storyline Quality may reach 10 (paper, Table 30)."""
NSP = "NSP"
"""Role name CoSER's files use for next-speaker decisions kept inside a simulation."""


def dimension_slug(dimension: str) -> str:
    """``Storyline Consistency`` → ``storyline_consistency`` (template names, score keys)."""
    return re.sub(r"[^a-z0-9]+", "_", dimension.lower()).strip("_")


def canonical_dimension(name: str) -> str | None:
    """The dimension ``name`` refers to, whatever its case and punctuation, or None."""
    slug = dimension_slug(name)
    for dimension in DIMENSIONS:
        if dimension_slug(dimension) == slug:
            return dimension
    return None


class Flaw(BaseModel):
    """One flaw a critic found."""

    instance: str = ""
    """What happened, in the critic's words."""
    type: str = ""
    """The rubric type (e.g. ``Emotional Depth``)."""
    severity: int = MIN_SEVERITY
    """The points this flaw costs: 1 (minor) to 5 (severe), up to 10 for repetition; as the
    reference counts a released file's value (0 stays 0, text counts 0)."""
    defaulted: bool = False
    """True when the critic gave no severity at all (counted as 1, as the reference does)."""
    uncounted: bool = False
    """True when a severity was given in a form the reference does not count (text, float)."""


def counted_severity(value: Any, *, present: bool = True) -> tuple[int, bool, bool]:
    """(points, defaulted, uncounted) of a severity as CoSER's evaluator sums it: missing or
    null → 1; an ``int`` → itself (``True`` is 1, as in Python's sum); anything else → 0."""
    if not present or value is None:
        return 1, True, False
    if isinstance(value, int):
        return int(value), False, False
    return 0, False, True


def coerce_severity(value: Any) -> int | None:
    """A severity as an int in range: ints, floats (rounded), numeric text ("4", "4/5",
    "severity 3 (moderate)"); None when nothing numeric is there."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    else:
        match = re.search(r"-?\d+(?:\.\d+)?", str(value))
        if not match:
            return None
        number = float(match.group())
    if not math.isfinite(number):
        return None
    return int(min(MAX_SEVERITY, max(MIN_SEVERITY, round(number))))


def coerce_flaws(raw: Any, *, lenient: bool = False) -> list[Flaw]:
    """Flaws from a critic's (or a released file's) list, severities counted as CoSER's
    evaluator counts them (``lenient``: numbers read from text and clamped to 1-10 instead).
    Entries that are not objects are kept as text counted 1, like a flaw without a severity."""
    if isinstance(raw, Mapping):
        raw = [raw]
    if not isinstance(raw, list):
        return []
    flaws: list[Flaw] = []
    for entry in raw:
        if isinstance(entry, Mapping):
            fields = {str(k).strip().lower(): v for k, v in entry.items()}
            if lenient:
                read = coerce_severity(fields.get("severity"))
                points, defaulted, uncounted = (read, False, False) if read is not None else (MIN_SEVERITY, True, False)
            else:
                # The reference reads the exact key ``severity`` (``Severity`` counts as missing).
                points, defaulted, uncounted = counted_severity(entry.get("severity"), present="severity" in entry)
            flaws.append(Flaw(
                instance=str(fields.get("instance") or fields.get("comment") or fields.get("description") or ""),
                type=str(fields.get("type") or fields.get("flaw type") or ""),
                severity=points, defaulted=defaulted, uncounted=uncounted,
            ))
        elif isinstance(entry, str) and entry.strip():
            flaws.append(Flaw(instance=entry.strip(), severity=MIN_SEVERITY, defaulted=True))
    return flaws


def dimension_score(severities: Iterable[int | float], actor_rounds: int, *,
                    penalty: float = PENALTY, length_credit: float = LENGTH_CREDIT) -> float:
    """``max(0, min(100, 100 - penalty * (Σ severity - length_credit * actor_rounds)))``."""
    total = sum(float(s) for s in severities)
    return max(0.0, min(100.0, 100.0 - penalty * (total - length_credit * actor_rounds)))


def message_role(message: Mapping[str, Any]) -> str:
    """The speaker of a simulated message (``role`` in CoSER's files, ``character`` in its data)."""
    return str(message.get("role", message.get("character", "")))


def actor_rounds(messages: Sequence[Mapping[str, Any]]) -> int:
    """Messages spoken by characters: not the Environment, not next-speaker bookkeeping."""
    return sum(1 for m in messages if message_role(m) not in (ENVIRONMENT, NSP))


class DimensionResult(BaseModel):
    """A critic's flaws for one dimension and the score they give."""

    dimension: str
    flaws: list[Flaw] = Field(default_factory=list)
    score: float | None = None
    """None when no critique could be read for this dimension."""

    @property
    def severity(self) -> int:
        return sum(f.severity for f in self.flaws)


def case_score(scores: Mapping[str, float | None]) -> float | None:
    """Mean of the four dimension scores; None unless all four exist."""
    values = [scores.get(d) for d in DIMENSIONS]
    if any(v is None for v in values):
        return None
    return sum(values) / len(values)  # type: ignore[arg-type]


def mean(values: Iterable[float | None]) -> float | None:
    """Mean of the values that exist; None when none do."""
    present = [float(v) for v in values if v is not None]
    return sum(present) / len(present) if present else None


class Aggregate(BaseModel):
    """One row of the Table 2 layout: means over a set of cases."""

    cases: int = 0
    """Cases in the row."""
    judged: int = 0
    """Cases with all four dimension scores."""
    dimensions: dict[str, float | None] = Field(default_factory=dict)
    """Dimension → mean over the cases that have it."""
    average: float | None = None
    """Mean of the four dimension means (None unless all four exist)."""
    bleu: float | None = None
    """Mean BLEU, 0-100."""
    rouge_l: float | None = None
    """Mean ROUGE-L F1, 0-100."""


def aggregate(rows: Sequence[Mapping[str, float | None]]) -> Aggregate:
    """Aggregate per-case score dicts keyed by dimension name, ``bleu`` and ``rouge_l``."""
    dims = {d: mean(r.get(d) for r in rows) for d in DIMENSIONS}
    return Aggregate(
        cases=len(rows),
        judged=sum(1 for r in rows if case_score(r) is not None),
        dimensions=dims,
        average=case_score(dims),
        bleu=mean(r.get("bleu") for r in rows),
        rouge_l=mean(r.get("rouge_l") for r in rows),
    )
