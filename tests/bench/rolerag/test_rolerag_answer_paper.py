"""The answer prompt under ``--protocol paper`` with the clone's prompts: graph names and types
upper-cased as the reference's graph stores them, and the reference's emptied name list (one
specific entity found by name, no general one): the character renamed in upper case, its row
and its chunks given twice. The clone is our own text in the reference's ``prompt.py`` layout."""

from __future__ import annotations

from pathlib import Path

from incanon.agents import Turn, character_at, create_agent
from incanon.bench.rolerag import RetrievalConfig
from incanon.bench.rolerag.refprompts import use_reference_prompts
from incanon.models import ScriptedModel
from incanon.templates import PromptLibrary

ANSWER = "OTTER-ANSWER as {character}.\n{context_data}\nAsked: {question}\n"
PROMPT_PY = f'''PROMPTS = {{}}
PROMPTS["keyword_extractionv2"] = """OTTER-ENTITIES {{character}} {{source}} {{entity_types}} {{tuple_delimiter}} {{record_delimiter}} {{completion_delimiter}} {{question}}"""
PROMPTS["single_response_en"] = """{ANSWER}"""
'''
SELF = "(character<|>Wren Callow<|>self<|>Yes<|>specific)"


def _clone(tmp_path: Path) -> Path:
    root = tmp_path / "RoleRAG"
    (root / "rolerag").mkdir(parents=True)
    (root / "rolerag" / "prompt.py").write_text(PROMPT_PY, encoding="utf-8")
    return root


async def _answer(graph_store, embedder, tmp_path: Path, entities: str) -> str:
    library = PromptLibrary()
    use_reference_prompts(library, _clone(tmp_path))
    model = ScriptedModel(rules=[(r"OTTER-ENTITIES", entities + "<|COMPLETE|>")], default="I know him.")
    agent = create_agent("rolerag", model, store=graph_store, embedder=embedder, prompts=library,
                         retrieval_config=RetrievalConfig.for_protocol("paper"))
    reply = await agent.respond(character_at(graph_store, "lanterns", "Wren", "3-4"),
                                [Turn(speaker="user", text="Who is Dace?")])
    return reply.calls[-1].messages[-1].content


def _section(prompt: str, title: str) -> list[str]:
    body = prompt.split(f"-----{title}-----", 1)[1].split("```csv", 1)[1].split("```", 1)[0]
    return [line.strip() for line in body.strip().splitlines() if line.strip()]


async def test_one_specific_entity_found_by_name_renames_the_character_and_repeats_its_row_and_chunks(
        graph_store, embedder, tmp_path):
    prompt = await _answer(graph_store, embedder, tmp_path, SELF + "##(character<|>Dace Morrow<|>rival<|>Yes<|>specific)")
    assert prompt.startswith("OTTER-ANSWER as WREN CALLOW.\n")
    assert "Asked: Wren Callow: \t Who is Dace?" in prompt, "the question keeps the name as asked"
    rows = _section(prompt, "Entities")
    assert rows[1].startswith("WREN CALLOW,CHARACTER,") and rows[-1] == rows[1], "the character's row twice"
    assert any(r.startswith("DACE MORROW,CHARACTER,") for r in rows)
    chunks = _section(prompt, "Chunks")
    assert len(chunks) >= 3 and chunks[-1].split(",", 1)[1] in "\n".join(chunks[1:-1]), "its chunk again"


async def test_a_general_entity_keeps_the_list_from_emptying(graph_store, embedder, tmp_path):
    prompt = await _answer(graph_store, embedder, tmp_path,
                           SELF + "##(character<|>Dace Morrow<|>rival<|>Yes<|>specific)"
                           "##(location<|>the Lamphouse<|>where<|>Yes<|>general)")
    assert prompt.startswith("OTTER-ANSWER as Wren Callow.\n")
    rows = _section(prompt, "Entities")
    assert rows[1].startswith("WREN CALLOW,CHARACTER,") and rows.count(rows[1]) == 1
    for row in rows[1:]:  # graph names and types as the reference's graph holds them
        name, kind = row.split(",")[:2]
        assert name == name.upper() and kind == kind.upper()
