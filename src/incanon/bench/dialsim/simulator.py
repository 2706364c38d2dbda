"""The real-time simulator: sessions replay in order, one utterance per time interval.

For each utterance the agent updates its memory; when a question is planned at it, the asker
asks and the agent answers. With a time limit ``t`` (the reference's protocol):

* **memory updates**: an update must finish within ``t``. One that does not is *dropped*: what
  it stored is rolled back and never retrieved later (the reference pops the history entry whose
  save timed out; the paper updates memory "in time"). A late update of a session's last line
  drops the whole session (or its summary).
* **one budget per question**: the question's utterance, its retrieval and its answer share one
  interval; retrieval gets ``t`` minus the update time, the answer ``t`` minus update and
  retrieval, and the question is a *timeout* when the three together reach ``t`` (the
  reference's ``result_time >= sleep_time``). A late update of the question's own utterance
  fails the question (stage ``memory``).

In real time (the default) utterances are paced ``t`` apart and a step still running at its
deadline is cancelled; in fast mode nothing sleeps or is cancelled: every step is timed and
judged against the same deadlines afterwards, which gives the same outcomes without the
waiting. An exception is recorded as an *error* (never as a wrong answer).

The clock and the sleep are injectable, so tests drive time without waiting on it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from incanon.agents.base import CharacterAt, Turn
from incanon.bench.dialsim.agents.memory import MemoryAgent, Recall
from incanon.bench.dialsim.calibrate import calibrate_mc
from incanon.bench.dialsim.dates import spoken
from incanon.bench.dialsim.deadline import DeadlineRunner
from incanon.bench.dialsim.formats import AnswerFormat, render_question
from incanon.bench.dialsim.names import NameMap, rename_question, rename_script
from incanon.bench.dialsim.outcomes import QuestionOutcome, SessionRecord, SimulationResult, latency_stats
from incanon.bench.dialsim.plan import Plan, PlannedQuestion, plan_simulation
from incanon.bench.dialsim.questions import Question
from incanon.bench.dialsim.scoring import AnswerJudge, Score, score_mc
from incanon.bench.dialsim.script import DialScript, DialSession
from incanon.bench.dialsim.style import StyleTransfer
from incanon.canon.position import Position
from incanon.errors import ConfigError
from incanon.models.usage import metered
from incanon.runs.prices import Prices


PROTOCOLS = ("incanon", "paper")


@dataclass
class SimConfig:
    """How one simulation runs."""

    time_limit: float = 6.0
    """Seconds per utterance (memory update, and for a question also retrieval and answer); 0 = no limit."""
    fast: bool = False
    """Measure instead of sleeping (same outcomes, no waiting)."""
    answer_format: AnswerFormat = "mc"
    seed: int = 0
    fan_ratio: float = 0.3
    """Chance of a fan-quiz question where a session has both kinds (the reference's 1 - tkg_ratio)."""
    tkg_unanswerable_share: float = 0.215
    """Share of unanswerable types the reference's TKG type list is padded down to."""
    fan_unanswerable_share: float = 0.27
    """Share of unanswerable types the reference's fan-quiz type list is padded down to."""
    lenient: bool = False
    """Lenient matching (any-case markers, normalized exact match) instead of the reference's."""
    protocol: str = "incanon"
    """``paper``: the askers, the questions passed over, the live session and the oracle's
    ranking as the reference code has them (see docs/dialsim.md); ``incanon``: incanon's own."""
    warm_model: bool | None = None
    """Send the agent's model one "Hello." call before the clock starts (a local model then loads
    outside the first timed step). None: yes under incanon's protocol, no under the paper's (the
    reference sends no such call)."""

    @property
    def warms_model(self) -> bool:
        """Whether the warm-up call is sent (see ``warm_model``)."""
        return self.protocol != "paper" if self.warm_model is None else self.warm_model

    def __post_init__(self) -> None:
        if self.time_limit < 0:
            raise ConfigError(f"the time limit must be 0 (no limit) or positive, got {self.time_limit}")
        if self.protocol not in PROTOCOLS:
            raise ConfigError(f"--protocol takes {' or '.join(PROTOCOLS)}, got {self.protocol!r}")


def _error(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Simulator:
    """Runs ``agent`` through ``script`` with the questions of ``questions`` (see module docstring)."""

    def __init__(
        self, script: DialScript, questions: Iterable[Question], agent: MemoryAgent, *,
        config: SimConfig | None = None, judge: AnswerJudge | None = None, style: StyleTransfer | None = None,
        names: NameMap | None = None, clock: Callable[[], float] = time.perf_counter,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep, warm_up: bool = True,
        prices: Prices | None = None,
    ) -> None:
        self.config = config or SimConfig()
        if self.config.answer_format != "mc" and judge is None:
            raise ConfigError(f"the {self.config.answer_format} answer format needs a judge model")
        self.original = script
        self.questions = list(questions)
        self.agent, self.judge, self.style, self.names = agent, judge, style, names
        self.script = rename_script(script, names) if names else script
        self.clock, self.sleep, self.warm_up = clock, sleep, warm_up
        self._steps = DeadlineRunner()
        """Retrieval against the question's deadline, in a worker thread (real time only)."""
        self.prices = prices
        self.unpriced: set[str] = set()
        """Models the price table had no price for (their calls count as $0)."""
        self.plan: Plan = plan_simulation(script, self.questions, config=self.config)

    @property
    def limit(self) -> float:
        return self.config.time_limit

    def late(self, seconds: float) -> bool:
        """A memory update past the interval (the reference's save timeout)."""
        return self.limit > 0 and seconds > self.limit

    def over(self, seconds: float) -> bool:
        """A question whose update, retrieval and answer together reach the interval."""
        return self.limit > 0 and seconds >= self.limit

    async def _pace(self, started: float) -> None:
        if not self.config.fast and self.limit > 0:
            remaining = started + self.limit - self.clock()
            if remaining > 0:
                await self.sleep(remaining)

    async def run(self, on_session: Callable[[SessionRecord], object] | None = None, *, start: int = 0,
                  restore: Callable[[MemoryAgent], object] | None = None) -> SimulationResult:
        """Replay the dialogue; ``on_session`` gets each session's record as soon as it is done.
        To resume (:mod:`incanon.bench.dialsim.resume`): ``restore`` puts back the memory of the
        sessions already done, then the replay starts at session index ``start``."""
        self.agent.reset()
        if self.warm_up:
            await self.agent.warm_up(model=self.config.warms_model)
        if restore is not None:
            restore(self.agent)
        result = SimulationResult(seed=self.config.seed, main=self.script.main,
                                  names=dict(self.names.mapping) if self.names else {})
        for session in self.script.dialogue[start:]:
            with metered() as meter:
                record = await self._session(session)
            record.usage = meter.total
            if self.prices is not None:  # each model's tokens at its own price, as the runner does
                record.usage, unpriced = self.prices.price_meter(meter.by_model)
                self.unpriced.update(unpriced)
            result.sessions.append(record)
            if on_session is not None:
                on_session(record)
        await self._steps.settle()  # no retrieval outlives its simulation
        return result

    async def _update(self, line_index: int, last: int, session: DialSession) -> tuple[float, str | None, bool]:
        """One utterance's memory update: (seconds, error, dropped). A late update is rolled back."""
        line = session.lines[line_index]
        mark = self.agent.mark()
        started = self.clock()
        failure = None
        cancelled = False

        async def update() -> None:
            await self._steps.settle()  # a retrieval abandoned at its deadline: still busy
            await self.agent.observe(line)
            if line_index == last:
                await self.agent.end_session(session)

        try:
            if not self.config.fast and self.limit > 0:
                await asyncio.wait_for(update(), self.limit)
            else:
                await update()
        except TimeoutError:
            cancelled = True  # cancelled at the deadline: rolled back below
        except Exception as exc:  # noqa: BLE001 - recorded, and the simulation goes on
            failure = _error(exc)
        took = self.clock() - started
        dropped = cancelled or self.late(took)
        if dropped or failure is not None:
            self.agent.rollback(mark)
            if line_index == last and self.agent.current_session == session.id:
                self.agent.current, self.agent.current_session = [], None
        return took, failure, dropped

    async def _session(self, session: DialSession) -> SessionRecord:
        planned = self.plan.asked.get(session.id)
        asked = await self._prepare(planned) if planned else None
        record = SessionRecord(session=session.id, date=session.date, lines=len(session.lines),
                               skipped=self.plan.skipped.get(session.id),
                               dropped=dict(self.plan.dropped.get(session.id, {})))
        durations: list[float] = []
        last = len(session.lines) - 1
        # Not timed: the reference files the session's whole script before its first line.
        self.agent.begin_session(session)
        for k in range(len(session.lines)):
            started = self.clock()
            took, failure, dropped = await self._update(k, last, session)
            if failure is not None:
                record.memory_errors.append(f"line {k}: {failure}")
            durations.append(took)
            record.memory_timeouts += dropped
            if planned is not None and asked is not None and k == planned.index:
                record.question = await self._ask(session, planned, asked, took, failure)
            await self._pace(started)
        record.update = latency_stats(durations)
        return record

    async def _prepare(self, planned: PlannedQuestion) -> tuple[Question, str, bool, str]:
        """The question as it will be asked: styled (not timed: the simulator's work), renamed."""
        question = planned.question
        text, styled, note = question.text_for(planned.asker), planned.asker in question.texts, ""
        if not styled and self.style is not None:
            personality = self.original.personalities.get(planned.asker, "")
            result = await self.style.restyle(question.texts["default"], planned.asker, personality)
            text, styled, note = result.text, result.styled, result.note
        if self.names is not None:
            question = rename_question(question, self.names)
            text = self.names.apply(text)
        return question, text, styled, note

    async def _ask(self, session: DialSession, planned: PlannedQuestion, asked: tuple[Question, str, bool, str],
                   update_s: float, failure: str | None) -> QuestionOutcome:
        question, text, styled, note = asked
        asker = self.names.apply(planned.asker) if self.names else planned.asker
        rendered = render_question(text, question.options, self.config.answer_format)
        outcome = QuestionOutcome(
            session=session.id, date=session.date, index=planned.index, asker=asker, question_id=question.id,
            source=question.source, type=question.type, category=question.category, answerable=question.answerable,
            format=self.config.answer_format, question=rendered, options=question.options, gold=question.answer,
            gold_marker=question.gold_marker, evidence=question.evidence, status="error", update_s=update_s,
            limit_s=(self.limit - update_s) if self.limit > 0 else None,
            styled=styled, style_note=note, plan_note=planned.note)
        if failure is not None:
            return outcome.model_copy(update={"stage": "memory", "error": failure})
        if self.late(update_s):
            return outcome.model_copy(update={"status": "timeout", "stage": "memory"})
        who = CharacterAt(work_title=self.script.title, character=self.script.main,
                          position=Position.parse(session.date), time_label=spoken(session.date))
        turn = Turn(speaker=asker, text=rendered, about=",".join(question.evidence))
        started = self.clock()
        # In real time the retrieval is stopped at the question's deadline (it runs in a worker
        # thread); in fast mode it is timed and judged afterwards, like every other step.
        deadline = self.limit - update_s if not self.config.fast and self.limit > 0 else None
        try:
            recall: Recall = await self._steps.run(lambda: self.agent.retrieve(who, turn), deadline)
        except TimeoutError:
            return outcome.model_copy(update={"status": "timeout", "stage": "retrieval",
                                              "retrieve_s": self.clock() - started})
        except Exception as exc:  # noqa: BLE001
            return outcome.model_copy(update={"stage": "retrieval", "error": _error(exc),
                                              "retrieve_s": self.clock() - started})
        retrieve_s = self.clock() - started
        outcome = outcome.model_copy(update={"retrieve_s": retrieve_s,
                                             "retrieved": [f"{u.session}#{u.order}" for u in recall.units]})
        if self.over(update_s + retrieve_s):
            return outcome.model_copy(update={"status": "timeout", "stage": "retrieval"})
        started = self.clock()
        try:
            call = self.agent.answer(who, turn, recall, question_text=text, options=question.options)
            real_deadline = not self.config.fast and self.limit > 0
            reply = await (asyncio.wait_for(call, self.limit - update_s - retrieve_s) if real_deadline else call)
        except TimeoutError:
            return outcome.model_copy(update={"status": "timeout", "stage": "answer", "answer_s": self.clock() - started})
        except Exception as exc:  # noqa: BLE001
            return outcome.model_copy(update={"stage": "answer", "error": _error(exc), "answer_s": self.clock() - started})
        took = self.clock() - started
        outcome = outcome.model_copy(update={"answer": reply.text, "answer_s": took})
        if self.over(update_s + retrieve_s + took):
            return outcome.model_copy(update={"status": "timeout", "stage": "answer", "calibrated": "timeout"})
        try:
            score = await self._score(question, text, reply.text)
        except Exception as exc:  # noqa: BLE001
            return outcome.model_copy(update={"stage": "judge", "error": _error(exc)})
        calibrated = (calibrate_mc(score.verdict, reply.text, question.gold_marker, question.options)
                      if self.config.answer_format == "mc" else score.verdict)
        return outcome.model_copy(update={"status": score.verdict, "score_method": score.method, "calibrated": calibrated,
                                          "score_detail": score.detail, "stage": None})

    async def _score(self, question: Question, text: str, answer: str) -> Score:
        if self.config.answer_format == "mc":
            return score_mc(answer, question.gold_marker, lenient=self.config.lenient)
        assert self.judge is not None
        return await self.judge.score(text, question.answer, answer)
