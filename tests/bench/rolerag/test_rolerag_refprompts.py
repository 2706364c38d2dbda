"""``--prompts-from``: a clone's ``rolerag/prompt.py`` strings are used word for word. The fixture
is our own invented text in the reference's layout (a ``PROMPTS`` dict of format strings)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.agents import Turn, character_at, create_agent
from incanon.bench.rolerag import RetrievalConfig
from incanon.bench.rolerag.refprompts import context_data, read_prompts, use_reference_prompts
from incanon.cli.main import app
from incanon.errors import InputError, NotFoundError
from incanon.models import ScriptedModel
from incanon.templates import PromptLibrary

ENTITIES = ("ZEBRA-ENTITIES for {character} of {source}; types {entity_types}; "
            "write ({tuple_delimiter}){record_delimiter} and stop with {completion_delimiter}.\nAsked: {question}\n")
ANSWER = "ZEBRA-ANSWER as {character}.\n{context_data}\nAsked: {question}\n"
PROMPT_PY = f'''GRAPH_FIELD_SEP = "<SEP>"
PROMPTS = {{}}
PROMPTS["DEFAULT_TUPLE_DELIMITER"] = "<|>"
PROMPTS["keyword_extractionv2"] = """{ENTITIES}"""
PROMPTS[
    "single_response_en"
] = """{ANSWER}"""
PROMPTS["unused_one"] = "not read"
PROMPTS["entiti_relation_extraction"] = """ZEBRA-EXTRACT types [{{entity_types}}] as ("entity"{{tuple_delimiter}}...){{record_delimiter}} then {{completion_delimiter}}.
Text: {{input_text}}
"""
PROMPTS["entiti_continue_extraction"] = """ZEBRA-MORE please.
"""
'''


def clone(tmp_path: Path, text: str = PROMPT_PY) -> Path:
    root = tmp_path / "RoleRAG"
    (root / "rolerag").mkdir(parents=True)
    (root / "rolerag" / "prompt.py").write_text(text, encoding="utf-8")
    return root


def test_the_clone_s_strings_are_used_word_for_word(tmp_path: Path):
    library = PromptLibrary()
    path = use_reference_prompts(library, clone(tmp_path))
    assert path.name == "prompt.py" and set(library.exact) == {"rolerag_paper_entities", "rolerag_answer"}
    assert read_prompts(path)["single_response_en"][1] == 7  # the line of the assignment
    asked = library.render("rolerag_paper_entities", character="Wren", work_title="Lanterns", when="",
                           question="Who taught you?", entity_types=["character", "location"])
    assert asked == ENTITIES.format(character="Wren", source="Lanterns", entity_types="character,location",
                                    tuple_delimiter="<|>", record_delimiter="##", completion_delimiter="<|COMPLETE|>",
                                    question="Wren: \t Who taught you?")
    variables = {"character": "Wren", "aliases": [], "work_title": "Lanterns", "when": "", "question": "Why?",
                 "summary": "An apprentice.", "profile": "", "entities": [], "relations": [], "passages": [],
                 "unknown": [], "outside": [{"name": "radio", "reason": "not invented yet"}]}
    answer = library.render("rolerag_answer", **variables)
    assert answer == ANSWER.format(character="Wren", context_data=context_data(variables), question="Wren: \t Why?")
    assert "Wren,radio,not invented yet" in answer and "Wren,character,An apprentice." in answer
    assert library.used["rolerag_answer"] != PromptLibrary().source("rolerag_answer")[0]


def test_bad_clones_say_what_is_wrong(tmp_path: Path):
    with pytest.raises(NotFoundError, match="rolerag/prompt.py"):
        use_reference_prompts(PromptLibrary(), tmp_path)
    broken = clone(tmp_path / "a", PROMPT_PY.replace('PROMPTS["single_response_en"]', "x").replace(
        'PROMPTS[\n    "single_response_en"\n]', "OTHER"))
    with pytest.raises(InputError, match="single_response_en") as err:
        use_reference_prompts(PromptLibrary(), broken)
    assert "prompt.py" in str(err.value)
    with pytest.raises(InputError, match="line 2"):
        use_reference_prompts(PromptLibrary(), clone(tmp_path / "b", "x = 1\nPROMPTS[ = 2\n"))
    odd = clone(tmp_path / "c", PROMPT_PY.replace("Asked: {question}", "Asked: {mood}"))
    library = PromptLibrary()
    use_reference_prompts(library, odd)
    with pytest.raises(InputError, match="mood") as err:
        library.render("rolerag_paper_entities", character="W", work_title="L", when="", question="Q", entity_types=[])
    assert "prompt.py:4" in str(err.value)


async def test_the_paper_protocol_sends_the_clone_s_prompts(graph_store, embedder, tmp_path: Path):
    library = PromptLibrary()
    use_reference_prompts(library, clone(tmp_path))
    model = ScriptedModel(rules=[(r"ZEBRA-ENTITIES", "(character<|>Wren Callow<|>self<|>Yes<|>specific)##"
                                                    "(character<|>Dace Morrow<|>rival<|>Yes<|>specific)<|COMPLETE|>")],
                          default="Wren Callow<|>I know him.<|COMPLETE|>")
    agent = create_agent("rolerag", model, store=graph_store, embedder=embedder, prompts=library,
                         retrieval_config=RetrievalConfig.for_protocol("paper"))
    reply = await agent.respond(character_at(graph_store, "lanterns", "Wren", "3-4"),
                                [Turn(speaker="user", text="Who is Dace?")])
    entities, answer = (c.messages[-1].content for c in reply.calls)
    assert entities.startswith("ZEBRA-ENTITIES for Wren Callow of The Lanterns of Harrowmere;")
    # Names and types as the reference's graph holds them (upper case; see test_rolerag_answer_paper).
    assert answer.startswith("ZEBRA-ANSWER as ") and "DACE MORROW,CHARACTER," in answer
    assert reply.details["nodes"] == ["Dace Morrow"]


def test_cli_prompts_from(graph_store, tmp_path: Path):
    runner = CliRunner()
    qfile = tmp_path / "q.jsonl"
    qfile.write_text(json.dumps({"character": "Wren Callow", "question": "Who is Dace?", "scope": "in",
                                 "kind": "specific", "work": "lanterns"}) + "\n")
    agent = tmp_path / "agent.json"
    agent.write_text(json.dumps({"rules": [{"match": "ZEBRA-ENTITIES", "response": "(character<|>Wren Callow<|>self<|>Yes"
                                            "<|>specific)##(character<|>Dace Morrow<|>rival<|>Yes<|>specific)"}],
                                 "default": "I keep the lamps."}))
    judge = tmp_path / "judge.json"
    judge.write_text(json.dumps({"rules": [{"match": "keeps to the limits", "response": "Rating: 1"}],
                                 "default": "Rating: 6"}))
    runs = tmp_path / "runs.sqlite"
    result = runner.invoke(app, ["rolerag", "eval", "--store", str(graph_store.path), "--questions", str(qfile),
                                 "--model", f"scripted:{agent}", "--judge", f"scripted:{judge}", "--method", "rolerag",
                                 "--protocol", "paper", "--prompts-from", str(clone(tmp_path)), "--runs", str(runs),
                                 "--no-cache", "--json"])
    assert result.exit_code == 0, result.output
    from incanon.runs import RunStore

    with RunStore(runs) as rs:
        run_id = json.loads(result.stdout)["runs"][0]["run_id"]
        calls = next(rs.samples(run_id)).extra["calls"]
    assert calls[0]["messages"][0]["content"].startswith("ZEBRA-ENTITIES")
    assert calls[-1]["messages"][0]["content"].startswith("ZEBRA-ANSWER")
    missing = runner.invoke(app, ["rolerag", "eval", "--store", str(graph_store.path), "--questions", str(qfile),
                                  "--model", "scripted:x", "--judge", "scripted:x", "--prompts-from", str(tmp_path / "no")])
    assert isinstance(missing.exception, NotFoundError)


def test_graph_build_extracts_with_the_clone_s_prompts(tmp_path: Path):
    from incanon.canon import CanonStore

    book = tmp_path / "notes.txt"
    book.write_text("Ada Vane keeps the lamp of the Beacon Tower.", encoding="utf-8")
    rules = tmp_path / "rules.json"
    records = ('("entity"<|>Ada Vane<|>character<|>keeps the lamp)##("entity"<|>Beacon Tower<|>location<|>a tower)##'
               '("relationship"<|>Ada Vane<|>Beacon Tower<|>keeps its lamp<|>8)<|COMPLETE|>')
    rules.write_text(json.dumps({"rules": [{"match": "ZEBRA-MORE", "response": "<|COMPLETE|>"},
                                           {"match": "ZEBRA-EXTRACT", "response": records}], "default": "summary"}))
    store = tmp_path / "canon"
    result = CliRunner().invoke(app, ["graph", "build", str(book), "--store", str(store), "--work", "w",
                                      "--helper", f"scripted:{rules}", "--no-cache", "--prompts-from",
                                      str(clone(tmp_path)), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["graph"]["nodes"] == 2 and report["graph"]["edges"] == 1
    with CanonStore.open(store) as canon:
        from incanon.graph import GraphView

        view = GraphView.open(canon, "w")
        assert view.node(view.find("Ada Vane")).description.startswith("keeps the lamp")
    library = PromptLibrary()
    from incanon.bench.rolerag.refprompts import use_reference_build_prompts
    from incanon.graph.extract import ChunkExtractor

    use_reference_build_prompts(library, clone(tmp_path / "again"))
    assert library.render("graph_extract", text="T.", entity_types=["character"], axis_hint="") == (
        'ZEBRA-EXTRACT types [character] as ("entity"<|>...)## then <|COMPLETE|>.\nText: T.\n')
    assert ChunkExtractor(ScriptedModel(), prompts=library).params.response_format is None  # tuples, not JSON
    assert ChunkExtractor(ScriptedModel()).params.response_format is not None
