"""DialSim memory costs: incremental BM25 against a rebuild per utterance, and simulator throughput.

Part 1 grows a BM25 memory utterance by utterance over a synthetic script of about 350k tokens
(the size of one DialSim show). ``IncrementalBM25`` adds every utterance and times each add;
at checkpoints it times retrieval (top 20). The reference behaviour, a full bm25s index built
after every utterance, is timed in the same run at the same memory sizes (each figure is what
one utterance costs when the memory holds N utterances; building it for all 19k utterances
would take hours, which is the point). The rebuild is timed on already tokenized text, which
flatters it: the reference code also re-tokenizes the whole history every time.

Part 2 runs the simulator in fast mode with a scripted model: the sample dialogue with several
memory strategies, then the long synthetic script with per-utterance BM25 memory, and reports
utterances per second (model time excluded: the scripted model answers at once).

Part 3 times the first question's BM25 retrieval in fresh processes, without and with the
retrieval warm-up the simulator runs before the clock starts (the first retrieval used to load
the token counter's vocabulary, 0.2-1 s, inside the question's time).

    .venv/bin/python benchmarks/dialsim.py [--tokens 350000] [--repeats 3] [--queries 20] [--part 1 2 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from incanon.agents import create_agent
from incanon.bench.dialsim import (
    IDK, SAMPLE_WORK, DialScript, DialSession, IncrementalBM25, Line, Question, SimConfig, Simulator,
    build_questions, ingest, load_script)
from incanon.bench.dialsim.bm25 import build_bm25s
from incanon.canon import CanonStore
from incanon.models import ScriptedModel

SPEAKERS = ["Ross", "Rachel", "Monica", "Chandler", "Joey", "Phoebe", "Gunther", "Janice"]


def synthetic_lines(tokens: int, seed: int = 0) -> list[tuple[str, str]]:
    """(speaker, text) utterances of 6-30 words from a Zipf-like 6000-word vocabulary."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(6000)]
    weights = [1 / (i + 1) for i in range(len(vocab))]
    lines, total = [], 0
    while total < tokens:
        n = rng.randint(6, 30)
        words = rng.choices(vocab, weights, k=n)
        lines.append((rng.choice(SPEAKERS), " ".join(words)))
        total += n
    return lines


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) * 1000


def part1(tokens: int, repeats: int, queries: int) -> None:
    lines = synthetic_lines(tokens)
    texts = [f"{s}: {t}" for s, t in lines]
    n = len(texts)
    checkpoints = sorted({c for c in (1000, 2000, 5000, 10000, n) if c <= n})
    rng = random.Random(1)
    asks = [" ".join(rng.choice(texts[i].split()[1:]) for _ in range(6)) for i in rng.sample(range(n), queries)]
    print(f"Part 1: BM25 memory over a synthetic script of {tokens:,} tokens = {n:,} utterances\n")
    print(f"{'memory':>8} | {'incremental add p50/p95 (ms)':>29} | {'rebuild per utterance p50/p95 (ms)':>35} | "
          f"{'speed-up':>8} | {'top-20 query incr. p50/p95 (ms)':>32} | {'query rebuilt p50/p95 (ms)':>27}")
    memory = IncrementalBM25()
    adds: list[float] = []
    window_start = 0
    for i, text in enumerate(texts, start=1):
        t0 = time.perf_counter()
        memory.add(text)
        adds.append(time.perf_counter() - t0)
        if i not in checkpoints:
            continue
        window = adds[window_start:]
        window_start = i
        q_inc = []
        for q in asks:
            t0 = time.perf_counter()
            memory.top_k(q, 20)
            q_inc.append(time.perf_counter() - t0)
        corpus = [memory.tokenizer.decode([memory.tokens(t, learn=False)])[0] or [""] for t in texts[:i]]
        rebuilds = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            index = build_bm25s(corpus)
            rebuilds.append(time.perf_counter() - t0)
        q_reb = []
        for q in asks:
            words = [w for w in q.split() if w in index.vocab_dict]
            t0 = time.perf_counter()
            if words:
                scores = index.get_scores(words)
                np.argsort(-scores)[:20]
            q_reb.append(time.perf_counter() - t0)
        speed = statistics.median(rebuilds) / statistics.median(window)
        print(f"{i:>8,} | {pct(window, 50):>13.3f} / {pct(window, 95):>12.3f} | {pct(rebuilds, 50):>17.1f} / "
              f"{pct(rebuilds, 95):>14.1f} | {speed:>7,.0f}x | {pct(q_inc, 50):>15.2f} / {pct(q_inc, 95):>13.2f} | "
              f"{pct(q_reb, 50):>12.2f} / {pct(q_reb, 95):>11.2f}")
    print(f"\nincremental: {len(adds):,} adds in {sum(adds):.2f} s in all (mean {statistics.fmean(adds) * 1e6:.0f} µs), "
          f"{memory.postings_written:,} postings written, 0 index builds")
    print(f"rebuild per utterance, extrapolated from the checkpoints: about "
          f"{_extrapolate(checkpoints, n, texts, memory) / 3600:.1f} hours of indexing for the whole script\n")


