"""``--protocol paper``: each point where incanon's own choice differs from the reference code."""

from __future__ import annotations

from collections import Counter

import pytest

from incanon.agents import create_agent
from incanon.agents.base import CharacterAt, Turn
from incanon.bench.dialsim import (DialScript, DialSession, DialsimReport, Line, Question, RunSetup, SimConfig,
                                   plan_simulation, published_world, run_setting, settings_from_runs)
from incanon.bench.dialsim.agents.strategies import bm25_ranked
from incanon.bench.dialsim.agents.memory import Unit
from incanon.bench.dialsim.names import check_names, name_map, reference_names
from incanon.bench.dialsim.oracle import OracleIndex
from incanon.bench.dialsim.plan import NO_EVIDENCE, NO_GOLD, NO_WORDING, may_ask
from incanon.canon.position import Position
from incanon.errors import ConfigError
from incanon.models import ScriptedModel
from incanon.runs import RunStore

PAPER = SimConfig(protocol="paper")
OPTIONS = ["Cy", "Ben", "Dee", "Gus", "I don't know."]


def _session(sid: str, date: str, order: int, speakers: list[str]) -> DialSession:
    lines = tuple(Line(sid, date, i, who, f"line {i} of {sid}") for i, who in enumerate(speakers))
    return DialSession(sid, order, date, sid, tuple(dict.fromkeys(speakers)), tuple(dict.fromkeys(speakers)), lines)


def _script(*sessions: DialSession, work: str = "w") -> DialScript:
    return DialScript(work=work, title="W", main="Ana", sessions=list(sessions))


def _q(qid: str, session: str, **update) -> Question:
    base = Question(id=qid, session=session, source="tkg", type="cur", answerable=True,
                    texts={"default": "Who runs the mill?"}, answer="Cy", options=OPTIONS)
    return base.model_copy(update=update)


# -- 1. askers ---------------------------------------------------------------------------------
def test_the_paper_asker_filter_drops_only_the_main_characters_names_and_the_exact_all():
    assert not may_ask("Ana (on phone)", "Ana", paper=True) and not may_ask("All", "Ana", paper=True)
    assert may_ask("Everyone", "Ana", paper=True) and may_ask("Ben and Cy", "Ana", paper=True)
    assert not may_ask("Everyone", "Ana") and not may_ask("Ben and Cy", "Ana")
    # Ana's second line (index 4) is the question point; lines 1..6 are the window.
    s1 = _session("s1", "2020-01-01", 0, ["Ana", "Everyone", "All", "Ana (on phone)", "Ana", "Ben and Cy", "Dee"])
    script, pool = _script(s1), [_q("q", "s1")]
    paper = Counter(plan_simulation(script, pool, seed=s, config=PAPER).asked["s1"].asker for s in range(300))
    mine = Counter(plan_simulation(script, pool, seed=s).asked["s1"].asker for s in range(300))
    assert set(paper) == {"Everyone", "Ben and Cy", "Dee"}, paper
    assert set(mine) == {"Dee"}, mine


# -- 2. no wording for the asker ----------------------------------------------------------------
DATA = {"1": {
    "1": {"script": "Ana: Morning.\nBen: Morning, Ana.\nAna: The mill?\nBen: Closed.", "date": "January 1, 2020",
          "hard_q": {"cur": [{"questions": {"Dee": "Dee asks: who runs the mill?"}, "answer": "Cy", "options": OPTIONS}],
                     "past": [{"questions": {"default": "Who ran it?"}, "answer": "Cy.", "options": OPTIONS}]},
          "easy_q": {}}}}


def test_a_published_question_without_a_default_is_marked_and_skipped_for_other_askers_under_paper():
    _, questions, _ = published_world(DATA, work_id="w", title="W")
    by_type = {q.type: q for q in questions}
    assert by_type["cur"].invented_default and by_type["cur"].texts["default"] == "Dee asks: who runs the mill?"
    assert not by_type["past"].invented_default
    s1 = _session("s1", "2020-01-01", 0, ["Ana", "Ben", "Ana", "Ben"])
    q = by_type["cur"].model_copy(update={"session": "s1"})
    plan = plan_simulation(_script(s1), [q], seed=0, config=PAPER)
    assert "s1" not in plan.asked and plan.dropped["s1"] == {NO_WORDING: 20}
    assert "no drawn cur question could be asked" in plan.skipped["s1"]
    assert plan_simulation(_script(s1), [q], seed=0).asked["s1"].question.id == q.id  # incanon: default wording


