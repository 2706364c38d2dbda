"""What CoSER curation spends: calls and tokens per chunk, and chunks per second.

Curates the sample world's three books with the scripted stand-in curator (``FakeCurator``),
so the figures measure the pipeline (chunking, parsing, locating, continuation, journaling,
assembly, canon import) and the call pattern, not a model. Optionally a share of extraction
answers is broken (cut off or unreadable) to show what repair-and-retry costs. Prints figures;
not a test.

    .venv/bin/python benchmarks/coser_curate.py [--max-tokens N] [--broken FRACTION] [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from incanon.bench.coser.curate import CurationConfig, curate_book, read_books
from incanon.bench.coser.curate.fake import FakeCurator, sample_aliases
from incanon.canon import CanonStore
from incanon.models import Message, load_chat_model
from incanon.sample import sample_paths


class Breaking(FakeCurator):
    """Breaks a share of extraction answers: half cut off, half unreadable until repaired."""

    def __init__(self, share: float, seed: int = 0):
        super().__init__(sample_aliases())
        self.share, self.rng = share, random.Random(seed)

    def __call__(self, messages: Sequence[Message]) -> str:
        answer = super().__call__(messages)
        if "=== Passage ===" in messages[-1].content and self.rng.random() < self.share:
            if self.rng.random() < 0.5:
                return answer[: len(answer) * 2 // 3]
            return answer.replace('"summary": ', '"summary" ', 1)
        return answer


async def run(max_tokens: int, broken: float) -> dict:
    fake = Breaking(broken)
    model = load_chat_model(fake.model(), retry=None)
    books = read_books(list(sample_paths().books))
    config = CurationConfig(max_tokens=max_tokens)
    with tempfile.TemporaryDirectory() as tmp:
        store = CanonStore.open(Path(tmp) / "canon")
        start = time.perf_counter()
        reports = [await curate_book(b, model, tmp, config=config, store=store) for b in books]
        elapsed = time.perf_counter() - start
        resume_start = time.perf_counter()
        for b in books:
            await curate_book(b, model, tmp, config=config)
        resume = time.perf_counter() - resume_start
        store.close()
    chunks = [c for r in reports for c in r.chunks]
    return {"reports": reports, "chunks": chunks, "elapsed": elapsed, "resume": resume, "kinds": fake.kinds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-tokens", type=int, default=1200, help="chunk budget (default 1200: ~5 chunks a book)")
    parser.add_argument("--broken", type=float, default=0.3, help="share of extraction answers broken (default 0.3)")
    parser.add_argument("--repeat", type=int, default=3, help="runs to time (default 3)")
    args = parser.parse_args()

    runs = [asyncio.run(run(args.max_tokens, args.broken)) for _ in range(args.repeat)]
    last = runs[-1]
    print(f"CoSER curation, scripted curator: 3 sample books, chunk budget {args.max_tokens}, "
          f"{args.broken:.0%} of extraction answers broken\n")
    print("book                 chunk  tokens  status  calls  attempts  repairs  prompt_tok  completion_tok  plots")
    for report in last["reports"]:
        for c in report.chunks:
            s = c.stats
            print(f"{report.title[:20]:<20} {c.index:>5}  {c.tokens:>6}  {c.status:<6}  {s['calls']:>5}  "
                  f"{s['attempts']:>8}  {s['repairs']:>7}  {s['prompt_tokens']:>10}  {s['completion_tokens']:>14}  {c.plots:>5}")
    chunks = last["chunks"]
    calls = [c.stats["calls"] for c in chunks]
    tokens = [c.stats["prompt_tokens"] + c.stats["completion_tokens"] for c in chunks]
    print(f"\nextraction per chunk: {statistics.mean(calls):.2f} calls, {statistics.mean(tokens):.0f} tokens "
          f"(prompt + completion, words×1 as the scripted backend counts)")
    total = {k: sum(r.stats.dump()[k] for r in last["reports"]) for k in ("calls", "prompt_tokens", "completion_tokens")}
    kinds = {k: last["kinds"].count(k) for k in ("extract", "repair", "refine", "names", "profile")}
    print(f"whole curation: {total['calls']} calls ({json.dumps(kinds)}), "
          f"{total['prompt_tokens'] + total['completion_tokens']} tokens")
    rates = [len(r["chunks"]) / r["elapsed"] for r in runs]
    print(f"throughput: {statistics.median(rates):.1f} chunks/s end to end (median of {len(runs)} runs; "
          f"{len(chunks)} chunks, {sum(r.plots for r in last['reports'])} plots, "
          f"{sum(r.conversations for r in last['reports'])} conversations)")
    print(f"resume of a finished curation: {statistics.median(r['resume'] for r in runs) * 1000:.0f} ms for 3 books, "
          "0 calls")


if __name__ == "__main__":
    main()
