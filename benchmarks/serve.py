"""Web app latency: the run browser on a large run, a server that never waits on itself during a
book's first embedding, and 200 parallel chats of the OpenAI-compatible endpoint.

Prints figures; not a test. Three parts (``--part``, all by default):

* ``runs``: writes one run of N samples (TimeChara-shaped: a data type, a question, an answer,
  three scores, two rationales, three calls) into a fresh run store, serves the app on 127.0.0.1
  from a thread, and times the run list, sample pages (cold and kept), a filter, a text search,
  one sample and the report (tables and drawn charts), cold and warm.
* ``first-chat``: ``incanon serve`` in its own process on a fresh home (the sample world, nothing
  embedded yet), its model a mock OpenAI-compatible server answering in 50 ms
  (``fast_openai_server.py``, another process). The first chat with ``in-canon`` (a retrieval
  method) starts; 3 s and 10 s later ``GET /v1/models``, ``GET /api/works`` and the page are
  sent and timed. Also counts the progress lines on the server's stderr.
* ``parallel``: the same server; 200 chats at once from one client (``zero-shot``, one model
  call each), with the default per-client limit and with a limit of 1,000: p50 / p95 latency,
  how many were refused (429), and the server's and the client's CPU time per chat (what the
  load of other processes does not change). Sent by an aiohttp client and by httpx's async
  client, alternated: the client shares the two cores with the server, and httpx's costs 7–14
  ms of CPU a request at 200 connections (several times the server's), which is most of the
  latency it sees.

    .venv/bin/python benchmarks/serve.py [--part runs|first-chat|parallel] [--samples 20000]
        [--client aiohttp|httpx|both] [--store DIR --character ID --methods zero-shot in-canon]
        [--before REV] [--busy 2]

``--before REV`` serves commit REV's source beside this tree's, their rounds alternated (before
and after from one run); ``--busy N`` runs N CPU-bound processes beside them.

A book of your own for the parallel part: build its store (for *The Time Machine*, the command
in ``canon_build_book.py``'s docstring, then ``incanon canon build pg35.txt --helper
scripted:helper.json --store DIR``), then ``--part parallel --store DIR --character
"the-time-machine/Weena@after scene 1-10-1" --methods zero-shot in-canon``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import aiohttp
import httpx

sys.path.insert(0, str(Path(__file__).parent))  # fast_openai_server.py, beside this script

from benchtools import busy_machine, commit_source  # noqa: E402
from fast_openai_server import serve_in_process  # noqa: E402

from incanon import __version__
from incanon.runs import ItemOutcome, RunConfig, RunItem, RunStore, run_items
from incanon.serve import BackgroundServer, ServeConfig

TYPES = ("future", "past-absence", "past-presence", "past-only")


async def _fill(path: Path, n: int) -> str:
    async def task(item: RunItem) -> ItemOutcome:
        i = item.input["i"]
        answer = f"I was at the harbour that night ({i})."
        calls = [{"step": step, "messages": [{"role": "user", "content": item.input["question"]}], "output": answer}
                 for step in ("temporal-expert", "spatial-expert", "answer")]
        return ItemOutcome(outputs={"answer": answer}, scores={"spatiotemporal": i % 3 == 0, "temporal": i % 2 == 0,
                                                                "personality": 1 + i % 7},
                           extra={"temporal_rationale": "It stays before the flood.", "personality_rationale": "Fits.",
                                  "calls": calls})

    items = (RunItem(id=f"{i:06d}", input={"i": i, "data_type": TYPES[i % 4],
                                          "question": f"Were you there when the bell rang, time {i}?"})
             for i in range(n))
    with RunStore(path) as store:
        result = await run_items(items, task, config=RunConfig(benchmark="timechara", task="latency benchmark",
                                                        methods=["zero-shot"], models={"agent": "scripted"}),
                                 store=store, concurrency=64, progress=False)
    return result.run_id


def _time(client: httpx.Client, url: str, repeat: int, **params) -> tuple[float, float, int]:
    """(first ms, median of the next ``repeat`` ms, bytes)."""
    start = time.perf_counter()
    response = client.get(url, params=params)
    response.raise_for_status()
    first = (time.perf_counter() - start) * 1000
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        client.get(url, params=params).raise_for_status()
        times.append((time.perf_counter() - start) * 1000)
    return first, statistics.median(times) if times else first, len(response.content)


def runs_part(samples: int, repeat: int) -> None:
    """The run browser on one run of ``samples`` samples."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        run_id = asyncio.run(_fill(root / "runs.sqlite", samples))
        print(f"wrote {samples} samples in {time.perf_counter() - start:.1f} s")
        config = ServeConfig(canon=root / "no-canon", runs=root / "runs.sqlite", cache=False)
        with BackgroundServer(config) as base, httpx.Client(base_url=base, timeout=600) as client:
            rows = [
                ("run list", "api/runs", {}),
                ("sample page (limit 50)", f"api/runs/{run_id}/samples", {"limit": 50}),
                ("filtered page (type=future)", f"api/runs/{run_id}/samples", {"type": "future", "limit": 50}),
                ("text search (q=time 1999)", f"api/runs/{run_id}/samples", {"q": "time 1999"}),
                ("last page (offset N-50)", f"api/runs/{run_id}/samples", {"offset": samples - 50, "limit": 50}),
                ("one sample", f"api/runs/{run_id}/sample", {"item": f"{samples // 2:06d}"}),
                ("report (tables + charts)", "api/report", {"run": run_id}),
            ]
            print(f"{'request':32} {'first ms':>10} {'median ms':>10} {'bytes':>10}")
            for name, url, params in rows:
                first, median, size = _time(client, url, repeat, **params)
                print(f"{name:32} {first:10.1f} {median:10.1f} {size:10d}")


