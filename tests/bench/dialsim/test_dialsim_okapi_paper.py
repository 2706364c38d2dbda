"""DialSim's paper protocol ranks with ``rank_bm25``'s ``BM25Okapi`` over nltk word tokens and lays
the history out under the reference's ``[Date: D, Session #n]`` headers. The sessions and the
clone's ``prompt/`` files are our own text in the reference's layout; the expected rankings and
prompts are made here the reference's way (``utils/utils.py``, ``simulator.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rank_bm25 import BM25Okapi

from incanon.agents import create_agent
from incanon.agents.base import CharacterAt, Turn
from incanon.bench.coser.nltk_words import word_tokenize
from incanon.bench.dialsim import DialSession, Line
from incanon.bench.dialsim.agents.memory import Unit
from incanon.bench.dialsim.agents.strategies import bm25_ranked
from incanon.bench.dialsim.bm25 import IncrementalBM25
from incanon.bench.dialsim.dates import spoken
from incanon.canon.position import Position
from incanon.models import ScriptedModel

ANSWER = "RAG_qa_prompt_multi_choice_structured.txt"
OPTIONS = ["Cy", "Ben", "Dee", "Gus", "I don't know."]


def _session(sid: str, date: str, order: int, said: list[tuple[str, str]]) -> DialSession:
    lines = tuple(Line(sid, date, i, who, text) for i, (who, text) in enumerate(said))
    people = tuple(dict.fromkeys(w for w, _ in said))
    return DialSession(sid, order, date, sid, people, people, lines)


def _who(day: str = "2020-02-01") -> CharacterAt:
    return CharacterAt(work_title="W", character="Ana", position=Position.parse(day), time_label=spoken(day))


# Evidence sets: the reference keeps the best session by BM25Okapi over lower-cased nltk tokens
# of "[Date: D, Session #n]" + the session; incanon's own BM25 (bm25s, stop words, Lucene idf)
# keeps another on each of these.
EVIDENCE = [
    ("Who closed the mill?",
     [[("Cy", "The rain closed the fair."), ("Dee", "Closed on Sunday."), ("Ben", "What did you do? Did you do it?")],
      [("Gus", "The miller closed the mill in the rain."), ("Ben", "Bread again.")],
      [("Ben", "Mill, mill, mill.")]]),
    ("Who closed the mill?",
     [[("Cy", "The rain closed the fair."), ("Cy", "The bakery was shut."), ("Ben", "What did you do? Did you do it?")],
      [("Dee", "The mill was closed when I was at it.")],
      [("Dee", "Closed on Sunday.")]]),
    ("What did you do on the day of the fair?",
     [[("Cy", "What did you do? Did you do it?"), ("Gus", "The bakery was shut.")],
      [("Dee", "What did you do? Did you do it?")],
      [("Dee", "Why was it shut?"), ("Gus", "I was there and so was he.")]]),
]


def _sessions(texts: list[list[tuple[str, str]]], date: str = "2020-01-05") -> list[DialSession]:
    return [_session(f"s{i}", date, i, said) for i, said in enumerate(texts)]


def _reference_doc(session: DialSession, number: int) -> str:
    return f"[Date: {spoken(session.date)}, Session #{number}]\n" + "".join(f"{l.render()}\n" for l in session.lines)


def _reference_best(sessions: list[DialSession], question: str, k: int) -> list[str]:
    docs = [_reference_doc(s, i + 1) for i, s in enumerate(sessions)]
    scores = BM25Okapi([word_tokenize(d.lower()) for d in docs]).get_scores(word_tokenize(question.lower()))
    best = sorted(range(len(docs)), key=lambda i: scores[i], reverse=True)[:k]
    return [sessions[i].id for i in sorted(best, key=lambda i: docs[i].split("]")[0])]


@pytest.mark.parametrize("question,texts", EVIDENCE)
def test_the_oracle_ranks_with_bm25okapi(question, texts):
    sessions = _sessions(texts)
    units = [Unit(s.order, s.id, s.date, _reference_doc(s, 1)) for s in sessions]
    want = _reference_best(sessions, question, 1)
    assert [u.session for u in bm25_ranked(units, question, 1)] == want
    # incanon's BM25 would keep another session: the ranking is the reference's, not a tie.
    mine = IncrementalBM25()
    for u in units:
        mine.add(u.text)
    assert [units[i].session for i, _ in mine.top_k(question, 1)] != want


@pytest.fixture()
def clone(tmp_path: Path) -> Path:
    folder = tmp_path / "Simulator" / "prompt"
    folder.mkdir(parents=True)
    (folder / ANSWER).write_text("WREN <<<Chatbot>>> <<<Date>>>\n<<<Dialog_History>>>==\n<<<Question>>>", encoding="utf-8")
    return tmp_path / "Simulator"


async def _hear(agent, sessions: list[DialSession]) -> None:
    for session in sessions:
        for line in session.lines:
            await agent.observe(line)
        await agent.end_session(session)


async def _prompt(agent, question: str, about: str = "") -> str:
    who = _who()
    turn = Turn(speaker="Ben", text=question, about=about)
    await agent.answer(who, turn, agent.retrieve(who, turn), question_text=question, options=OPTIONS)
    return agent.model.calls[-1].messages[-1].content


def _expected(history: str, question: str) -> str:
    return (f"WREN Ana February 1, 2020\n{history}==\nBen: {question}\n"
            "\t(A) Cy\n\t(B) Ben\n\t(C) Dee\n\t(D) Gus\n\t(E) I don't know.")


async def test_session_memory_prompts_are_the_reference_s_byte_for_byte(clone):
    # Two sessions on one date (#1, #2), then another date (#1 again).
    sessions = [_session("e1-1", "2020-01-05", 0, [("Cy", "The mill was closed."), ("Ben", "It was.")]),
                _session("e1-2", "2020-01-05", 1, [("Dee", "Who closed the mill?")]),
                _session("e1-3", "2020-01-09", 2, [("Gus", "Bread again."), ("Ana", "Fine bread.")])]
    agent = create_agent("dialsim-bm25-session", ScriptedModel(default="(A)"), protocol="paper",
                         prompts_from=str(clone), k=2)
    await _hear(agent, sessions)
    question = "Who closed the mill?"
    docs = [_reference_doc(s, n) for s, n in zip(sessions, (1, 2, 1))]
    scores = BM25Okapi([word_tokenize(d.lower()) for d in docs]).get_scores(word_tokenize(f"Ben: {question}".lower()))
    top = sorted(range(3), key=lambda i: scores[i], reverse=True)[:2]  # best first, as retrieve_history keeps them
    assert await _prompt(agent, question) == _expected("".join(docs[i] + "\n" for i in top), question)


async def test_utterance_memory_numbers_what_it_kept(clone):
    sessions = [_session("e1-1", "2020-01-05", 0, [("Cy", "The mill was closed."), ("Ben", "It was.")])]
    agent = create_agent("dialsim-bm25-utterance", ScriptedModel(default="(A)"), protocol="paper",
                         prompts_from=str(clone), k=1)
    await _hear(agent, sessions)
    assert [u.text for u in agent.units] == ["[Date: January 5, 2020, Session #1, Utterance #1] Cy: The mill was closed.",
                                              "[Date: January 5, 2020, Session #1, Utterance #2] Ben: It was."]


async def test_the_oracle_prompt_joins_its_sessions_as_the_reference_does(clone):
    sessions = [_session("e1-1", "2020-01-05", 0, [("Cy", "The mill was closed."), ("Ben", "It was.")]),
                _session("e1-2", "2020-01-05", 1, [("Dee", "Who closed the mill?")])]
    agent = create_agent("dialsim-oracle", ScriptedModel(default="(A)"), protocol="paper", prompts_from=str(clone))
    await _hear(agent, sessions)
    question = "Who closed the mill?"
    history = "".join(_reference_doc(s, n) for s, n in zip(sessions, (1, 2)))  # no line between them
    assert await _prompt(agent, question, about="e1-1,e1-2") == _expected(history, question)
