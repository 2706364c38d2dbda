"""The demo: one character, two points in the story, three kinds of question, judged.

Everything runs through the real product path (canon store → knowledge scope → role-play agent
→ LLM judge → runner and run store), so the demo is also the thinnest end-to-end test.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from incanon.agents import DEFAULT_METHOD, Turn, character_at, create_agent
from incanon.canon import CanonStore, CharacterRecord, Position, SceneRecord
from incanon.errors import NotFoundError
from incanon.judges import SpatiotemporalJudge, spatiotemporal_label
from incanon.models import ChatModel, GenerationParams
from incanon.runs import ItemOutcome, RunConfig, RunItem, RunResult, RunStore, run_items
from incanon.templates import PromptLibrary

#: The three kinds of question the demo asks at each time point, in display order.
DEMO_TYPES = ("future", "past-absence", "past-presence")
#: Short answers with a mild repetition penalty: small local models otherwise loop until the
#: token limit, which makes the demo slow and its table unreadable.
AGENT_PARAMS = GenerationParams(max_tokens=150, frequency_penalty=0.5)
JUDGE_PARAMS = GenerationParams(max_tokens=200)


@dataclass(frozen=True)
class DemoQuestion:
    """One question for the character at one time point."""

    at: Position
    at_label: str
    data_type: str
    scene: SceneRecord
    question: str


def _type_at(scene: SceneRecord, character: str, at: Position) -> str:
    if scene.position > at:
        return "future"
    return "past-presence" if character in scene.participants else "past-absence"


def _fallback_question(scene: SceneRecord) -> str:
    # Used only when the ground truth has no probe about a suitable scene: ask about the scene
    # by its title, the way an interviewer who knows the story would.
    title = scene.title or scene.summary
    return f"What can you tell me about {title[0].lower() + title[1:]}? Were you there?"


def plan_demo(store: CanonStore, work: str, character: str | None = None) -> tuple[CharacterRecord, list[DemoQuestion]]:
    """Pick a character and two of its time points where all three question kinds exist, and
    one question per (time point, kind), preferring the ground truth's probe questions.

    The data type of every question is computed from the canon (positions and participants),
    not copied from the probes: the same question can be *future* at one time point and
    *past-presence* at the other.
    """
    scenes = store.scenes(work)
    candidates = [store.character(work, character)] if character else store.characters(work)
    probes = store.probes(work)
    for record in candidates:
        points = sorted(record.time_points, key=lambda tp: tp.position.key)
        usable = [tp for tp in points
                  if {_type_at(s, record.name, tp.position) for s in scenes} >= set(DEMO_TYPES)]
        if len(usable) < 2:
            continue
        asked = {p.event: p.question for p in probes if p.character == record.name}
        questions: list[DemoQuestion] = []
        for tp in (usable[0], usable[-1]):
            for kind in DEMO_TYPES:
                matching = [s for s in scenes if _type_at(s, record.name, tp.position) == kind]
                with_probe = [s for s in matching if s.id in asked]
                # Future: the nearest future scene; past: the most recent one.
                pool = with_probe or matching
                scene = pool[0] if kind == "future" else pool[-1]
                questions.append(DemoQuestion(
                    at=tp.position, at_label=tp.label, data_type=kind, scene=scene,
                    question=asked.get(scene.id) or _fallback_question(scene),
                ))
        return record, questions
    who = f"character {character!r}" if character else "any character"
    raise NotFoundError(
        f"{who} of work {work!r} has no two time points at which a future event, a missed scene "
        "and a witnessed scene all exist (add time points to the character)"
    )


def demo_items(record: CharacterRecord, questions: list[DemoQuestion]) -> list[RunItem]:
    """The questions as run items (their input is all a task needs)."""
    return [
        RunItem(
            id=f"{record.name}@{q.at}:{q.data_type}:{q.scene.id}",
            input={
                "character": record.name, "at": str(q.at), "at_label": q.at_label,
                "data_type": q.data_type, "scene": q.scene.id, "event": q.scene.summary,
                "question": q.question,
            },
        )
        for q in questions
    ]


DEMO_IN_CANON = {"experts": False, "k": 3}
"""Options of the demo's in-canon method (see ``make_task``)."""