# -- incanon serve in its own process ----------------------------------------------------------

#: A character of the sample world at a named point; ``/zero-shot`` makes one model call.
CHARACTER = "Wren Callow@end of book 1"


class ServeProcess:
    """``incanon serve`` on 127.0.0.1 (a free port) in a child process; its stderr lines are
    kept with the time they came, so progress lines can be counted and placed."""

    def __init__(self, home: Path, model_url: str, *extra: str, src: Path | None = None) -> None:
        env = {**os.environ, "INCANON_HOME": str(home), "OPENAI_API_KEY": "unused", "NO_COLOR": "1",
               "COLUMNS": "200"}
        env.pop("INCANON_CANON", None)
        if src is not None:  # another commit's source (``--before``) ahead of the installed one
            env["PYTHONPATH"] = str(src)
        command = [sys.executable, "-m", "incanon", "serve", "--port", "0",
                   "--model", f"openai:mock@{model_url}", *extra]
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        self.lines: list[tuple[float, str]] = []
        self.url = ""
        ready = threading.Event()

        def read() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                self.lines.append((time.perf_counter(), line.rstrip()))
                found = re.search(r"incanon serve: (http://\S+/)", line)
                if found:
                    self.url = found.group(1)
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        ready.wait(120)
        deadline = time.monotonic() + 60
        while self.url:  # the line is printed just before the server listens
            try:
                httpx.get(self.url + "api/info", timeout=5)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        if not self.url:
            self.stop()
            raise RuntimeError("incanon serve did not start:\n" + "\n".join(l for _, l in self.lines))

    def stop(self) -> None:
        """Stop the server (SIGTERM, then kill)."""
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@contextmanager
def serving(home: Path, model_url: str, *extra: str, src: Path | None = None) -> Iterator[ServeProcess]:
    """A :class:`ServeProcess` for the ``with`` block (``src``: serve another commit's source)."""
    server = ServeProcess(home, model_url, *extra, src=src)
    try:
        yield server
    finally:
        server.stop()


def _chat_body(model: str, text: str = "Who rang the flood bell?") -> dict[str, object]:
    return {"model": model, "messages": [{"role": "user", "content": text}], "max_tokens": 32}


