"""TimeChara evaluation throughput and cost per method, against a local OpenAI-compatible server.

Prints figures; not a test. Items are built from the sample world (scripted helper, in-process),
then evaluated through the real product path (``incanon.bench.timechara.evaluate``: agent →
spatiotemporal, personality and hallucination-type judges → run store) with ``openai:`` specs
pointed at ``incanon.testing.FakeOpenAIServer`` on 127.0.0.1, which waits a fixed delay per
request so concurrency matters.

1. items/s at each concurrency (zero-shot, response cache off);
2. model calls and tokens per item for each of the eight methods, agent and judge apart
   (retrieval methods embed through the same fake server).

    .venv/bin/python benchmarks/timechara.py [--items 48] [--delay 0.05] [--concurrency 1 16] [--per-method 12]
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "bench" / "timechara"))

from timechara_helpers import helper_model  # noqa: E402  (the scripted helper of the tests)

from incanon import __version__  # noqa: E402
from incanon.bench.timechara import (  # noqa: E402
    METHOD_ORDER, BuildOptions, CharacterResolver, EvalSetup, build_items, evaluate, sample_items)
from incanon.canon import CanonStore  # noqa: E402
from incanon.models import load_chat_model, metered  # noqa: E402
from incanon.runs import RunStore  # noqa: E402
from incanon.sample import sample_world  # noqa: E402
from incanon.testing import FakeOpenAIServer  # noqa: E402

JUDGE_RULES = [
    (r"captures a character's personality", "The voice fits the character well.\nScore: 5"),
    (r"Classify the main error", "The answer reveals a later event.\nType: temporal"),
    (r"Future:", "The answer leaks what happens later.\nScore: 0"),
    (r"spatiotemporal label", "The answer stays within what the character knows.\nScore: 1"),
    (r"Work out where in the story", "The scene is told in book 2.\nPosition: 2-3\nRelative: past"),
    (r"physically present", "They were on the list.\nVerdict: present"),
]
AGENT_REPLY = "I cannot say I know much about that, and I would rather not guess."


async def make_items(folder: Path, n: int) -> tuple[CanonStore, list]:
    store = CanonStore.open(folder / "canon")
    store.import_world(sample_world(), replace=True)
    built = await build_items(store, "lanterns", helper_model(),
                              options=BuildOptions(characters=["Wren Callow", "Dace Morrow", "Sefa Quill"]))
    return store, sample_items(built.items, f"paper{n}", seed=0).items


def setup_for(url: str, runs: RunStore, store: CanonStore | None, concurrency: int) -> EvalSetup:
    agent, judge = f"openai:agent-model@{url}", f"openai:judge-model@{url}"
    return EvalSetup(
        agent_model=load_chat_model(agent), judge_model=load_chat_model(judge),
        models={"agent": agent, "judge": judge}, runs=runs, resolver=CharacterResolver(store, "lanterns"),
        dataset={"bench": "timechara"}, concurrency=concurrency, progress=False, fresh=True,
        embedder=f"openai:embed-model@{url}",
    )


async def throughput(items: list, delay: float, levels: list[int], folder: Path) -> None:
    print(f"\n1. zero-shot, {len(items)} items, {delay * 1000:.0f} ms per request, no response cache")
    print(f"{'concurrency':>11}  {'seconds':>8}  {'items/s':>8}  {'requests':>8}  {'max in flight':>13}")
    for level in levels:
        with FakeOpenAIServer(rules=JUDGE_RULES, default=AGENT_REPLY, reply_delay=delay) as server:
            runs = RunStore(folder / f"throughput-{level}.sqlite")
            t0 = time.perf_counter()
            (result,) = await evaluate(items, ["zero-shot"], setup_for(server.base_url, runs, None, level))
            took = time.perf_counter() - t0
            assert result.failed == 0, runs.summary(result.run_id).errors
            print(f"{level:>11}  {took:>8.2f}  {len(items) / took:>8.1f}  {len(server.chat_requests):>8}"
                  f"  {server.max_in_flight:>13}")
            runs.close()


def embeddings(server: FakeOpenAIServer) -> int:
    """Embedding requests the server has seen."""
    return sum(1 for r in server.requests if r.path.endswith("/embeddings"))


async def per_method(items: list, store: CanonStore, folder: Path) -> None:
    print(f"\n2. calls and tokens per item by method ({len(items)} items; agent | judge)")
    print(f"{'method':<30} {'agent calls':>11} {'agent tokens':>12} {'judge calls':>11} {'judge tokens':>12}"
          f" {'embeddings':>10} {'consistent':>10}")
    with FakeOpenAIServer(rules=JUDGE_RULES, default=AGENT_REPLY) as server:
        for method in METHOD_ORDER:
            runs = RunStore(folder / f"method-{method}.sqlite")
            before = embeddings(server)
            with metered() as meter:
                (result,) = await evaluate(items, [method], setup_for(server.base_url, runs, store, 8))
            assert result.failed == 0, runs.summary(result.run_id).errors
            usage = {("agent" if "agent-model" in name else "judge"): u for name, u in meter.by_model.items()}
            n = len(items)
            agent, judge = usage["agent"], usage["judge"]
            consistent = next(s for s in runs.summary(result.run_id).scores if s.name == "spatiotemporal")
            print(f"{method:<30} {agent.calls / n:>11.2f} {agent.total_tokens / n:>12.0f} {judge.calls / n:>11.2f}"
                  f" {judge.total_tokens / n:>12.0f} {(embeddings(server) - before) / n:>10.2f}"
                  f" {consistent.mean:>10.2f}")
            runs.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=48)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--per-method", type=int, default=12)
    args = parser.parse_args()
    print(f"incanon {__version__}, Python {platform.python_version()}, {platform.machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        store, items = await make_items(folder, max(args.items, args.per_method))
        await throughput(items[: args.items], args.delay, args.concurrency, folder)
        await per_method(sample_items(items, f"paper{args.per_method}", seed=1).items, store, folder)
        store.close()


if __name__ == "__main__":
    asyncio.run(main())