# -- 3. evidence missing, gold matching no option --------------------------------------------------
def test_oracle_dates_with_no_session_are_kept_on_the_question_and_the_paper_protocol_passes_it_over():
    oracle = OracleIndex(tkg={"1": {"1": {"cur": [["January 1, 2020", "fu"]], "past": [["March 3, 2019"]]}}})
    _, questions, _ = published_world(DATA, work_id="w", title="W", oracle=oracle)
    by_type = {q.type: q for q in questions}
    assert by_type["cur"].unresolved_evidence == [] and by_type["cur"].evidence == ["1-1"]
    assert by_type["past"].unresolved_evidence == ["March 3, 2019"] and by_type["past"].evidence == []
    s1 = _session("s1", "2020-01-01", 0, ["Ana", "Ben", "Ana", "Ben"])
    gap = _q("gap", "s1", unresolved_evidence=["March 3, 2019"])
    plan = plan_simulation(_script(s1), [gap], seed=0, config=PAPER)
    assert "s1" not in plan.asked and plan.dropped_total() == {NO_EVIDENCE: 20}
    assert plan_simulation(_script(s1), [gap], seed=0).asked["s1"].question.id == "gap"


def test_a_gold_answer_equal_to_no_option_ignoring_case_only_leaves_the_session_without_a_question():
    s1 = _session("s1", "2020-01-01", 0, ["Ana", "Ben", "Ana", "Ben"])
    dotted = _q("dot", "s1", answer="cy.")  # incanon's reading folds case and the full stop: (A)
    assert dotted.gold_marker == "(A)"
    plan = plan_simulation(_script(s1), [dotted], seed=0, config=PAPER)
    assert plan.asked == {} and plan.dropped_total() == {NO_GOLD: 1} and NO_GOLD in plan.skipped["s1"]
    assert "s1" in plan_simulation(_script(s1), [dotted], seed=0).asked
    assert "s1" in plan_simulation(_script(s1), [_q("ok", "s1", answer="cY")], seed=0, config=PAPER).asked


def test_a_published_gold_answer_that_is_no_option_at_all_is_left_out_at_ingest_and_counted():
    from incanon.bench.dialsim.published import NO_GOLD_OPTION

    data = {"1": {"1": {**DATA["1"]["1"], "hard_q": {"cur": [
        {"questions": {"default": "Who?"}, "answer": "Zed", "options": OPTIONS}]}}}}
    _, questions, skipped = published_world(data, work_id="w", title="W")
    assert questions == [] and skipped == {NO_GOLD_OPTION: 1}


async def test_passed_over_questions_are_counted_in_the_run_notes_and_the_report(tmp_path):
    s1 = _session("s1", "2020-01-01", 0, ["Ana", "Ben", "Ana", "Ben"])
    s2 = _session("s2", "2020-01-02", 1, ["Ana", "Ben", "Ana", "Ben"])
    pool = [_q("dot", "s1", answer="cy."), _q("fine", "s2")]
    store = RunStore(tmp_path / "runs.sqlite")
    setup = RunSetup(script=_script(s1, s2), questions=pool, agent_model=ScriptedModel(default="(A)"),
                     models={"agent": "scripted"}, memory="bm25-session", config=SimConfig(fast=True, protocol="paper"))
    outcome = await run_setting(setup, store)
    assert outcome.notes == [f"1 drawn question passed over as the reference does (1 {NO_GOLD})"]
    report = DialsimReport(settings=settings_from_runs(store, [outcome.run_id]))
    assert report.settings[0].questions == 1 and report.settings[0].dropped == {NO_GOLD: 1}
    assert f"{outcome.run_id}: 1 drawn question passed over as the reference does" in report.markdown()
    mine = await run_setting(RunSetup(script=_script(s1, s2), questions=pool, agent_model=ScriptedModel(default="(A)"),
                                      models={"agent": "scripted"}, config=SimConfig(fast=True)), store)
    assert mine.run_id != outcome.run_id and mine.notes == []


# -- 4. the live session -----------------------------------------------------------------------
def _who() -> CharacterAt:
    return CharacterAt(work_title="W", character="Ana", position=Position.parse("2020-01-02"), time_label="")


async def _heard(agent, script: DialScript, upto: int) -> None:
    """The first session whole, then ``upto`` lines of the second."""
    first, second = script.sessions
    for line in first.lines:
        await agent.observe(line)
    await agent.end_session(first)
    for line in second.lines[:upto]:
        await agent.observe(line)


@pytest.mark.parametrize("memory", ["dialsim-bm25-session", "dialsim-recent", "dialsim-bm25-summary"])
async def test_under_paper_the_live_session_is_one_document_competing_for_the_top_k(memory):
    s1 = _session("s1", "2020-01-01", 0, ["Ana", "Ben"])
    s2 = _session("s2", "2020-01-02", 1, ["Ana", "Ben", "Ana"])
    # Two documents: BM25Okapi gives every shared word a negative idf, so the summary wins k=1.
    paper = create_agent(memory, ScriptedModel(default="a summary"), protocol="paper",
                         k=2 if memory.endswith("summary") else 1)
    mine = create_agent(memory, ScriptedModel(default="a summary"), k=1)
    for agent in (paper, mine):
        await _heard(agent, _script(s1, s2), 2)
    turn = Turn(speaker="Ben", text="What was line 1 of s2?")
    recall = paper.retrieve(_who(), turn)
    assert recall.current == [] and [u.session for u in paper.units] == ["s1", "s2"]
    live = [u for u in recall.units if u.session == "s2"][0].text
    assert live.rstrip("\n").endswith("Ben: line 1 of s2") and "Ana: line 2" not in live
    own = mine.retrieve(_who(), turn)
    assert own.current == ["Ana: line 0 of s2", "Ben: line 1 of s2"] and [u.session for u in mine.units] == ["s1"]
    # The next line replaces the partial unit; the end of the session puts the finished one.
    await paper.observe(s2.lines[2])
    assert len(paper.units) == 2 and paper.units[-1].text.rstrip("\n").endswith("Ana: line 2 of s2")
    await paper.end_session(s2)
    assert [u.session for u in paper.units] == ["s1", "s2"]