def first_chat_part() -> None:
    """Row 1: ``GET /v1/models`` while the first chat with a retrieval method embeds the book."""
    with tempfile.TemporaryDirectory() as tmp, serve_in_process(0.05) as model_url, \
            serving(Path(tmp) / "home", model_url) as server:
        outcome: dict[str, float | int | str] = {}

        def chat() -> None:
            start = time.perf_counter()
            reply = httpx.post(server.url + "v1/chat/completions", json=_chat_body(CHARACTER), timeout=600)
            outcome["chat_s"] = time.perf_counter() - start
            outcome["chat_status"] = reply.status_code

        started = time.perf_counter()
        worker = threading.Thread(target=chat)
        worker.start()
        timed = []
        # A client made before the clock starts: making one (its TLS context) costs more than
        # the requests timed here.
        with httpx.Client(base_url=server.url, timeout=600) as probe:
            for at in (3.0, 10.0):
                time.sleep(max(0.0, started + at - time.perf_counter()))
                for name, path in (("GET /v1/models", "v1/models"), ("GET /api/works", "api/works"), ("GET /", "")):
                    start = time.perf_counter()
                    code = probe.get(path).status_code
                    timed.append((name, time.perf_counter() - start, code, start - started, worker.is_alive()))
            status = probe.get("api/status")
            worker.join()
            idle = {}
            for name, path in (("GET /v1/models", "v1/models"), ("GET /api/works", "api/works"), ("GET /", "")):
                times = []
                for _ in range(5):
                    start = time.perf_counter()
                    probe.get(path)
                    times.append(time.perf_counter() - start)
                idle[name] = statistics.median(times)
        progress = [line for at, line in server.lines if at >= started and "embedding" in line.lower()]
        print(f"first chat with in-canon on a fresh home ({CHARACTER}), mock model 50 ms:")
        for name, seconds, code, sent, waiting in timed:
            print(f"  {name:18} sent at {sent:4.1f} s: answered in {seconds * 1000:8.1f} ms (HTTP {code})"
                  + ("" if waiting else "  [the chat had already answered]"))
        print("  once the chat has answered (nothing else running), median of 5 on a kept connection: "
              + ", ".join(f"{name} {seconds * 1000:.1f} ms" for name, seconds in idle.items()))
        print(f"  the chat itself: {outcome.get('chat_s', float('nan')):.1f} s (HTTP {outcome.get('chat_status')})")
        print(f"  progress lines on stderr: {len(progress)}" + (f" (first: {progress[0].strip()!r})" if progress else ""))
        print(f"  GET /api/status: HTTP {status.status_code}" + (f" {status.text[:160]}" if status.is_success else ""))


async def _burst(url: str, model: str, n: int, client_kind: str) -> tuple[list[float], Counter[int]]:
    """``n`` chats sent at once by one client (``aiohttp`` or ``httpx``): each one's seconds and
    the status counts. One connection per chat, opened by a first chat before the clock."""
    if client_kind == "httpx":
        limits = httpx.Limits(max_connections=n + 8, max_keepalive_connections=n + 8)
        async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
            await client.post("v1/chat/completions", json=_chat_body(model, "Hello."))  # opens the session

            async def one_httpx(i: int) -> tuple[float, int]:
                start = time.perf_counter()
                reply = await client.post("v1/chat/completions", json=_chat_body(model, f"Hello, question {i}?"))
                return time.perf_counter() - start, reply.status_code

            results = await asyncio.gather(*(one_httpx(i) for i in range(n)))
    else:
        timeout = aiohttp.ClientTimeout(total=120)
        async with aiohttp.ClientSession(base_url=url, timeout=timeout,
                                         connector=aiohttp.TCPConnector(limit=0)) as session:
            async with session.post("v1/chat/completions", json=_chat_body(model, "Hello.")) as first:
                await first.read()  # opens the session

            async def one_aiohttp(i: int) -> tuple[float, int]:
                start = time.perf_counter()
                async with session.post("v1/chat/completions",
                                        json=_chat_body(model, f"Hello, question {i}?")) as reply:
                    await reply.read()
                    return time.perf_counter() - start, reply.status

            results = await asyncio.gather(*(one_aiohttp(i) for i in range(n)))
    return [s for s, code in results if code == 200], Counter(code for _, code in results)


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def parallel_part(n: int, rounds: int, clients: tuple[str, ...], store: Path | None = None,
                  character: str = CHARACTER, methods: tuple[str, ...] = ("zero-shot",),
                  limits: tuple[str, ...] = ("default", "1000"), before: str | None = None,
                  busy: int = 0) -> None:
    """Row 3: ``n`` parallel chats, mock model 50 ms, default and raised per-client limit, sent
    by each of ``clients``. The client shares the machine with the server, so its own CPU time
    is printed too: httpx's async client spends several times the server's CPU per request.

    ``store``: a canon store to serve instead of the sample world (a book you built), with
    ``character`` one of its ``/v1/models`` ids and ``methods`` the methods to chat with.
    ``before``: also serve commit ``before``'s source, its rounds alternated with this tree's, so
    both see the same load. ``busy``: that many CPU-bound processes run beside them."""
    where = f"the canon store {store}" if store else "the sample world"
    print(f"{n} parallel chats from one client ({character}, {where}), mock model 50 ms"
          + (f", {busy} CPU-bound processes beside" if busy else "") + ":")
    with tempfile.TemporaryDirectory() as tmp, serve_in_process(0.05) as model_url:
        sides: list[tuple[str, Path | None]] = [("now", None)]
        if before:
            sides.insert(0, (f"before ({before})", commit_source(before, Path(tmp) / "before")))
        for label in limits:
            extra = () if label == "default" else ("--client-concurrency", label)
            if store is not None:
                extra = (*extra, "--store", str(store))
            with ExitStack() as stack:
                servers = [(side, stack.enter_context(serving(Path(tmp) / f"home-{i}-{label}", model_url, "--no-cache",
                                                              *extra, src=src)))
                           for i, (side, src) in enumerate(sides)]
                stack.enter_context(busy_machine(busy))
                for method in methods:
                    model = f"{character}/{method}"
                    # Alternated: round 1 of each side and client, then round 2, so a change in
                    # the machine's load falls on all of them.
                    for round_ in range(rounds):
                        for side, server in servers:
                            for client_kind in clients:
                                _one_round(server, model, n, client_kind, f"{side:<8} limit {label:8} {method:10} "
                                           f"{client_kind:7} client, round {round_ + 1}")


