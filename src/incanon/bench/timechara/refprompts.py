"""``--prompts-from DIR``: TimeChara's prompt files, read from the user's clone of the authors'
repository and used word for word. incanon ships none of their text.

The reference keeps three prompts in files, each a Python ``str.format`` template:

* ``methods/self_refine/feedback.txt`` (``feedback_open_source.txt`` for its open models) →
  ``self_refine_feedback``: ``{agent_name}``, ``{question_0}``, ``{response_0}``;
* ``data/spatiotemporal_consistency_evaluation_prompt.txt`` → ``judge_spatiotemporal``:
  ``{agent_name}``, ``{question_0}``, ``{answer_0}``, ``{agent_fact_0}`` (the label);
* ``data/personality_consistency_evaluation_prompt.txt`` → ``judge_personality``:
  ``{agent_name}``, ``{question_0}``, ``{response_0}``, ``{agent_personality}``.

``{agent_name}`` is filled as the reference fills it: the character with its time point
(``day_character``: ``3rd-year Hermione Granger on Christmas`` for the judges, ``... in Harry
Potter and the Prisoner of Azkaban`` for the feedback; ``published.authors_names``), given to the
template as ``agent_name``; a character that is not a published row's keeps its bare name.

The system message the reference sends with these prompts is written in its Python code, not in a
file: under the paper protocol it is read from the clone's ``evaluate.py`` (the judges) and
``methods/self_refine/self_refine.py`` (the feedback) as *source* (``ast``: never imported or
run): the string its ``call_openai_api(model_name, "...", prompt)`` calls pass. A clone without
those files keeps incanon's own wording (``timechara_judge_system``, ``self_refine_system``).

The narrative experts' and the revision prompts are written inside the reference's Python
functions, not in files, so they keep incanon's wording.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any, Callable

from incanon.errors import InputError, NotFoundError
from incanon.templates import ExactPrompt, PromptLibrary


def _name(v: dict[str, Any]) -> str:
    return v.get("agent_name") or v["character"]


def _feedback(text: str, v: dict[str, Any]) -> str:
    return text.format(agent_name=_name(v), question_0=v["question"], response_0=v["answer"])


def _spatiotemporal(text: str, v: dict[str, Any]) -> str:
    return text.format(agent_name=_name(v), question_0=v["question"], answer_0=v["answer"],
                       agent_fact_0=v["label"])


def _personality(text: str, v: dict[str, Any]) -> str:
    return text.format(agent_name=_name(v), question_0=v["question"], response_0=v["answer"],
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


SYSTEMS: dict[str, tuple[str, str | None]] = {
    "timechara_judge_system": ("evaluate.py", None),
    "self_refine_system": ("methods/self_refine/self_refine.py", "call_feedback"),
}
"""incanon template → (the clone's Python file, the function whose call passes the message; None:
every call of the file, which must agree)."""


def system_message(path: Path, function: str | None) -> str | None:
    """The string a ``call_openai_api(model, "...", prompt)`` call of ``path`` passes as its
    system message (inside ``function`` when given); None when no call passes a literal."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except SyntaxError as exc:
        raise InputError(f"not readable as Python: {exc.msg}", source=str(path), where=f"line {exc.lineno}") from None
    scopes: list[ast.AST] = [tree]
    if function is not None:
        scopes = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function]
    found: list[str] = []
    for scope in scopes:
        for node in ast.walk(scope):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "call_openai_api"
                    and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                    and isinstance(node.args[1].value, str)):
                found.append(node.args[1].value)
    if len(set(found)) > 1:
        raise InputError("the reference's calls pass different system messages; incanon expects one",
                         source=str(path))
    return found[0] if found else None


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
    for name, (file, function) in SYSTEMS.items():
        path = root / file
        message = system_message(path, function) if path.is_file() else None
        if message is not None:
            library.exact[name] = ExactPrompt(message, str(path), lambda text, _v: text)
            read.append(path)
    return read


def prompt_library(folder: str | Path | None, reference: str | Path | None = None) -> PromptLibrary:
    """The templates of ``--prompts`` (``folder``), with the clone's files of ``--prompts-from``
    (``reference``) in their place when given."""
    library = PromptLibrary(folder)
    if reference is not None:
        use_reference_prompts(library, reference)
    return library