def make_task(store: CanonStore, work: str, agent_model: ChatModel, judge_model: ChatModel,
              prompts: PromptLibrary, method: str = DEFAULT_METHOD):
    """The per-item task: answer in character, then judge against the spatiotemporal label."""
    # The demo's in-canon skips the narrative experts and keeps three passages: one call per
    # answer keeps the embedded model's run to a few minutes on two cores (the scope rules are
    # the same; only the experts' hints are missing).
    light = DEMO_IN_CANON if method == DEFAULT_METHOD else {}
    agent = create_agent(method, agent_model, prompts=prompts, params=AGENT_PARAMS, store=store, **light)
    judge = SpatiotemporalJudge(judge_model, prompts=prompts, params=JUDGE_PARAMS)

    async def task(item: RunItem) -> ItemOutcome:
        x = item.input
        who = character_at(store, work, x["character"], x["at"])
        reply = await agent.respond(who, [Turn(speaker="user", text=x["question"])])
        label = spatiotemporal_label(x["data_type"], who.character, who.when, x["event"])
        verdict = await judge.judge(character=who.character, when=who.when,
                                    question=x["question"], answer=reply.text, label=label)
        return ItemOutcome(
            outputs={"answer": reply.text, "label": label},
            scores={"spatiotemporal": verdict.score},
            extra={"rationale": verdict.rationale, "judge_repaired": verdict.repaired,
                   "judge_calls": {"judge": verdict.calls},
                   "calls": [c.model_dump(mode="json") for c in reply.calls]},
        )

    return task


def world_fingerprint(store: CanonStore, work: str) -> str:
    """A short hash of the work's canon, so a changed world makes a different run."""
    from incanon.sample.loading import work_fingerprint

    return work_fingerprint(store, work)


async def run_demo(
    *,
    store_dir: Path,
    runs_path: Path,
    agent_model: ChatModel,
    judge_model: ChatModel,
    model_specs: dict[str, str],
    character: str | None = None,
    fresh: bool = False,
    progress: bool = True,
    concurrency: int = 1,
) -> tuple[RunResult, RunStore, CharacterRecord]:
    """Load the sample world, plan the questions, run and judge them; return the run. A work
    of the sample's id that the sample did not create is never replaced (a ``ConfigError``)."""
    from incanon.sample import sample_world
    from incanon.sample.loading import load_sample_world

    store = CanonStore.open(store_dir)
    work = load_sample_world(store, sample_world())
    record, questions = plan_demo(store, work, character)
    prompts = PromptLibrary()
    config = RunConfig(
        benchmark="demo",
        task="point-in-time interview: future / missed / witnessed scenes at two time points",
        dataset={"work": work, "world": world_fingerprint(store, work), "character": record.name,
                 "items": len(questions)},
        models=model_specs,
        methods=[DEFAULT_METHOD],
    )
    runs = RunStore(runs_path)
    result = await run_items(
        demo_items(record, questions),
        make_task(store, work, agent_model, judge_model, prompts),
        store=runs, config=config, concurrency=concurrency, progress=progress, fresh=fresh,
        templates=prompts.used,
    )
    return result, runs, record


def demo_rows(runs: RunStore, run_id: str) -> list[dict[str, Any]]:
    """The run's samples as flat rows for the table (from the store, so resumed runs show all)."""
    order = {kind: i for i, kind in enumerate(DEMO_TYPES)}
    rows = []
    for s in runs.samples(run_id):
        x = s.input
        rows.append({
            "at": x["at"], "at_label": x["at_label"], "data_type": x["data_type"],
            "question": x["question"], "scene": x["scene"],
            "answer": (s.outputs or {}).get("answer"),
            "score": (s.scores or {}).get("spatiotemporal"),
            "status": s.status, "error": s.error,
        })
    rows.sort(key=lambda r: (Position.parse(r["at"]).key, order.get(r["data_type"], 9)))
    return rows