def _extrapolate(checkpoints: list[int], n: int, texts: list[str], memory: IncrementalBM25) -> float:
    # Rebuild cost grows linearly with the memory; sum the line over every utterance.
    size = checkpoints[-1]
    corpus = [memory.tokenizer.decode([memory.tokens(t, learn=False)])[0] or [""] for t in texts[:size]]
    t0 = time.perf_counter()
    build_bm25s(corpus)
    per_doc = (time.perf_counter() - t0) / size
    return per_doc * n * (n + 1) / 2


def synthetic_script(tokens: int) -> tuple[DialScript, list[Question]]:
    lines = synthetic_lines(tokens, seed=2)
    sessions, questions = [], []
    for number, start in enumerate(range(0, len(lines), 25), start=1):
        chunk = lines[start:start + 25]
        sid, date = f"session-{number}", f"{1994 + number // 365:04d}-{(number // 30) % 12 + 1:02d}-{number % 28 + 1:02d}"
        body = tuple(Line(sid, date, i, s, t) for i, (s, t) in enumerate(chunk))
        speakers = tuple(dict.fromkeys(s for s, _ in chunk))
        sessions.append(DialSession(sid, number - 1, date, "", speakers, speakers, body))
        word = chunk[0][1].split()[0]
        questions.append(Question(id=f"q{number}", session=sid, source="tkg", type="cur", answerable=True,
                                  texts={"default": f"Who said {word} first?"}, answer=chunk[0][0],
                                  options=[chunk[0][0], "Gunther", "Janice", "Ursula", IDK]))
    sessions.sort(key=lambda s: s.date)
    sessions = [DialSession(s.id, i, s.date, s.title, s.participants, s.speakers, s.lines) for i, s in enumerate(sessions)]
    return DialScript(work="synthetic", title="Synthetic", main="Ross", sessions=sessions), questions


async def _throughput(script: DialScript, questions: list[Question], memory: str) -> tuple[float, int, int]:
    agent = create_agent(f"dialsim-{memory}", ScriptedModel(default="(A)"))
    sim = Simulator(script, questions, agent, config=SimConfig(fast=True, time_limit=6), warm_up=False)
    t0 = time.perf_counter()
    result = await sim.run()
    elapsed = time.perf_counter() - t0
    utterances = sum(len(s.lines) for s in script.dialogue)
    return elapsed, utterances, len(result.outcomes)


