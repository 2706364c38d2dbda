"""The reference repository's own prompt files, read from the user's clone (``--prompts-from DIR``).

incanon ships its own wording (:mod:`incanon.bench.dialsim.promptsets`); to compare with the
paper's numbers a user may instead point at the ``prompt/`` folder of their own clone of the
authors' repository. Its texts are used exactly as they are, filled the way the reference fills
them (plain text substitution of ``<<<...>>>`` markers, in the reference's order):

* answer, retrieval strategies: ``RAG_qa_prompt_<format>.txt``; the Base LLM (``recent``):
  ``naive_llm_inference_<format>.txt``; ``<format>`` is ``multi_choice_structured`` (mc),
  ``multi_choice_unstructured`` (mc-nl) or ``open_ended`` (open); markers ``<<<Date>>>``,
  ``<<<Dialog_History>>>``, ``<<<Question>>>``, ``<<<Chatbot>>>``;
* session summary: ``chatgpt_summarize_prompt.txt`` with ``<<<DIALOG>>>``;
* judge: ``gpt_as_a_judge_system_prompt.txt`` (system message as it is) and
  ``gpt_as_a_judge_user_prompt.txt`` with ``<<<QUESTION>>>``, ``<<<TRUEANSWER>>>``,
  ``<<<PREDICTION>>>``; the reply is JSON ``{"correct": bool, "wrong": bool}``, asked up to
  three times.

The question is laid out as the reference lays it out (``Asker: question``, then the options
as tab-indented ``(A) ...`` lines, or ``a? or b? or c? or d? or you don't know?``), and the
history is each remembered text followed by a newline, or ``No history.`` when there is none.
A missing file or a file without one of its markers is an error naming the file and the marker.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from incanon.bench.dialsim.scoring import Score, exact_match
from incanon.errors import ConfigError, InputError
from incanon.llmout import json_objects
from incanon.models.types import ChatModel, GenerationParams, Message
from incanon.reading import check_file, decode_text

FORMAT_FILES = {"mc": "multi_choice_structured", "mc-nl": "multi_choice_unstructured", "open": "open_ended"}
ANSWER_MARKERS = ("<<<Date>>>", "<<<Dialog_History>>>", "<<<Question>>>", "<<<Chatbot>>>")
SUMMARY_FILE, SUMMARY_MARKERS = "chatgpt_summarize_prompt.txt", ("<<<DIALOG>>>",)
JUDGE_SYSTEM_FILE = "gpt_as_a_judge_system_prompt.txt"
JUDGE_USER_FILE, JUDGE_MARKERS = "gpt_as_a_judge_user_prompt.txt", ("<<<QUESTION>>>", "<<<TRUEANSWER>>>", "<<<PREDICTION>>>")
JUDGE_TRIES = 3
"""The reference's patience: a judge reply that is neither correct nor wrong is asked again."""


def answer_file(answer_format: str, retrieval: bool) -> str:
    """The reference's answer prompt file for a format and memory kind."""
    if answer_format not in FORMAT_FILES:
        raise ConfigError(f"unknown answer format {answer_format!r}")
    return f"{'RAG_qa_prompt' if retrieval else 'naive_llm_inference'}_{FORMAT_FILES[answer_format]}.txt"


def reference_question(asker: str, question: str, options: Sequence[str], answer_format: str) -> str:
    """The question part of the prompt, laid out as the reference does."""
    text = f"{asker}: {question}"
    if answer_format == "mc":
        return text + "\n" + "\n".join(f"\t{m} {o}" for m, o in zip(("(A)", "(B)", "(C)", "(D)", "(E)"), options))
    if answer_format == "mc-nl":
        return text + " " + "".join(f"{o}? or " for o in list(options)[:4]) + "you don't know?"
    return text


def reference_history(texts: Sequence[str], *, joined: bool = False) -> str:
    """Remembered texts as the reference puts them in the prompt: each followed by a line break
    (``retrieve_history``), or for the oracle (``joined``) one after the other as
    ``extract_gt_sessions_bm25_date`` joins its sessions."""
    if joined:
        return "".join(texts) if texts else "No Relevant History\n"
    return "".join(f"{t}\n" for t in texts) if texts else "No history.\n"


