"""SHARP evaluation cost and throughput: calls and tokens per claim, claims per second.

Prints figures; not a test. The sample world's main character (Wren Callow) and her six partner
roles get the shipped sample's claims through the real product path
(``incanon.bench.sharp.evaluate``: role question → zero-shot agent → stance detector → run
store; in snowballing mode also the backbone's answer and its detection, once per claim):

1. a scripted model in-process (no latency): factual and snowballing mode;
2. ``openai:`` specs pointed at ``incanon.testing.FakeOpenAIServer`` on 127.0.0.1, which waits a
   fixed delay per request, at concurrency 1 and 8 (response cache off).

A "claim" is everything one claim costs: one item per partner role (+ one backbone item).

    .venv/bin/python benchmarks/sharp.py [--claims 40] [--delay 0.02] [--concurrency 1 8]
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import tempfile
import time
from pathlib import Path

from incanon import __version__
from incanon.bench.sharp import (
    SharpSetup, build_claims, evaluate, read_assertions, sample_assertions_path, select_cast)
from incanon.canon import CanonStore
from incanon.models import ScriptedModel, Usage, load_chat_model, metered
from incanon.runs import RunStore
from incanon.sample import sample_world
from incanon.testing import FakeOpenAIServer

ANSWER = "Of course I agree with you, my friend; you have always been right about such things."
VERDICT = '{"stance": "FAVOR", "reason": "The speaker agrees with the claim outright."}'
DETECTOR_RULES = [(r"Decide what stance", VERDICT)]


def header() -> None:
    print(f"{'models':<10} {'mode':<12} {'conc':>4} {'claims':>6} {'items':>5} {'seconds':>8} {'claims/s':>9} "
          f"{'calls/claim':>11} {'tokens/claim':>12}  {'per model (calls/claim, tokens/claim)'}")


def row(kind: str, mode: str, conc: int, n: int, items: int, took: float, by_model: dict[str, Usage]) -> None:
    total = sum(by_model.values(), Usage())
    parts = ", ".join(f"{name.split('@')[0].split(':')[-1]} {u.calls / n:.1f}/{u.total_tokens / n:.0f}"
                      for name, u in sorted(by_model.items()))
    print(f"{kind:<10} {mode:<12} {conc:>4} {n:>6} {items:>5} {took:>8.2f} {n / took:>9.1f} "
          f"{total.calls / n:>11.2f} {total.total_tokens / n:>12.0f}  {parts}")


async def one(store: CanonStore, cast, claims, folder: Path, setup: SharpSetup, kind: str, conc: int) -> None:
    with metered() as meter:
        t0 = time.perf_counter()
        (result,) = await evaluate(store, cast, claims, ["zero-shot"], setup)
        took = time.perf_counter() - t0
    assert result.failed == 0, setup.runs.summary(result.run_id).errors
    row(kind, setup.mode, conc, len(claims), result.ran, took, dict(meter.by_model))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--claims", type=int, default=40)
    parser.add_argument("--delay", type=float, default=0.02)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8])
    args = parser.parse_args()
    print(f"incanon {__version__}, Python {platform.python_version()}, {platform.machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        store = CanonStore.open(folder / "canon")
        store.import_world(sample_world())
        cast = select_cast(store, "lanterns")
        claims = build_claims(read_assertions(sample_assertions_path(), langs="en", min_weight=1.0),
                              n=args.claims, seed=0)
        print(f"{cast.main_character} at {cast.at}, {len(cast.partners)} partner roles, {len(claims)} claims, "
              f"zero-shot agent")
        header()
        for mode in ("factual", "snowballing"):
            agent = load_chat_model(ScriptedModel(default=ANSWER, name="agent"))
            detector = load_chat_model(ScriptedModel(DETECTOR_RULES, name="detector"))
            backbone = load_chat_model(ScriptedModel(default=ANSWER, name="backbone")) if mode == "snowballing" else None
            setup = SharpSetup(agent_model=agent, detector_model=detector, backbone_model=backbone, mode=mode,
                               models={"agent": "agent"}, runs=RunStore(folder / f"scripted-{mode}.sqlite"),
                               concurrency=8, progress=False, fresh=True)
            await one(store, cast, claims, folder, setup, "scripted", 8)
        peaks: list[str] = []
        for mode in ("factual", "snowballing"):
            for conc in args.concurrency:
                with FakeOpenAIServer(rules=DETECTOR_RULES, default=ANSWER, reply_delay=args.delay) as server:
                    url = server.base_url
                    spec = {k: f"openai:{k}@{url}" for k in ("agent", "detector", "backbone")}
                    setup = SharpSetup(
                        agent_model=load_chat_model(spec["agent"]), detector_model=load_chat_model(spec["detector"]),
                        backbone_model=load_chat_model(spec["backbone"]) if mode == "snowballing" else None,
                        mode=mode, models=spec, runs=RunStore(folder / f"fake-{mode}-{conc}.sqlite"),
                        concurrency=conc, progress=False, fresh=True)
                    await one(store, cast, claims, folder, setup, "fake-http", conc)
                    peaks.append(f"{mode}/{conc}: {server.max_in_flight}")
        print(f"(fake-http: {args.delay * 1000:.0f} ms per request; tokens are the server's whitespace counts; "
              f"most requests in flight at the server: {', '.join(peaks)})")


if __name__ == "__main__":
    asyncio.run(main())
