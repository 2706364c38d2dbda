"""``--prompts-from DIR``: CoSER's critic prompt, read from the user's clone of the authors'
repository and used word for word. incanon ships none of their text.

The clone's ``gca_evaluation/prompts.py`` is read as Python *source* (``ast``: never imported or
run); its ``critic_prompts`` dict literal gives the template (``self-play-deduct-template``) and
each dimension's ``dimension_brief`` and ``dimension_criteria``. They fill the critic's system
message as the reference's ``gca_judging`` fills it: ``str.replace`` of ``{book}``,
``{plot_summary}``, ``{scenario}``, ``{character_profiles}`` (``### Name`` then the profile, per
character), ``{original_conversation}`` (``Name: message``, thoughts removed),
``{major_characters}``, ``{additional_instructions}``, ``{dimension_name}``,
``{dimension_brief}``, ``{dimension_criteria}``, in that order, so a placeholder inside the
criteria stays literal as in the reference (its Character Fidelity criteria keep
``{major_characters}``). The user message is the simulation alone, joined as the reference
joins it (no speaker names, thoughts removed, no next-speaker lines). With ``--continue-from``
the instruction sentence is the reference's own, read from the f-string that sets
``additional_instructions`` in the clone's ``gca_evaluation/main.py``.

The actors' and the next-speaker predictor's prompts are built in the reference's Python code
(``get_character_prompt``), not kept as prompt text, so they keep incanon's wording (or
``--prompt-set paper``).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from incanon.errors import InputError, NotFoundError
from incanon.templates import ExactPrompt, PromptLibrary

TEMPLATE_KEY = "self-play-deduct-template"


def _tree(path: Path) -> ast.Module:
    try:
        return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except SyntaxError as exc:
        raise InputError(f"not readable as Python: {exc.msg}", source=str(path), where=f"line {exc.lineno}") from None


def read_critic_prompts(path: Path) -> tuple[dict[str, Any], int]:
    """The ``critic_prompts`` dict of a ``prompts.py`` (a literal) and its line."""
    for node in ast.walk(_tree(path)):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "critic_prompts"):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                raise InputError("critic_prompts is not a plain dict of strings", source=str(path),
                                 where=f"line {node.lineno}") from None
            if not isinstance(value, dict) or not isinstance(value.get(TEMPLATE_KEY), str):
                raise InputError(f"critic_prompts has no {TEMPLATE_KEY!r} string", source=str(path),
                                 where=f"line {node.lineno}")
            if not isinstance(value.get("dimension_details"), dict):
                raise InputError("critic_prompts has no 'dimension_details'", source=str(path),
                                 where=f"line {node.lineno}")
            return value, node.lineno
    raise InputError("no critic_prompts assignment", source=str(path))


def continue_instruction(path: Path) -> list[str | None] | None:
    """The pieces of the f-string assigned to ``additional_instructions`` in ``main.py``: text,
    and None where the reference puts ``args.continue_from``; None when there is none."""
    if not path.is_file():
        return None
    for node in ast.walk(_tree(path)):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "additional_instructions" and isinstance(node.value, ast.JoinedStr)):
            pieces: list[str | None] = []
            for part in node.value.values:
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    pieces.append(part.value)
                else:
                    pieces.append(None)
            return pieces
    return None


def use_reference_prompts(library: PromptLibrary, folder: str | Path) -> Path:
    """Make ``library`` render the clone's critic prompt in place of ``coser_critic_frame`` and
    ``coser_critic_ask`` (see the module doc); returns the file read."""
    root = Path(folder).expanduser()
    path = root / "gca_evaluation" / "prompts.py"
    if not path.is_file():
        raise NotFoundError(f"no CoSER prompt file gca_evaluation/prompts.py in {root} "
                            "(point --prompts-from at a clone of the authors' repository)")
    prompts, line = read_critic_prompts(path)
    details: dict[str, Any] = prompts["dimension_details"]
    instruction = continue_instruction(root / "gca_evaluation" / "main.py")
    origin = f"{path}:{line}"

    def frame(text: str, v: dict[str, Any]) -> str:
        dimension = v["dimension"]
        if dimension not in details:
            raise InputError(f"dimension_details has no {dimension!r}", source=origin)
        extra = ""
        if v.get("continue_from"):
            if instruction is None:
                raise InputError("--continue-from needs the reference's instruction: no f-string assigned to "
                                 "additional_instructions", source=str(root / "gca_evaluation" / "main.py"))
            extra = "".join(str(v["continue_from"]) if p is None else p for p in instruction)
        profiles = "\n\n".join(f"### {name}\n\n{profile}" for name, profile in v["character_profiles"].items())
        for key, value in (("book", v["book"]), ("plot_summary", v["plot_summary"]), ("scenario", v["scenario"]),
                           ("character_profiles", profiles), ("original_conversation", v["original_plain"]),
                           ("major_characters", ", ".join(v["major_characters"])),
                           ("additional_instructions", extra), ("dimension_name", dimension),
                           ("dimension_brief", details[dimension]["dimension_brief"]),
                           ("dimension_criteria", details[dimension]["dimension_criteria"])):
            text = text.replace("{" + key + "}", value)
        return text

    def ask(_text: str, v: dict[str, Any]) -> str:
        return str(v["simulation_plain"])

    library.exact["coser_critic_frame"] = ExactPrompt(prompts[TEMPLATE_KEY], origin, frame)
    library.exact["coser_critic_ask"] = ExactPrompt("", f"{root / 'gca_evaluation' / 'main.py'} (the simulation alone)",
                                                    ask)
    return path