async def test_a_late_update_drops_the_partial_session_as_the_reference_pops_it():
    s1 = _session("s1", "2020-01-01", 0, ["Ana", "Ben"])
    s2 = _session("s2", "2020-01-02", 1, ["Ana", "Ben", "Ana"])
    agent = create_agent("dialsim-bm25-session", ScriptedModel(default="x"), protocol="paper")
    await _heard(agent, _script(s1, s2), 1)
    mark = agent.mark()
    await agent.observe(s2.lines[1])
    agent.rollback(mark)
    assert [u.session for u in agent.units] == ["s1"] and len(agent.index) == 1


async def test_paper_utterance_memory_retrieves_the_live_sessions_lines_too():
    s1 = _session("s1", "2020-01-01", 0, ["Ana", "Ben"])
    s2 = _session("s2", "2020-01-02", 1, ["Ana", "Ben"])
    paper = create_agent("dialsim-bm25-utterance", ScriptedModel(default="x"), protocol="paper")
    await _heard(paper, _script(s1, s2), 2)
    recall = paper.retrieve(_who(), Turn(speaker="Ben", text="line 1 of s2"))
    assert recall.current == [] and any(u.session == "s2" for u in recall.units)


# -- 5. the oracle ---------------------------------------------------------------------------
def test_the_paper_oracle_keeps_the_bm25_best_k_in_the_references_header_order():
    units = [Unit(0, "a", "2019-09-01", "[September 1, 2019, a]\nBen: the bakery opens"),
             Unit(1, "b", "2020-04-01", "[April 1, 2020, b]\nCy: the mill closed for a week"),
             Unit(2, "c", "2020-05-01", "[May 1, 2020, c]\nDee: nothing about it")]
    assert [u.session for u in bm25_ranked(units, "When did the mill close?", 1)] == ["b"]
    # Alphabetical by "[Date: April 1, 2020" < "[Date: September 1, 2019": not story order.
    assert [u.session for u in bm25_ranked(units, "the mill closed and the bakery opens", 2)] == ["b", "a"]


async def test_the_oracle_agent_ranks_under_paper_and_takes_the_first_k_otherwise():
    s1 = _session("s1", "2020-01-01", 0, ["Ana", "Ben"])
    s2 = _session("s2", "2020-01-02", 1, ["Ana", "Ben"])
    turn = Turn(speaker="Ben", text="What was line 1 of s2?", about="s1,s2")
    picked = {}
    for protocol in ("paper", "incanon"):
        agent = create_agent("dialsim-oracle", ScriptedModel(default="x"), protocol=protocol, k=1)
        for session in (s1, s2):
            for line in session.lines:
                await agent.observe(line)
            await agent.end_session(session)
        recall = agent.retrieve(_who(), turn)
        picked[protocol] = [u.session for u in recall.units]
        assert recall.current == []
        # The reference ranks by the question alone; incanon searches with the asker too.
        assert agent.query(turn) == ("What was line 1 of s2?" if protocol == "paper" else "Ben: What was line 1 of s2?")
    assert picked == {"paper": ["s2"], "incanon": ["s1"]}
    assert create_agent("dialsim-oracle", ScriptedModel(default="x"), protocol="paper").k == 10


# -- 6. names -----------------------------------------------------------------------------------
def test_the_references_fixed_mapping_is_offered_and_replaces_inside_words_as_it_does():
    swap = reference_names("friends", "swap")
    assert swap.apply("Ross and Rachel met Rossi.") == "Phoebe and Chandler met Phoebei."
    assert reference_names("bigbang", "new").apply("Sheldon, Amy") == "John, Patricia"
    friends = _script(_session("s1", "2020-01-01", 0, ["Ana", "Ben"]), work="friends")
    assert name_map(friends, "swap", protocol="paper").mapping == swap.mapping
    assert name_map(friends, "swap:theoffice").mode == "swap:theoffice"
    assert name_map(friends, "swap").whole_words  # incanon's seeded swap stays the default
    with pytest.raises(ConfigError, match="swap:SHOW"):
        name_map(_script(_session("s1", "2020-01-01", 0, ["Ana", "Ben"])), "swap", protocol="paper")
    with pytest.raises(ConfigError, match="friends, bigbang, theoffice"):
        check_names("swap:seinfeld")
