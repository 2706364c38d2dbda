"""Fan-quiz questions: loaded from a file with their evidence sessions, placed by answerability.

A quiz entry (JSON list or JSON Lines)::

    {"id": "q7", "question": "Who took the packet?", "answer": "Captain Rusk",
     "options": ["Captain Rusk", "Provost Hame", "Sefa Quill", "Pell"],   # four, the answer among them
     "evidence": ["session-9"],                   # sessions that answer it
     "question_with_time": "Who took the packet {time}?",   # optional dated form
     "episode": ["session-8", "session-9"],       # optional: where the undated form makes sense
     "sufficient": "any"}                         # default; "all": every evidence session is needed

Following the paper (its Appendix C): when one evidence scene is enough (``"any"``, the
default), the question is answerable in every session after the first evidence session the
main character witnessed; when the scenes must be taken together (``"all"``), only after the
last one, and only when the main character witnessed all of them. It is unanswerable
(``dont_know_unans``) after the last evidence session when they witnessed none of it, and
("before the event") before the first evidence session; other cases are left out (the paper:
"unclear whether they are answerable"). The dated form names the date of the latest evidence
session the answer rests on (the last one for ``"all"`` and for unanswerable questions).
"""

from __future__ import annotations

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
from incanon.reading import parse_json, read_text
from incanon.jsonlines import iter_jsonl


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
    sufficient: Literal["all", "any"] = "any"

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
    text = read_text(p, "fan-quiz file")
    if text.lstrip().startswith("["):
        rows = parse_json(text, str(p))
    else:
        rows = [value for _, value in iter_jsonl(p, "fan-quiz file")]
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise InputError("expected a list of fan-quiz objects", source=str(p))
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
        order = sorted(quiz.evidence, key=lambda e: script.by_id[e].order)
        first, last = order[0], order[-1]
        for n in script.dialogue:
            rng = random.Random(f"{seed}:{quiz.id}:{n.id}")
            in_episode = quiz.episode is None or n.id in quiz.episode
            heard = [e for e in order if knowledge.heard(e, n.id)]
            after_all = knowledge.before(last, n.id)
            if quiz.sufficient == "any" and heard:
                known, dated_from = True, heard[-1]
            elif quiz.sufficient == "all" and after_all and len(heard) == len(order):
                known, dated_from = True, last
            elif after_all and not heard:
                known, dated_from = False, last
            elif knowledge.after(first, n.id):
                if in_episode:
                    questions.append(_question(quiz, n.id, "before_event_unans", quiz.question, False, rng))
                continue
            else:
                continue  # heard part of what is needed, or evidence still to come: unclear
            kinds: list[tuple[str, str]] = []
            if in_episode:
                kinds.append(("ans_wo_time" if known else "dont_know_unans", quiz.question))
            if quiz.question_with_time:
                dated = quiz.question_with_time.replace("{time}", when(script.by_id[dated_from].date))
                kinds.append(("ans_w_time" if known else "dont_know_unans_time", dated))
            for type_, text in kinds:
                questions.append(_question(quiz, n.id, type_, text, known, rng))
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

