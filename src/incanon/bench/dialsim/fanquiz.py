"""Fan-quiz questions: loaded from a file with their evidence sessions, placed by answerability.

A quiz entry (JSON list or JSON Lines)::

    {"id": "q7", "question": "Who took the packet?", "answer": "Captain Rusk",
     "options": ["Captain Rusk", "Provost Hame", "Sefa Quill", "Pell"],   # four, the answer among them
     "evidence": ["session-9"],                   # sessions that answer it
     "question_with_time": "Who took the packet {time}?",   # optional dated form
     "episode": ["session-8", "session-9"],       # optional: where the undated form makes sense
     "sufficient": "all"}                         # or "any": one evidence session is enough

Following the paper (its Appendix C), in a session after all the evidence the question is
answerable when the main character heard the evidence (all of it, or any with ``"any"``) and
unanswerable when they heard none; a mixed case is left out. Before the first evidence session
the undated form is unanswerable ("before the event"). The dated form names the date of the last
evidence session and is only asked after it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError, field_validator

from incanon.bench.dialsim.answerability import Knowledge
from incanon.bench.dialsim.dates import when
from incanon.bench.dialsim.questions import IDK, Question, options_with_idk
from incanon.bench.dialsim.script import DialScript
from incanon.errors import InputError


class FanQuiz(BaseModel):
    """One fan-quiz entry."""

    id: str
    question: str
    answer: str
    options: list[str]
    evidence: list[str]
    question_with_time: str | None = None
    """The question with a ``{time}`` placeholder for the evidence date ("on March 22, 1187")."""
    episode: list[str] | None = None
    """Sessions where the undated question may be asked (None: all)."""
    sufficient: Literal["all", "any"] = "all"

    @field_validator("options")
    @classmethod
    def _four(cls, value: list[str]) -> list[str]:
        if len(value) != 4:
            raise ValueError(f"expected 4 options, got {len(value)}")
        return value

    @field_validator("evidence")
    @classmethod
    def _some(cls, value: list[str]) -> list[str]:
        if not value:
            raise ValueError("a fan-quiz question needs at least one evidence session")
        return value


def load_fan_quiz(path: str | Path) -> list[FanQuiz]:
    """Read a fan-quiz file (a JSON list, or one object per line)."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise InputError(f"fan-quiz file {p} does not exist")
    text = p.read_text(encoding="utf-8")
    try:
        rows = json.loads(text) if text.lstrip().startswith("[") else [
            json.loads(line) for line in text.splitlines() if line.strip()]
    except ValueError as exc:
        raise InputError(f"not JSON: {exc}", source=str(p)) from None
    return parse_fan_quiz(rows, source=str(p))


def parse_fan_quiz(rows: Iterable[dict], *, source: str = "fan quiz") -> list[FanQuiz]:
    quizzes = []
    for i, row in enumerate(rows):
        try:
            quiz = FanQuiz.model_validate(row)
        except ValidationError as exc:
            raise InputError(f"not a fan-quiz entry: {exc}", source=source, where=f"entry {i}") from None
        if quiz.answer.casefold() not in {o.casefold() for o in quiz.options}:
            raise InputError(f"the answer {quiz.answer!r} is not among the options", source=source, where=f"entry {i}")
        if quiz.question_with_time is not None and "{time}" not in quiz.question_with_time:
            raise InputError("question_with_time needs a {time} placeholder", source=source, where=f"entry {i}")
        quizzes.append(quiz)
    return quizzes


def fan_questions(quizzes: Iterable[FanQuiz], script: DialScript, knowledge: Knowledge, *, seed: int = 0) -> list[Question]:
    """Each quiz placed in every session of the dialogue where its answerability is clear."""
    questions: list[Question] = []
    for quiz in quizzes:
        unknown = [e for e in quiz.evidence if e not in script.by_id]
        if unknown:
            raise InputError(f"fan-quiz {quiz.id!r} cites unknown sessions: {', '.join(unknown)}")
        last = max(quiz.evidence, key=lambda e: script.by_id[e].order)
        first = min(quiz.evidence, key=lambda e: script.by_id[e].order)
        for n in script.dialogue:
            rng = random.Random(f"{seed}:{quiz.id}:{n.id}")
            in_episode = quiz.episode is None or n.id in quiz.episode
            if knowledge.before(last, n.id):
                heard = [knowledge.heard(e, n.id) for e in quiz.evidence]
                known = all(heard) if quiz.sufficient == "all" else any(heard)
                if not known and any(heard):
                    continue  # heard part of it: neither answerable nor a fair "I don't know"
                kinds: list[tuple[str, str]] = []
                if in_episode:
                    kinds.append(("ans_wo_time" if known else "dont_know_unans", quiz.question))
                if quiz.question_with_time:
                    dated = quiz.question_with_time.replace("{time}", when(script.by_id[last].date))
                    kinds.append(("ans_w_time" if known else "dont_know_unans_time", dated))
                for type_, text in kinds:
                    questions.append(_question(quiz, n.id, type_, text, known, rng))
            elif knowledge.after(first, n.id) and in_episode:
                questions.append(_question(quiz, n.id, "before_event_unans", quiz.question, False, rng))
    return questions


def _question(quiz: FanQuiz, session: str, type_: str, text: str, answerable: bool, rng: random.Random) -> Question:
    choices = list(quiz.options)
    rng.shuffle(choices)
    return Question(
        id=f"fan-{quiz.id}-{type_}@{session}", session=session, source="fan", hops=0, type=type_,
        answerable=answerable, texts={"default": text}, answer=quiz.answer if answerable else IDK,
        options=options_with_idk(choices), evidence=list(quiz.evidence),
    )


def fan_quiz_rows(quizzes: Iterable[FanQuiz]) -> list[dict]:
    """Quizzes back as plain rows (to store a copy next to the canon)."""
    return [q.model_dump(exclude_none=True) for q in quizzes]

