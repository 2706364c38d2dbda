"""Where, by whom and what each question is asked: decided before the simulation, from the seed.

For every session of the dialogue where at least two characters speak, one question, chosen as
the reference simulator (``simulator.py`` of the authors' repository) chooses it:

* **when**: at a random utterance of the main character (not its first, when it has more than
  one); a session where the main character never speaks gets no question;
* **who**: a character speaking within the reference's window around that utterance (three
  turns before it to two after), never the main character and never a group speaker such as
  "All"; when nobody is left, the session gets no question;
* **what**: a TKG question with probability 1 - ``fan_ratio`` (0.7), else a fan-quiz one (the
  other kind when a session has only one). Then the *type* first: the session's question types
  are listed, and the answerable types repeated (in a shuffled order) until the unanswerable
  ones (``fu`` types for the TKG, ``unans`` types for the fan quiz, or any type whose every
  question is unanswerable) make up less than 21.5 % (TKG) or 27 % (fan quiz) of the list; one
  type is drawn from that list, then up to 20 questions of it, and the first that does not name
  the current month or year ("in 1994", "September 1994": the reference's check, TKG only) is
  asked. This gives the paper's mix of one-hop, two-hop and tense types; the report shows the
  mix a run realised.

Each session draws from its own generator seeded with (seed, session), in a fixed order, so the
same seed asks the same questions at the same places whatever the agent does, and adding a
session never shifts the questions of the others.

Under the paper protocol (``config.protocol == "paper"``) three choices follow the reference
instead: the askers exclude only names containing the main character's and the exact "all";
a drawn question is passed over when it has no wording for the asker and no published
``default`` one, or when its oracle evidence names a date no session has (the reference's
evidence builder fails on it); and the session asks nothing when the question chosen has a gold
answer equal to none of its options (ignoring case). ``Plan.dropped`` counts each.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date as Date
from typing import Any

from incanon.bench.dialsim.questions import Question, reference_gold_matches
from incanon.bench.dialsim.script import DialScript, DialSession

BEFORE, AFTER = 3, 2
"""The asker window: utterances ``index - 3`` to ``index + 2`` (the reference's
``range(max(0, i - 3), min(n, i + 3))``)."""
DRAWS = 20
"""Questions drawn from the chosen type before giving up (the reference's 20)."""
GROUP_SPEAKERS = frozenset({"all", "everyone", "everybody", "both", "together", "others", "the others",
                            "crowd", "group", "the group", "guys", "the guys", "people"})
_GROUP_PATTERN = re.compile(r"\band\b|&|,|/|\+")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


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
    dropped: dict[str, dict[str, int]] = field(default_factory=dict)
    """Session id → reason → drawn questions the paper protocol passed over there."""

    def drop(self, session: str, reason: str) -> None:
        """Count one drawn question passed over in ``session``."""
        counts = self.dropped.setdefault(session, {})
        counts[reason] = counts.get(reason, 0) + 1

    def dropped_total(self) -> dict[str, int]:
        """Reason → drawn questions passed over, over all sessions."""
        total: dict[str, int] = {}
        for counts in self.dropped.values():
            for reason, n in counts.items():
                total[reason] = total.get(reason, 0) + n
        return total

    def signature(self) -> list[tuple[str, int, str, str]]:
        """(session, utterance, asker, question id) of every question: equal plans, equal lists."""
        return [(p.session, p.index, p.asker, p.question.id) for p in self.asked.values()]


def is_group_speaker(name: str) -> bool:
    """"All", "Everyone", "Ross and Rachel", "Joey & Chandler": speakers that are not one person."""
    folded = " ".join(name.split()).casefold()
    return folded in GROUP_SPEAKERS or bool(_GROUP_PATTERN.search(folded))


NO_WORDING = "no wording for the asker and no published default"
NO_EVIDENCE = "oracle evidence names a date with no session"
NO_GOLD = "gold answer equals none of the options"
DROP_REASONS = (NO_WORDING, NO_EVIDENCE, NO_GOLD)


def _is_main(name: str, main: str) -> bool:
    # The reference drops every speaker whose name contains the agent's ("Ross (on phone)").
    return main.casefold() in name.casefold()


def may_ask(name: str, main: str, paper: bool = False) -> bool:
    """Whether ``name`` may ask: never the main character; under the paper protocol every other
    speaker but the exact "all" (the reference's filter), else no group speaker either."""
    if _is_main(name, main):
        return False
    return name.casefold() != "all" if paper else not is_group_speaker(name)


def _timing(session: DialSession, main: str, rng: random.Random,
            paper: bool = False) -> tuple[int, list[str]] | str:
    """(utterance index, possible askers), or why there is none."""
    lines = session.lines
    own = [i for i, line in enumerate(lines) if line.speaker == main]
    if not own:
        return "the main character does not speak"
    if len(own) > 1:
        own = own[1:]
    index = rng.choice(own)
    window = lines[max(0, index - BEFORE): min(len(lines), index + AFTER + 1)]
    askers = sorted({ln.speaker for ln in window if may_ask(ln.speaker, main, paper)})
    if not askers:
        return "nobody else speaks near the main character"
    return index, askers


def names_current_period(text: str, iso_date: str) -> bool:
    """The reference's check: the question says "…n <year>" or "<Month> <year>" of the day it is asked."""
    try:
        day = Date.fromisoformat(iso_date[:10])
    except ValueError:
        return False
    year = str(day.year)
    return f"n {year}" in text or f"{_MONTHS[day.month - 1]} {year}" in text


def _unanswerable_type(name: str, questions: list[Question], marker: str) -> bool:
    return marker in name or all(not q.answerable for q in questions)


def weighted_types(by_type: dict[str, list[Question]], marker: str, share: float, rng: random.Random) -> list[str]:
    """The reference's type list: answerable types appended (shuffled, round after round) until
    unanswerable types are less than ``share`` of it."""
    types = sorted(t for t, qs in by_type.items() if qs)
    unanswerable = sum(_unanswerable_type(t, by_type[t], marker) for t in types)
    answerable = [t for t in types if not _unanswerable_type(t, by_type[t], marker)]
    listed = list(types)
    if answerable:
        rng.shuffle(answerable)
        while True:
            for t in answerable:
                if unanswerable / len(listed) < share:
                    return listed
                listed.append(t)
    return listed


def _draw(by_type: dict[str, list[Question]], type_: str, session: DialSession, tkg: bool,
          asker: str, rng: random.Random, plan: Plan | None = None) -> Question | None:
    """The first of up to 20 draws that may be asked; ``plan`` (paper protocol) counts the
    questions the reference would pass over."""
    pool = sorted(by_type[type_], key=lambda q: q.id)
    for _ in range(DRAWS):
        q = rng.choice(pool)
        if tkg and names_current_period(q.texts["default"], session.date):
            continue
        if plan is None:
            return q  # every question has a default wording (incanon's, where the source had none)
        if asker not in q.texts and q.invented_default:
            plan.drop(session.id, NO_WORDING)
        elif q.unresolved_evidence:
            plan.drop(session.id, NO_EVIDENCE)
        else:
            return q
    return None


def plan_simulation(script: DialScript, questions: Iterable[Question], *, seed: int | None = None,
                    config: Any = None) -> Plan:
    """The questions of one simulation (see the module docstring). ``config`` is a ``SimConfig``
    (its seed, fan ratio and unanswerable shares); ``seed`` overrides its seed."""
    fan_ratio = getattr(config, "fan_ratio", 0.3)
    tkg_share = getattr(config, "tkg_unanswerable_share", 0.215)
    fan_share = getattr(config, "fan_unanswerable_share", 0.27)
    seed = seed if seed is not None else getattr(config, "seed", 0)
    paper = getattr(config, "protocol", "incanon") == "paper"
    pools: dict[str, dict[str, dict[str, list[Question]]]] = defaultdict(lambda: {"fan": defaultdict(list),
                                                                                   "tkg": defaultdict(list)})
    for q in questions:
        pools[q.session]["fan" if q.source == "fan" else "tkg"][q.type].append(q)
    plan = Plan(seed=seed)
    for session in script.dialogue:
        rng = random.Random(f"dialsim:{seed}:{session.id}")
        if len(set(session.speakers)) < 2:
            plan.skipped[session.id] = "fewer than two speakers"
            continue
        timing = _timing(session, script.main, rng, paper)
        if isinstance(timing, str):
            plan.skipped[session.id] = timing
            continue
        index, askers = timing
        asker = rng.choice(askers)
        fan, tkg = pools[session.id]["fan"], pools[session.id]["tkg"]
        if not fan and not tkg:
            plan.skipped[session.id] = "no candidate question"
            continue
        use_tkg = (rng.random() >= fan_ratio and bool(tkg)) or not fan
        note = "" if (bool(fan) and bool(tkg)) else ("only TKG questions here" if use_tkg else "only fan-quiz questions here")
        by_type, marker, share = (tkg, "fu", tkg_share) if use_tkg else (fan, "unans", fan_share)
        type_ = rng.choice(weighted_types(by_type, marker, share, rng))
        question = _draw(by_type, type_, session, use_tkg, asker, rng, plan if paper else None)
        if question is None:
            plan.skipped[session.id] = (f"no drawn {type_} question could be asked ({', '.join(sorted(plan.dropped[session.id]))})"
                                        if session.id in plan.dropped else
                                        f"every drawn {type_} question names the current month or year")
            continue
        if paper and not reference_gold_matches(question):
            plan.drop(session.id, NO_GOLD)
            plan.skipped[session.id] = f"the drawn question's {NO_GOLD}"
            continue
        plan.asked[session.id] = PlannedQuestion(session.id, index, asker, question, note)
    return plan
