"""``--prompts-from`` under the paper protocol: every prompt the clone's files make is sent as the
authors' code sends it. The clone is our own invented text in the reference's layout
(``methods/self_refine/{feedback.txt,self_refine.py}``, ``data/*_prompt.txt``,
``data/personality/<name>_personality.txt``, ``evaluate.py``); the expected prompts are built
here by the reference's rules (``{agent_name}`` with the time point, the personality file as
read, the judges' and the feedback's system message, the feedback's stop rule on the last line's
score), and the test counts how many incanon sends byte for byte."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from incanon.bench.timechara import CharacterResolver, EvalSetup, evaluate, load_items, load_personalities
from incanon.bench.timechara.refprompts import prompt_library
from incanon.models import ScriptedModel
from incanon.runs import RunStore
from incanon.templates import PromptLibrary

FEEDBACK = ("HERON review of {agent_name}.\nInterviewer: {question_0}\n{agent_name}: {response_0}\n"
            "Score time (0 or 3) and manner (1 to 3), then write the total on the last line.\n")
SPATIO = "HERON time {agent_name}\nQ: {question_0}\nA: {answer_0}\nFact: {agent_fact_0}\nEnd with 0 or 1.\n"
PERSONA = "HERON manner {agent_name}\nTraits:\n{agent_personality}\nQ: {question_0}\nA: {response_0}\nEnd with 1-7.\n"
JUDGE_SYSTEM = "HERON judges weigh each answer with care."
FEEDBACK_SYSTEM = "HERON reviewers read every answer twice."
PERSONALITIES = {"hermione_granger": "Bookish and brave.\n\n", "harry_potter": "  Loyal, rash.\n",
                 "frodo_baggins": "Gentle; stubborn.\n", "katniss_everdeen": "Guarded.\r\nFierce.\n"}
BOOKS = {"harry_potter": {"1": "Harry Potter and the Philosopher's Stone", "3": "Harry Potter and the Prisoner of Azkaban",
                          "7": "Harry Potter and the Deathly Hallows"},
         "the_lord_of_the_rings": {"1": "The Fellowship of the Ring", "3": "The Return of the King"},
         "hunger_games": {"1": "The Hunger Games"}}


def clone(root: Path) -> Path:
    root = root / "timechara"
    (root / "methods" / "self_refine").mkdir(parents=True)
    (root / "data" / "personality").mkdir(parents=True)
    (root / "methods" / "self_refine" / "feedback.txt").write_text(FEEDBACK, encoding="utf-8")
    (root / "methods" / "self_refine" / "feedback_open_source.txt").write_text(FEEDBACK, encoding="utf-8")
    (root / "methods" / "self_refine" / "self_refine.py").write_text(
        "def call_feedback(model_name, template, agent_name, question, answer):\n"
        "    prompt = template.format(agent_name=agent_name, question_0=question, response_0=answer)\n"
        f"    return call_openai_api(model_name, {FEEDBACK_SYSTEM!r}, prompt)\n\n"
        "def call_refinement(model_name, system_prompt, refine_prompt):\n"
        "    return call_openai_api(model_name, system_prompt, refine_prompt)\n", encoding="utf-8")
    (root / "data" / "spatiotemporal_consistency_evaluation_prompt.txt").write_text(SPATIO, encoding="utf-8")
    (root / "data" / "personality_consistency_evaluation_prompt.txt").write_text(PERSONA, encoding="utf-8")
    for name, text in PERSONALITIES.items():
        (root / "data" / "personality" / f"{name}_personality.txt").write_bytes(text.encode("utf-8"))
    (root / "evaluate.py").write_text(
        "def judge_time(model_name, prompt):\n"
        f"    return call_openai_api(model_name, {JUDGE_SYSTEM!r}, prompt)\n\n"
        "def judge_manner(model_name, prompt):\n"
        f"    return call_openai_api(model_name, {JUDGE_SYSTEM!r}, prompt)\n", encoding="utf-8")
    return root


def row(character: str, period: str, series: str, data_type: str, question: str) -> dict[str, Any]:
    generation = "fact_structured" if data_type in ("past-absence", "past-presence") else "fact_freeform"
    return {"series": series, "question_generation": generation, "fake_method": "-", "event_summary": "E.",
            "question": question, "question_period": "Book1-chapter1", "character": character,
            "character_period": period, "participants": [], "data_type": data_type,
            "temporal_label": f"Past: {character} may know {question[:12]}",
            "spatial_label": f"Absence: {character} was away." if data_type.startswith("past-") and data_type != "past-only"
            else "-", "gold_response": "G."}


ROWS = [row("Hermione Granger", "3rd-year / on Christmas", "harry_potter", "past-absence", "Who sent the broom?"),
        row("Harry Potter", "1st-year", "harry_potter", "future", "What is a Horcrux?"),
        row("Hermione Granger", "7th-year", "harry_potter", "past-only", "Where is the locket?"),
        row("Frodo Baggins", "1 / at Bilbo Baggins's Farewell party", "the_lord_of_the_rings", "past-presence",
            "What did Bilbo say?"),
        row("Frodo Baggins", "3", "the_lord_of_the_rings", "past-only", "Where is the Ring?"),
        row("Katniss Everdeen", "1 / at the start of the 74th Hunger Games", "hunger_games", "future", "Who won?")]

# Feedback texts (each question gets them in this order): the reference stops when the last
# line's last digit 0-7 is 5 or more.
FEEDBACKS = ["Time: fine, 3.\nManner: 2.\nTotal: 6", "Time 0.\nManner 3.\nTotal: 3", "Nothing to add.",
             "Time 3, manner 1.\nTotal 4", "All good: 3 and 3.\nSo 3 + 3 = 6", "Time: 3\nManner: 1\nTotal = 4 out of 6",
             "Overall 5"]


def authors_names(r: dict[str, Any]) -> tuple[str, str]:
    """(``day_character`` of the reference's evaluation, of its generation) for a row."""
    head, _, tail = r["character_period"].partition("/")
    head, day = head.strip(), tail.strip()
    book = BOOKS[r["series"]][head[0]]
    hp = r["series"] == "harry_potter"
    judge = f"{r['character']} {day or f'at the end of the scene in {book}'}"
    if hp and r["character_period"].strip() != "7th-year":
        judge = f"{head} {judge}"
    gen = f"{r['character']} {day or 'at the end of the scene'} in {book}"
    if hp and not (not day and head[0] == "7"):
        gen = f"{head} {gen}"
    return judge, gen


def last_line_score(text: str) -> int | None:
    found = re.findall(r"\b[0-7]\b", text.strip().split("\n")[-1])
    return int(found[-1]) if found else None


def expected(r: dict[str, Any], answers: list[str], feedbacks: list[str]) -> list[tuple[str, str]]:
    """(system, user) of every clone prompt the reference sends for one row: a feedback on each
    answer but the last (or on the last too when it was good enough), then the judges."""
    judge, gen = authors_names(r)
    personality = PERSONALITIES[r["character"].lower().replace(" ", "_")].replace("\r\n", "\n")
    out = [(FEEDBACK_SYSTEM, FEEDBACK.format(agent_name=gen, question_0=r["question"], response_0=answer))
           for answer, _ in zip(answers, feedbacks)]
    labels = [r["temporal_label"]] + ([r["spatial_label"]] if r["spatial_label"] != "-" else [])
    for label in labels:
        out.append((JUDGE_SYSTEM, SPATIO.format(agent_name=judge, question_0=r["question"], answer_0=answers[-1],
                                                agent_fact_0=label)))
    out.append((JUDGE_SYSTEM, PERSONA.format(agent_name=judge, question_0=r["question"], response_0=answers[-1],
                                             agent_personality=personality)))
    return out


def reference_rounds(pad: str = "") -> list[tuple[list[str], list[str]]]:
    """Per row, (its answers, its feedbacks) as the reference's loop makes them: feedback until
    the last line scores 5 or more, at most three rounds, a revision after each other one."""
    count, out = 0, []
    for i in range(len(ROWS)):
        count += 1
        answers, feedbacks = [f"{pad}Answer number {count}.{pad}"], []
        for feedback in (FEEDBACKS[i:] + FEEDBACKS[:i])[:3]:
            feedbacks.append(feedback)
            if (last_line_score(feedback) or 0) >= 5:
                break
            count += 1
            answers.append(f"{pad}Answer number {count}.{pad}")
        out.append((answers, feedbacks))
    return out


def run(tmp_path: Path, pad: str = "") -> tuple[int, int, int, dict[str, Any]]:
    root = clone(tmp_path)
    items_file = tmp_path / "rows.json"
    items_file.write_text(json.dumps(ROWS), encoding="utf-8")
    items = load_items(items_file)
    state: dict[str, Any] = {"answers": 0, "feedback": {}}

    def agent(messages):
        text = messages[-1].content
        if text.startswith("HERON review"):
            question = re.search(r"Interviewer: (.*)", text).group(1)
            n = state["feedback"].setdefault(question, 0)
            state["feedback"][question] = n + 1
            return FEEDBACKS[(ROWS.index(next(r for r in ROWS if r["question"] == question)) + n) % len(FEEDBACKS)]
        state["answers"] += 1
        return f"{pad}Answer number {state['answers']}.{pad}"

    agent_model = ScriptedModel(default=agent)
    judge_model = ScriptedModel(default="Weighed.\nScore: 1")
    runs = RunStore(tmp_path / "runs.sqlite")
    setup = EvalSetup(agent_model=agent_model, judge_model=judge_model, models={"agent": "a", "judge": "j"},
                      runs=runs, resolver=CharacterResolver(personalities=load_personalities(root / "data" / "personality")),
                      dataset={"source": "rows"}, prompts=prompt_library(None, root), concurrency=1, progress=False,
                      hallucination_types=False, protocol="paper")
    asyncio.run(evaluate(items, ["self-refine"], setup))
    sent_by_row: dict[str, list[tuple[str, str]]] = {}
    params: dict[str, Any] = {}
    for call in agent_model.calls + judge_model.calls:
        user = call.messages[-1].content
        if not user.startswith("HERON"):
            continue
        system = call.messages[0].content if len(call.messages) > 1 and call.messages[0].role == "system" else ""
        q = re.search(r"(?:Interviewer|Q): (.*)", user).group(1)
        sent_by_row.setdefault(q, []).append((system, user))
        kind = user.split()[1]
        p = call.params
        params.setdefault(kind, set()).add((p.temperature, p.top_p, p.max_tokens))
    exact = total = extra = 0
    for r, (answers, feedbacks) in zip(ROWS, reference_rounds(pad)):
        sent = sent_by_row.get(r["question"], [])
        want = expected(r, answers, feedbacks)
        total += len(want)
        exact += sum(1 for w in want if w in sent)
        extra += max(0, len(sent) - len(want))  # calls the reference does not make
    runs.close()
    return exact, total, extra, params


def test_every_clone_prompt_is_sent_as_the_reference_sends_it(tmp_path: Path):
    exact, total, extra, params = run(tmp_path)
    assert (exact, extra, total) == (25, 0, 25)  # before this change: 0 of 25, and 5 calls too many
    # Feedback and judges: the reference's call_openai_api defaults.
    assert params["review"] == {(0.0, 0.95, 1024)}
    assert params["time"] == params["manner"] == {(0.0, 0.95, 1024)}


def test_the_answer_reaches_the_judges_and_the_feedback_unstripped(tmp_path: Path):
    # The reference passes the model's text on as it came: a reply with a leading newline and
    # trailing spaces is judged so (17 of 224 prompts differed when incanon stripped it).
    exact, total, extra, _ = run(tmp_path, pad="\n  ")
    assert (exact, extra, total) == (25, 0, 25)


@pytest.mark.parametrize("text,stops", [("Total: 6", True), ("3 + 2 = 5", True), ("Total = 4 out of 6", True),
                                        ("Total: 4", False), ("Nothing to add.", False), ("Score 8", False),
                                        ("Time 3.\nManner 3.\nTotal: ten", False), ("Overall 5", True)])
def test_the_feedback_stop_rule_reads_the_last_line(text, stops):
    from incanon.bench.timechara.authors_calls import feedback_sufficient

    assert feedback_sufficient(text) is stops
    assert ((last_line_score(text) or 0) >= 5) is stops


@pytest.mark.parametrize("protocol,calls", [("paper", 1), ("incanon", 2)])
def test_an_unreadable_score_is_asked_again_only_under_incanon_s_protocol(tmp_path: Path, protocol, calls):
    from incanon.bench.timechara.evaluate import Judges

    judge = ScriptedModel(default="I cannot decide.")
    judges = Judges.on(judge, prompt_library(None, clone(tmp_path)), hallucination_types=False,
                       reading="authors", authors=protocol == "paper")
    got = asyncio.run(judges.personality.judge(character="Frodo Baggins", agent_name="Frodo Baggins in Bree",
                                               question="Q?", answer="A.", personality="Kind.", when=""))
    assert len(judge.calls) == calls and got.score is None and got.repaired == (protocol == "incanon")
    first = judge.calls[0].messages
    assert [m.role for m in first] == (["system", "user"] if protocol == "paper" else ["user"])
    assert first[-1].content.startswith("HERON manner Frodo Baggins in Bree\n")


def test_without_the_clone_s_python_files_incanon_s_system_wording_is_used(tmp_path: Path):
    root = clone(tmp_path)
    (root / "evaluate.py").unlink()
    library = prompt_library(None, root)
    assert "timechara_judge_system" not in library.exact and "self_refine_system" in library.exact
    assert library.render("timechara_judge_system") == PromptLibrary().render("timechara_judge_system")
