"""Questions: one asked-in-a-session instance each, with its options, gold answer and evidence.

The same fact yields different questions in different sessions (tense, date, and whether the
main character can know it), so a question is tied to the session it may be asked in, the way the
published DialSim data lists candidate questions per session. Files are JSON Lines.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError, model_validator

from incanon.errors import InputError
from incanon.files import write_lines_atomic
from incanon.jsonlines import iter_jsonl_objects

Category = Literal["fan", "one-hop", "two-hop", "unanswerable"]
CATEGORIES: tuple[Category, ...] = ("fan", "one-hop", "two-hop", "unanswerable")
IDK = "I don't know."
MARKERS = ("(A)", "(B)", "(C)", "(D)", "(E)")


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold().rstrip(".")


class Question(BaseModel):
    """A candidate question of one session."""

    id: str
    """Unique within a file."""
    session: str
    """The session it may be asked in."""
    source: Literal["tkg", "fan", "published"]
    hops: int = 1
    """1 or 2 for TKG questions; 0 when unknown (fan quizzes)."""
    type: str
    """Fine-grained type: ``cur``, ``past``, ``fu``, ``unseen``, ``past_cur``..., or the
    published data's ``ans_w_time``, ``dont_know_unans``..."""
    answerable: bool
    texts: dict[str, str]
    """``default`` → the question as generated; character name → in that character's voice."""
    answer: str
    """The gold answer as text (``I don't know.`` when unanswerable)."""
    options: list[str]
    """Five choices; the last is ``I don't know.``."""
    evidence: list[str] = Field(default_factory=list)
    """Session ids that hold the answer (given to the oracle)."""
    facts: list[list[str]] = Field(default_factory=list)
    """The TKG quadruples behind the question, ``[head, relation, tail, date]``."""
    asked_to: str = ""
    """The main character whose knowledge decided answerability ("" when unknown)."""
    invented_default: bool = False
    """True when the source had no ``default`` wording and incanon took its first one (published
    data): the paper protocol then asks it only of a character it has a wording for."""
    unresolved_evidence: list[str] = Field(default_factory=list)
    """Evidence dates of the authors' oracle file that name no session heard by then (the
    reference cannot build such a question's evidence and passes it over)."""

    @model_validator(mode="after")
    def _check(self) -> "Question":
        if "default" not in self.texts:
            raise ValueError("texts needs a 'default' question")
        if len(self.options) != 5:
            raise ValueError(f"expected 5 options, got {len(self.options)}")
        if self.gold_index() is None:
            raise ValueError(f"the answer {self.answer!r} is not among the options")
        return self

    def gold_index(self) -> int | None:
        """Where the gold answer is among the options (an unanswerable question's is the
        ``I don't know`` option, (E) unless a published file puts it elsewhere)."""
        for i, option in enumerate(self.options):
            if _fold(option) == _fold(self.answer):
                return i
        if not self.answerable:
            return next((i for i, o in enumerate(self.options) if _fold(o) == _fold(IDK)), 4)
        return None

    @property
    def gold_marker(self) -> str:
        """``(A)``...``(E)``."""
        index = self.gold_index()
        assert index is not None
        return MARKERS[index]

    @property
    def category(self) -> Category:
        """What the report groups by: fan / one-hop / two-hop / unanswerable."""
        if not self.answerable:
            return "unanswerable"
        if self.source == "fan":
            return "fan"
        return "two-hop" if self.hops >= 2 else "one-hop"

    def text_for(self, asker: str) -> str:
        """The question in ``asker``'s voice when there is one, else the default wording."""
        return self.texts.get(asker) or self.texts["default"]


def options_with_idk(choices: list[str]) -> list[str]:
    """Four choices plus ``I don't know.`` as (E)."""
    return [*choices, IDK]


def category_of(type_: str, answer: str, *, fan: bool, hops: int) -> Category:
    """A published question's category from its type name and gold answer."""
    unans = "unans" in type_ or type_ == "fu" or "fu" in type_.split("_") or _fold(answer) == _fold(IDK)
    if unans:
        return "unanswerable"
    if fan:
        return "fan"
    return "two-hop" if hops >= 2 else "one-hop"


_LATER_FIELDS = {"invented_default": False, "unresolved_evidence": []}
"""Fields added after question files were first written: left out while they hold their
default, so older files and run ids stay the same."""


def question_json(question: Question) -> str:
    """One question as its JSON line (fields at their later-added defaults left out)."""
    return question.model_dump_json(exclude={k for k, v in _LATER_FIELDS.items() if getattr(question, k) == v})


def reference_gold_matches(question: Question) -> bool:
    """The reference's check: the gold answer equals an option, ignoring case only."""
    return any(question.answer.lower() == option.lower() for option in question.options)


def write_questions(questions: Iterable[Question], path: str | Path) -> int:
    """Write JSON Lines (atomically); returns the count."""
    return write_lines_atomic(path, (question_json(q) for q in questions))


def read_questions(path: str | Path) -> list[Question]:
    """Read a JSON Lines question file; a bad line is an error naming its number."""
    p = Path(path).expanduser()
    questions: list[Question] = []
    seen: set[str] = set()
    for where, row in iter_jsonl_objects(p, "questions file"):
        try:
            q = Question.model_validate(row)
        except (ValueError, ValidationError) as exc:
            first = exc.errors()[0] if isinstance(exc, ValidationError) and exc.errors() else None
            why = (f"field {'.'.join(str(x) for x in first['loc']) or '(row)'}: {first['msg']}" if first
                   else str(exc).splitlines()[0])
            raise InputError(f"not a question: {why}", source=str(p), where=where) from None
        if q.id in seen:
            raise InputError(f"question id {q.id!r} repeats", source=str(p), where=where)
        seen.add(q.id)
        questions.append(q)
    if not questions:
        raise InputError("holds no questions", source=str(p))
    return questions
