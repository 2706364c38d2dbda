"""What given-circumstance acting costs per case: calls and tokens per stage (scripted models).

Simulates and judges synthetic CoSER cases of 2-4 characters with scripted models standing in
for the actor, the environment model, the next-speaker predictor and the critic, and prints,
per case and stage, the model calls and prompt / completion tokens (whitespace words, as the
scripted model counts them). The predictor names speakers in turn and ends the scene after
``--end-after`` messages on even cases (odd cases run to the 20-round cap); the critic answers
three dimensions in clean JSON and one in prose, which costs a repair call.

Prints figures; not a test.

    .venv/bin/python benchmarks/coser_eval.py [--cases 6] [--continue-from 0] [--end-after 8]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from typing import Any, Sequence

from incanon.bench.coser.critics import Critic
from incanon.bench.coser.formats import TestSample
from incanon.bench.coser.metrics import ngram_scores
from incanon.bench.coser.scoring import DIMENSIONS
from incanon.bench.coser.simulation import Cast, SimulationConfig, simulate_case
from incanon.models import Message, ScriptedModel, load_chat_model, metered

NAMES = ["Ada Vance", "Bram Holt", "Cora Lind", "Dov Marsh"]
STAGES = ("actor", "env", "nsp", "critic")


def make_case(index: int) -> dict[str, Any]:
    cast = NAMES[: 2 + index % 3]
    dialogues = [{"character": cast[i % len(cast)], "message": f"[thought {i}] (gestures) Line {i} of the original scene, "
                  "spoken with some care and a few more words to make it realistic."} for i in range(12)]
    dialogues.insert(5, {"character": "Environment", "message": "Rain starts to fall on the roof."})
    return {
        "book": "Benchmark Book", "i_c": 0, "tag": "id" if index % 2 == 0 else "ood",
        "scenario": "A cramped kitchen at night; the kettle is about to boil and nobody wants to speak first. " * 3,
        "key_characters": [{"name": n, "thought": f"{n} wants to settle the matter tonight without a quarrel."} for n in cast],
        "dialogues": dialogues, "speaking_characters_w_env": [*cast, "Environment"], "major_characters": cast,
        "plot": {"summary": "A family quarrel over an inheritance comes to a head. " * 4, "i_p": index, "key_characters": []},
        "character_profiles": {n: f"{n} is a member of the family with a long history of grievances. " * 8 for n in cast},
    }


def actor_reply(messages: Sequence[Message]) -> str:
    name = re.match(r"You are (.+?), a character", messages[0].content).group(1)  # type: ignore[union-attr]
    return (f"[{name} weighs every word before speaking.] (sets down the cup) I have said what I came to say, "
            "and I will not take it back, whatever the rest of you think of me tonight.")


def nsp_reply(end_after: int | None, speakers: list[str]):
    def reply(messages: Sequence[Message]) -> str:
        said = messages[-1].content.split("=== The scene so far ===")[-1]
        count = len(re.findall(r"^\S[^:\n]*: ", said, re.MULTILINE))
        if end_after is not None and count >= end_after:
            return "END"
        return speakers[count % len(speakers)]
    return reply


def critic_reply(messages: Sequence[Message]) -> str:
    last = messages[-1].content
    if "could not be read" in last:
        return json.dumps({"Storyline Quality": {"flaws": [{"instance": "repeats itself", "type": "Flow & Progression",
                                                            "severity": 3}]}})
    for dimension in DIMENSIONS[:3]:
        if f"List the {dimension}" in last:
            return json.dumps({dimension: {"flaws": [{"instance": "a reaction unlike the book's", "type": "t",
                                                      "severity": 3}, {"instance": "too explicit", "type": "t", "severity": 2}]}})
    return "The conversation flows, but it repeats itself."


async def run_case(index: int, continue_from: int, end_after: int) -> dict[str, Any]:
    data = make_case(index)
    sample = TestSample.model_validate(data)
    speakers = data["speaking_characters_w_env"]
    models = {stage: load_chat_model(ScriptedModel(default=reply, name=stage), retry=None) for stage, reply in (
        ("actor", actor_reply), ("env", lambda m: "The rain grows heavier; a shutter bangs somewhere upstairs."),
        ("nsp", nsp_reply(end_after if index % 2 == 0 else None, speakers)), ("critic", critic_reply))}
    cast = Cast(actor=models["actor"], nsp=models["nsp"], environment=models["env"])
    t0 = time.perf_counter()
    with metered() as meter:
        sim = await simulate_case(sample, cast, SimulationConfig(continue_from=continue_from))
        simulated = time.perf_counter()
        ngram_scores(sim.coser_messages(), [t.model_dump() for t in sample.dialogues], continue_from)
        critique = await Critic(models["critic"]).critique(sample, sim.coser_messages(), continue_from=continue_from)
    return {"case": f"case{index} ({len(speakers) - 1} chars)", "messages": len(sim.messages), "ended": sim.ended_by,
            "usage": meter.by_model, "score": critique.score, "sim_s": simulated - t0,
            "judge_s": time.perf_counter() - simulated}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=6)
    parser.add_argument("--continue-from", type=int, default=0)
    parser.add_argument("--end-after", type=int, default=8, help="messages before the predictor says END (even cases)")
    args = parser.parse_args()
    await run_case(0, args.continue_from, args.end_after)  # warm-up: imports, template compilation
    rows = [await run_case(i, args.continue_from, args.end_after) for i in range(args.cases)]
    print(f"# GCA cost per case and stage (scripted models, continue-from {args.continue_from})\n")
    head = f"{'case':18} {'msgs':>4} {'ended':>10}"
    for stage in STAGES:
        head += f" | {stage + ' calls':>12} {'prompt':>7} {'compl':>6}"
    print(head + " | score")
    totals = {s: [0, 0, 0] for s in STAGES}
    for row in rows:
        line = f"{row['case']:18} {row['messages']:>4} {row['ended']:>10}"
        for stage in STAGES:
            u = row["usage"].get(stage)
            calls, prompt, compl = (u.calls, u.prompt_tokens, u.completion_tokens) if u else (0, 0, 0)
            totals[stage] = [totals[stage][0] + calls, totals[stage][1] + prompt, totals[stage][2] + compl]
            line += f" | {calls:>12} {prompt:>7} {compl:>6}"
        print(line + f" | {row['score']:.2f}")
    n = len(rows)
    line = f"{'mean':18} {sum(r['messages'] for r in rows) / n:>4.1f} {'':>10}"
    for stage in STAGES:
        calls, prompt, compl = totals[stage]
        line += f" | {calls / n:>12.1f} {prompt / n:>7.0f} {compl / n:>6.0f}"
    print(line)
    print(f"\nwall time per case (scripted, no model latency): simulation {sum(r['sim_s'] for r in rows) / n * 1000:.1f} ms,"
          f" judging {sum(r['judge_s'] for r in rows) / n * 1000:.1f} ms")


if __name__ == "__main__":
    asyncio.run(main())
