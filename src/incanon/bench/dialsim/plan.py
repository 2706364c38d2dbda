"""Where, by whom and what each question is asked: decided before the simulation, from the seed.

For every session the main character is in and where at least two characters speak, one
question (Algorithm 1 of the paper):

* **when**: after a random utterance of the main character (not its first, when it has more
  than one), so the question comes up where the character is talking;
* **who**: a character other than the main one who speaks within three turns of that utterance
  (still there, not gone);
* **what**: a fan-quiz question with probability ``fan_ratio`` when the session has any (else a
  TKG question), and an unanswerable one with probability ``unanswerable_ratio``; then one
  candidate at random. When the wanted kind has no candidate the other is used, and the plan says so.

Each session draws from its own generator seeded with (seed, session), in a fixed order, so the
same seed asks the same questions at the same places whatever the agent does, and adding a
session never shifts the questions of the others.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from incanon.bench.dialsim.questions import Question
from incanon.bench.dialsim.script import DialScript, DialSession

WINDOW = 3
"""Turns on each side of the question point in which the asker must speak."""


@dataclass(frozen=True)
class PlannedQuestion:
    session: str
    index: int
    """The question follows the utterance with this 0-based index."""
    asker: str
    question: Question
    note: str = ""
    """Why the drawn kind was not available, if it was not."""


@dataclass
class Plan:
    seed: int
    asked: dict[str, PlannedQuestion] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    """Session id → why no question is asked there."""

    def signature(self) -> list[tuple[str, int, str, str]]:
        """(session, utterance, asker, question id) of every question: equal plans, equal lists."""
        return [(p.session, p.index, p.asker, p.question.id) for p in self.asked.values()]


def _timing(session: DialSession, main: str, rng: random.Random) -> tuple[int, list[str]] | None:
    lines = session.lines
    own = [i for i, line in enumerate(lines) if line.speaker == main]
    if len(own) > 1:
        own = own[1:]
    candidates = own or list(range(len(lines)))
    nearby = {i: sorted({lines[j].speaker for j in range(max(0, i - WINDOW), min(len(lines), i + WINDOW + 1))} - {main})
              for i in candidates}
    usable = [i for i in candidates if nearby[i]]
    index = rng.choice(usable) if usable else None
    return None if index is None else (index, nearby[index])


def _adjusted(target: float, forced_yes: int, forced_no: int, free: int) -> float:
    """The per-session probability that makes the whole simulation hit ``target`` in expectation,
    given sessions where the choice is forced one way or the other."""
    total = forced_yes + forced_no + free
    if free == 0 or total == 0:
        return target
    return min(1.0, max(0.0, (target * total - forced_yes) / free))


def _pick(fan: list[Question], tkg: list[Question], want_fan: bool, want_unanswerable: bool) -> tuple[list[Question], list[str]]:
    """Candidates of the wanted kind and answerability, relaxing answerability last."""
    first, second = (fan, tkg) if want_fan else (tkg, fan)
    for pool, answerable, note in ((first, not want_unanswerable, ""),
                                   (second, not want_unanswerable, "no fan-quiz question here" if want_fan else "no TKG question here"),
                                   (first, want_unanswerable, "no unanswerable candidate" if want_unanswerable else "no answerable candidate"),
                                   (second, want_unanswerable, "only the other kind and answerability")):
        chosen = [q for q in pool if q.answerable == answerable]
        if chosen:
            return chosen, [note] if note else []
    return [], []


def plan_simulation(
    script: DialScript, questions: Iterable[Question], *, seed: int = 0,
    unanswerable_ratio: float = 0.2, fan_ratio: float = 0.3,
) -> Plan:
    """The questions of one simulation (see the module docstring).

    Where a session's candidates force the kind (no fan quiz there) or the answerability (only
    unanswerable questions before anything was said), the other sessions' probabilities are
    adjusted so the simulation as a whole still aims at ``fan_ratio`` and ``unanswerable_ratio``.
    """
    pools: dict[str, dict[str, list[Question]]] = defaultdict(lambda: defaultdict(list))
    for q in questions:
        pools[q.session]["fan" if q.source == "fan" else "tkg"].append(q)
    sessions = [s for s in script.dialogue if len(set(s.speakers)) >= 2 and (pools[s.id]["fan"] or pools[s.id]["tkg"])]
    kinds = [(bool(pools[s.id]["fan"]), bool(pools[s.id]["tkg"])) for s in sessions]
    p_fan = _adjusted(fan_ratio, sum(f and not t for f, t in kinds), sum(t and not f for f, t in kinds),
                      sum(f and t for f, t in kinds))
    answer = [({q.answerable for k in ("fan", "tkg") for q in pools[s.id][k]}) for s in sessions]
    p_unans = _adjusted(unanswerable_ratio, sum(a == {False} for a in answer), sum(a == {True} for a in answer),
                        sum(a == {True, False} for a in answer))
    plan = Plan(seed=seed)
    for session in script.dialogue:
        rng = random.Random(f"dialsim:{seed}:{session.id}")
        if len(set(session.speakers)) < 2:
            plan.skipped[session.id] = "fewer than two speakers"
            continue
        timing = _timing(session, script.main, rng)
        if timing is None:
            plan.skipped[session.id] = "no other speaker near the main character"
            continue
        index, nearby = timing
        asker = rng.choice(nearby)
        want_fan, want_unanswerable = rng.random() < p_fan, rng.random() < p_unans
        fan, tkg = (sorted(pools[session.id][k], key=lambda q: q.id) for k in ("fan", "tkg"))
        wanted, notes = _pick(fan, tkg, want_fan, want_unanswerable)
        if not wanted:
            plan.skipped[session.id] = "no candidate question"
            continue
        plan.asked[session.id] = PlannedQuestion(session.id, index, asker, rng.choice(wanted), "; ".join(notes))
    return plan
