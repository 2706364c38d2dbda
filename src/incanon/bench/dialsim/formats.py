"""How a question is put to the agent: multiple choice, the same choices in words, or open.

* ``mc``: the question and five lines ``(A) ...`` to ``(E) I don't know.``; scored by marker.
* ``mc-nl``: the choices said in a sentence ("Is it Jory, Dace, Nell or Pell, or don't you
  know?"); scored like open answers.
* ``open``: the question alone; exact match with the gold answer, else an LLM judge.
"""

from __future__ import annotations

from typing import Literal

from incanon.bench.dialsim.questions import MARKERS
from incanon.errors import ConfigError

AnswerFormat = Literal["mc", "mc-nl", "open"]
FORMATS: tuple[AnswerFormat, ...] = ("mc", "mc-nl", "open")


def check_format(value: str) -> AnswerFormat:
    if value not in FORMATS:
        raise ConfigError(f"unknown answer format {value!r}; use one of: {', '.join(FORMATS)}")
    return value  # type: ignore[return-value]


def render_question(question: str, options: list[str], answer_format: AnswerFormat) -> str:
    """The question as the agent hears it."""
    if answer_format == "open":
        return question
    if answer_format == "mc":
        return question + "\n" + "\n".join(f"{m} {o}" for m, o in zip(MARKERS, options))
    choices = options[:4]
    return f"{question} Is it {', '.join(choices[:-1])} or {choices[-1]}, or don't you know?"


def strip_choices(text: str) -> str:
    """The question without ``(A) ...`` choice lines (what retrieval should search with)."""
    lines = [ln for ln in text.splitlines() if not ln.strip()[:3] in MARKERS]
    return "\n".join(lines).strip()
