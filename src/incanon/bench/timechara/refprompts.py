"""``--prompts-from DIR``: TimeChara's prompt files, read from the user's clone of the authors'
repository and used word for word. incanon ships none of their text.

The reference keeps three prompts in files, each a Python ``str.format`` template:

* ``methods/self_refine/feedback.txt`` (``feedback_open_source.txt`` for its open models) →
  ``self_refine_feedback``: ``{agent_name}``, ``{question_0}``, ``{response_0}``;
* ``data/spatiotemporal_consistency_evaluation_prompt.txt`` → ``judge_spatiotemporal``:
  ``{agent_name}``, ``{question_0}``, ``{answer_0}``, ``{agent_fact_0}`` (the label);
* ``data/personality_consistency_evaluation_prompt.txt`` → ``judge_personality``:
  ``{agent_name}``, ``{question_0}``, ``{response_0}``, ``{agent_personality}``.

The narrative experts' and the revision prompts are written inside the reference's Python
functions, not in files, so they keep incanon's wording.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from incanon.errors import InputError, NotFoundError
from incanon.templates import ExactPrompt, PromptLibrary


def _feedback(text: str, v: dict[str, Any]) -> str:
    return text.format(agent_name=v["character"], question_0=v["question"], response_0=v["answer"])


def _spatiotemporal(text: str, v: dict[str, Any]) -> str:
    return text.format(agent_name=v["character"], question_0=v["question"], answer_0=v["answer"],
                       agent_fact_0=v["label"])


def _personality(text: str, v: dict[str, Any]) -> str:
    return text.format(agent_name=v["character"], question_0=v["question"], response_0=v["answer"],
                       agent_personality=v["personality"])


FILES: dict[str, tuple[str, str, str, Callable[[str, dict[str, Any]], str]]] = {
    "self_refine_feedback": ("methods/self_refine/feedback.txt", "methods/self_refine/feedback_open_source.txt",
                             "{response_0}", _feedback),
    "judge_spatiotemporal": ("data/spatiotemporal_consistency_evaluation_prompt.txt",
                             "data/spatiotemporal_consistency_evaluation_prompt.txt", "{answer_0}", _spatiotemporal),
    "judge_personality": ("data/personality_consistency_evaluation_prompt.txt",
                          "data/personality_consistency_evaluation_prompt.txt", "{response_0}", _personality),
}
"""incanon template → (the clone's file, its open-model variant, a placeholder it must hold, fill)."""


def use_reference_prompts(library: PromptLibrary, folder: str | Path, *, open_source: bool = False) -> list[Path]:
    """Make ``library`` render the clone's prompt files in place of incanon's templates; returns
    the files read. ``open_source``: the feedback variant the reference gives its open models."""
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise NotFoundError(f"{root} is not a folder (point --prompts-from at a clone of the authors' repository)")
    read = []
    for name, (main, variant, needed, fill) in FILES.items():
        path = root / (variant if open_source else main)
        if not path.is_file():
            raise NotFoundError(f"no TimeChara prompt file {path.relative_to(root)} in {root}")
        text = path.read_text(encoding="utf-8")
        if needed not in text:
            raise InputError(f"expected the {needed} placeholder of the reference's prompt", source=str(path))
        library.exact[name] = ExactPrompt(text, str(path), fill)
        read.append(path)
    return read


def prompt_library(folder: str | Path | None, reference: str | Path | None = None) -> PromptLibrary:
    """The templates of ``--prompts`` (``folder``), with the clone's files of ``--prompts-from``
    (``reference``) in their place when given."""
    library = PromptLibrary(folder)
    if reference is not None:
        use_reference_prompts(library, reference)
    return library