class ReferencePrompts:
    """The prompt files of one folder in the reference's ``prompt/`` layout."""

    def __init__(self, folder: str | Path) -> None:
        root = Path(folder).expanduser()
        if not root.is_dir():
            raise InputError(f"{root}: --prompts-from takes a folder (the reference repository's prompt/ folder, or the clone holding it)")
        # The clone itself or its prompt/ folder: both are what a user would point at.
        self.folder = root / "prompt" if (root / "prompt").is_dir() else root
        self._texts: dict[str, str] = {}

    def text(self, name: str, markers: Sequence[str] = ()) -> str:
        """The file ``name`` as it is; each of ``markers`` must be in it."""
        if name not in self._texts:
            path = self.folder / name
            if not path.exists():
                raise InputError(f"{path}: missing; --prompts-from expects the reference repository's prompt/ "
                                 f"layout (for example {answer_file('mc', True)}, {SUMMARY_FILE})")
            check_file(path, "reference prompt file")
            text = decode_text(path.read_bytes(), str(path), "reference prompt file")
            for marker in markers:
                if marker not in text:
                    raise InputError(f"{path}: no {marker} marker in it, so the reference would leave that part out")
            self._texts[name] = text
        return self._texts[name]

    def check(self, answer_format: str, *, retrieval: bool, summary: bool = False, judge: bool = False) -> None:
        """Read every file a setting will use now, so a missing one fails before the run starts."""
        self.text(answer_file(answer_format, retrieval), ANSWER_MARKERS)
        if summary:
            self.text(SUMMARY_FILE, SUMMARY_MARKERS)
        if judge:
            self.text(JUDGE_SYSTEM_FILE)
            self.text(JUDGE_USER_FILE, JUDGE_MARKERS)

    def answer(self, *, answer_format: str, retrieval: bool, date: str, history: Sequence[str], asker: str,
               question: str, options: Sequence[str], chatbot: str, joined: bool = False) -> str:
        """The answer prompt, filled in the reference's order (``joined``: the oracle's history)."""
        template = self.text(answer_file(answer_format, retrieval), ANSWER_MARKERS)
        return (template.replace("<<<Date>>>", date)
                .replace("<<<Dialog_History>>>", reference_history(history, joined=joined))
                .replace("<<<Question>>>", reference_question(asker, question, options, answer_format))
                .replace("<<<Chatbot>>>", chatbot))

    def summary(self, dialogue: str) -> str:
        """The summary prompt for one session's dialogue."""
        return self.text(SUMMARY_FILE, SUMMARY_MARKERS).replace("<<<DIALOG>>>", dialogue)

    def judge_messages(self, question: str, gold: str, answer: str) -> list[Message]:
        """The judge's system and user messages."""
        user = (self.text(JUDGE_USER_FILE, JUDGE_MARKERS).replace("<<<QUESTION>>>", question)
                .replace("<<<TRUEANSWER>>>", gold).replace("<<<PREDICTION>>>", answer))
        return [Message(role="system", content=self.text(JUDGE_SYSTEM_FILE)), Message(role="user", content=user)]


def read_verdict(text: str) -> str | None:
    """``correct`` / ``wrong`` from the reference judge's JSON reply, else None."""
    for obj in json_objects(text):
        if obj.get("correct") is True:
            return "correct"
        if obj.get("wrong") is True:
            return "wrong"
    return None


class ReferenceJudge:
    """The judge with the reference's prompt files (same interface as ``AnswerJudge``)."""

    def __init__(self, model: ChatModel, prompts: ReferencePrompts, *, lenient: bool = False) -> None:
        self.model, self.prompts, self.lenient = model, prompts, lenient
        self.params = GenerationParams(max_tokens=256, temperature=0.2, top_p=0.1,
                                       response_format={"type": "json_object"})

    async def score(self, question: str, gold: str, answer: str) -> Score:
        if exact_match(answer, gold, lenient=self.lenient):
            return Score("correct", "exact")
        messages = self.prompts.judge_messages(question, gold, answer)
        last = ""
        for _ in range(JUDGE_TRIES):
            last = (await self.model.generate(messages, self.params)).text
            verdict = read_verdict(last)
            if verdict is not None:
                return Score(verdict, "judge", last[:500])
        return Score("unjudged", "judge", last[:500])

