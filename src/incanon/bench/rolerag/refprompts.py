"""``--prompts-from DIR``: RoleRAG's own prompts, read from the user's clone of the authors'
repository and used word for word. incanon ships none of their text.

The clone's ``rolerag/prompt.py`` (or a ``prompt.py`` at the top of DIR) is read as Python
*source* (``ast``: never imported or run), and two of its ``PROMPTS[...]`` strings replace
incanon's templates:

* ``keyword_extractionv2`` → ``rolerag_paper_entities`` (the paper protocol's one entity call),
  filled as the reference fills it: the delimiters, ``entity_types`` comma-joined in the
  reference's order (``paper.PAPER_ENTITY_TYPES``), ``source`` the
  work's title, ``question`` as ``"{character}: \\t {question}"``;
* ``single_response_en`` → ``rolerag_answer``, with ``context_data`` laid out as the reference's
  ``format_content`` lays it out (chunks, entities and relationships as CSV sections; things
  outside the character's world as relationship rows with their reason).

Both are Python ``str.format`` templates, filled the same way.
"""

from __future__ import annotations

import ast
import csv
import io
from pathlib import Path
from typing import Any

from incanon.bench.rolerag.paper import paper_order
from incanon.errors import InputError, NotFoundError
from incanon.templates import ExactPrompt, PromptLibrary

DELIMITERS = {"tuple_delimiter": "<|>", "record_delimiter": "##", "completion_delimiter": "<|COMPLETE|>"}
"""The record markers of the reference's entity format (``parse_entities`` reads them)."""

USED = {"keyword_extractionv2": "rolerag_paper_entities", "single_response_en": "rolerag_answer"}
"""The reference's prompt → the incanon template it replaces."""


def prompt_file(folder: str | Path) -> Path:
    """The clone's ``prompt.py``: ``rolerag/prompt.py`` under ``folder``, else ``folder/prompt.py``."""
    root = Path(folder).expanduser()
    for candidate in (root / "rolerag" / "prompt.py", root / "prompt.py"):
        if candidate.is_file():
            return candidate
    raise NotFoundError(f"no RoleRAG prompt file in {root}: looked for rolerag/prompt.py and prompt.py "
                        "(point --prompts-from at a clone of the authors' repository)")


def read_prompts(path: str | Path) -> dict[str, tuple[str, int]]:
    """Every ``PROMPTS["name"] = "..."`` string of a ``prompt.py``, with its line."""
    file = Path(path)
    try:
        tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
    except SyntaxError as exc:
        raise InputError(f"not readable as Python: {exc.msg}", source=str(file), where=f"line {exc.lineno}") from None
    found: dict[str, tuple[str, int]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target = node.targets[0]
        if (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == "PROMPTS"
                and isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str)
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            found[target.slice.value] = (node.value.value, node.lineno)
    return found


def _csv(rows: list[list[Any]]) -> str:
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return out.getvalue()


def _graph_name(text: str, v: dict[str, Any]) -> str:
    # The reference's graph stores names and types upper-cased (``_handle_single_entity_extraction``).
    return text.upper() if v.get("paper_graph") else text


def answer_character(v: dict[str, Any]) -> str:
    """The character as the reference's answer prompt names it: upper-cased when its name loop
    emptied the list (``paper.emptied``), as the last branch of ``local_query`` renames it."""
    return v["character"].upper() if v.get("echoed") is not None else v["character"]


def context_data(variables: dict[str, Any]) -> str:
    """The retrieved context in the reference's layout, from ``rolerag_answer``'s variables."""
    v = variables
    passages = list(v.get("passages") or []) + list(v.get("echoed") or [])
    chunks = [["id", "content"]] + [[i, p["text"]] for i, p in enumerate(passages)]
    entities = [["entity", "type", "description"]]
    me = [_graph_name(v["character"], v), _graph_name("character", v), v.get("summary") or ""]
    if v.get("summary"):
        entities.append(me)
    entities += [[_graph_name(e["name"], v), _graph_name(e["type"], v), e["description"]] for e in v.get("entities") or []]
    if v.get("summary") and v.get("echoed") is not None:
        entities.append(me)  # the last branch appends the character's node once more
    relations = [["source", "target", "description"]]
    relations += [[_graph_name(r["source"], v), _graph_name(r["target"], v), r["description"]]
                  for r in v.get("relations") or []]
    # Outside rows: the character as the prompt names it, the entity as the model wrote it.
    relations += [[answer_character(v), o["name"], o["reason"]] for o in v.get("outside") or []]
    pad = " " * 8  # the reference's f-string keeps its source indentation: so does the layout
    sections = [("Chunks", chunks), ("Entities", entities), ("Relationships", relations)]
    body = "".join(f"\n{pad}-----{title}-----\n{pad}```csv\n{pad}{_csv(rows)}\n{pad}```" for title, rows in sections)
    return body + "\n    "


def _entities(text: str, v: dict[str, Any]) -> str:
    return text.format(**DELIMITERS, entity_types=",".join(paper_order(v["entity_types"])), character=v["character"],
                       source=v["work_title"], question=f"{v['character']}: \t {v['question']}")


def _answer(text: str, v: dict[str, Any]) -> str:
    return text.format(**DELIMITERS, entity_types="", context_data=context_data(v), character=answer_character(v),
                       question=f"{v['character']}: \t {v['question']}")


BUILD = {"entiti_relation_extraction": "graph_extract", "entiti_continue_extraction": "graph_glean"}
"""The reference's graph-building prompts → the incanon templates they replace (``graph build``)."""


def _extract(text: str, v: dict[str, Any]) -> str:
    return text.format(**DELIMITERS, entity_types=",".join(paper_order(v["entity_types"])), input_text=v["text"])


def use_reference_build_prompts(library: PromptLibrary, folder: str | Path) -> Path:
    """Make ``library`` extract as the reference does: its entity-and-relation extraction prompt
    (tuple records, read by incanon's parser) and its gleaning prompt, word for word. Its
    summary, same-entity and canonical-name prompts expect other answer formats than incanon's
    steps read, and keep incanon's wording."""
    path = prompt_file(folder)
    prompts = read_prompts(path)
    for key, name in BUILD.items():
        if key not in prompts:
            raise InputError(f"no PROMPTS[{key!r}] string in the file", source=str(path), where=f"PROMPTS[{key!r}]")
        text, line = prompts[key]
        fill = _extract if key == "entiti_relation_extraction" else (lambda t, _v: t)
        library.exact[name] = ExactPrompt(text, f"{path}:{line}", fill)
    return path


def use_reference_prompts(library: PromptLibrary, folder: str | Path) -> Path:
    """Make ``library`` render the clone's prompts in place of incanon's (see the module doc);
    returns the file read. A missing prompt is an error naming the file and the key."""
    path = prompt_file(folder)
    prompts = read_prompts(path)
    for key in USED:
        if key not in prompts:
            raise InputError(f"no PROMPTS[{key!r}] string in the file", source=str(path), where=f"PROMPTS[{key!r}]")
    fills = {"keyword_extractionv2": _entities, "single_response_en": _answer}
    for key, name in USED.items():
        text, line = prompts[key]
        library.exact[name] = ExactPrompt(text, f"{path}:{line}", fills[key])
    return path