def _one_round(server: ServeProcess, model: str, n: int, client_kind: str, title: str) -> None:
    before, client_before = _cpu_seconds(server.proc.pid), time.process_time()
    ok, codes = asyncio.run(_burst(server.url, model, n, client_kind))
    cpu_ms = (_cpu_seconds(server.proc.pid) - before) * 1000 / (n + 1)
    client_ms = (time.process_time() - client_before) * 1000 / (n + 1)
    shown = ", ".join(f"{code}: {count}" for code, count in sorted(codes.items()))
    print(f"  {title}: p50 {_quantile(ok, 0.5):5.2f} s, p95 {_quantile(ok, 0.95):5.2f} s over {len(ok)} "
          f"answered ({shown}); CPU a chat: server {cpu_ms:.1f} ms, client {client_ms:.1f} ms; "
          f"load {os.getloadavg()[0]:.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("all", "runs", "first-chat", "parallel"), default="all")
    parser.add_argument("--samples", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--parallel", type=int, default=200, help="chats sent at once in the parallel part")
    parser.add_argument("--rounds", type=int, default=2, help="bursts per limit and client in the parallel part")
    parser.add_argument("--client", choices=("aiohttp", "httpx", "both"), default="both",
                        help="the HTTP client that sends the parallel chats (both: alternated)")
    parser.add_argument("--store", type=Path, help="parallel part: serve this canon store (a book you built)")
    parser.add_argument("--character", default=CHARACTER,
                        help="parallel part: the /v1/models id to chat with (without the method)")
    parser.add_argument("--methods", nargs="+", default=["zero-shot"], help="parallel part: methods to chat with")
    parser.add_argument("--limits", nargs="+", default=["default", "1000"],
                        help="parallel part: per-client limits to serve with ('default' or a number)")
    parser.add_argument("--before", help="parallel part: also serve this commit's source, alternated with this tree")
    parser.add_argument("--busy", type=int, default=0,
                        help="parallel part: CPU-bound processes to run beside the servers")
    args = parser.parse_args()
    print(f"incanon {__version__}, Python {platform.python_version()}, {platform.machine()}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    if args.part in ("all", "first-chat"):
        first_chat_part()
    if args.part in ("all", "parallel"):
        parallel_part(args.parallel, args.rounds, ("aiohttp", "httpx") if args.client == "both" else (args.client,),
                      args.store, args.character, tuple(args.methods), tuple(args.limits), args.before, args.busy)
    if args.part in ("all", "runs"):
        runs_part(args.samples, args.repeat)


if __name__ == "__main__":
    main()