async def part2(tokens: int) -> None:
    print("Part 2: simulator throughput in fast mode (scripted model, 6 s limit measured, not slept)\n")
    with tempfile.TemporaryDirectory() as folder:
        store = CanonStore.open(folder)
        ingest(store, sample=True)
        questions, _ = await build_questions(store, SAMPLE_WORK)
        script = load_script(store, SAMPLE_WORK)
        for memory in ("recent", "bm25-utterance", "bm25-session", "bm25-summary", "oracle"):
            elapsed, utterances, asked = await _throughput(script, questions, memory)
            print(f"  sample dialogue, {memory:<15} {utterances} utterances, {asked} questions in {elapsed:.2f} s "
                  f"= {utterances / elapsed:,.0f} utterances/s (real time at 6 s each: {utterances * 6 / 60:.0f} min)")
    script, questions = synthetic_script(tokens)
    elapsed, utterances, asked = await _throughput(script, questions, "bm25-utterance")
    print(f"  synthetic {tokens:,} tokens, bm25-utterance: {utterances:,} utterances, {asked:,} questions in "
          f"{elapsed:.1f} s = {utterances / elapsed:,.0f} utterances/s (real time: {utterances * 6 / 3600:.0f} h)")


async def _first_question_probe(warm: bool) -> dict[str, float]:
    """In this (fresh) process: a BM25 utterance memory hears a 25-line session, then the first
    and second retrievals are timed; ``warm`` runs the agent's retrieval warm-up first."""
    from incanon.agents.base import CharacterAt, Turn
    from incanon.canon.position import Position

    agent = create_agent("dialsim-bm25-utterance", ScriptedModel(default="(A)"))
    t0 = time.perf_counter()
    if warm:
        agent.warm_retrieval()  # what Simulator.run does before the clock starts
    warm_s = time.perf_counter() - t0
    for index, (speaker, text) in enumerate(synthetic_lines(400, seed=3)[:25]):
        await agent.observe(Line("session-1", "1994-09-22", index, speaker, text))
    who = CharacterAt(work_title="Synthetic", character="Ross", position=Position.parse("1994-09-22"),
                      time_label="22 September 1994")
    times = []
    for question in ("Joey: who said w12 first?", "Joey: and w3?"):
        t0 = time.perf_counter()
        agent.retrieve(who, Turn(speaker="Joey", text=question))
        times.append(time.perf_counter() - t0)
    return {"warm_up_s": warm_s, "first_s": times[0], "second_s": times[1]}


def part3(rounds: int) -> None:
    print("\nPart 3: the first question's BM25 retrieval, each in a fresh process (median of "
          f"{rounds}, alternated): without and with the retrieval warm-up before the clock\n")
    found: dict[str, list[dict[str, float]]] = {"cold": [], "warm": []}
    for _ in range(rounds):
        for kind in ("cold", "warm"):
            out = subprocess.run([sys.executable, __file__, "--probe", kind], capture_output=True, text=True, check=True)
            found[kind].append(json.loads(out.stdout.strip().splitlines()[-1]))

    def med(kind: str, key: str) -> float:
        return statistics.median(r[key] for r in found[kind]) * 1000

    print(f"  no warm-up (before): first retrieval {med('cold', 'first_s'):.0f} ms, second {med('cold', 'second_s'):.1f} ms")
    print(f"  warm-up before the clock ({med('warm', 'warm_up_s'):.0f} ms, not timed against the limit): first "
          f"retrieval {med('warm', 'first_s'):.1f} ms, second {med('warm', 'second_s'):.1f} ms")
    print("  (in real time the retrieval also runs against the question's deadline: one still running "
          "then is a timeout and the simulation goes on)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=350_000)
    parser.add_argument("--repeats", type=int, default=3, help="rebuilds timed per checkpoint")
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--part", type=int, choices=(1, 2, 3), nargs="+", default=[1, 2, 3])
    parser.add_argument("--rounds", type=int, default=5, help="fresh processes per variant in part 3")
    parser.add_argument("--probe", choices=("cold", "warm"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        print(json.dumps(asyncio.run(_first_question_probe(args.probe == "warm"))))
        return
    if 1 in args.part:
        part1(args.tokens, args.repeats, args.queries)
    if 2 in args.part:
        asyncio.run(part2(args.tokens))
    if 3 in args.part:
        part3(args.rounds)


if __name__ == "__main__":
    main()
