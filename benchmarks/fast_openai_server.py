"""A minimal OpenAI-compatible chat server for throughput benchmarks, run in its own process.

The test suite's ``FakeOpenAIServer`` is a thread-per-connection stdlib server living in the
client's own process: at tens of requests in flight it shares the client's GIL and costs
milliseconds of CPU per request, so a benchmark on it measures the server as much as the
client. This one is a single asyncio event loop with keep-alive HTTP/1.1, a fixed reply after
``--delay`` seconds (a sleep, no CPU) and a canned JSON body, in a separate process:

    python benchmarks/fast_openai_server.py --delay 0.05 --port 0   # prints "PORT <n>"

:func:`serve_in_process` starts it for a benchmark and stops it after. Only what the benchmark
needs is implemented (``POST .../chat/completions``, ``Content-Length`` bodies).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

_BODY = json.dumps({
    "id": "chatcmpl-bench", "object": "chat.completion", "created": 0, "model": "fake-model",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "I would not know, good sir."},
                 "finish_reason": "stop", "logprobs": None}],
    "usage": {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19},
}).encode()
_HEAD = (b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: keep-alive\r\n"
         b"content-length: " + str(len(_BODY)).encode() + b"\r\n\r\n")


async def _handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            if length:
                await reader.readexactly(length)
            if delay:
                await asyncio.sleep(delay)
            writer.write(_HEAD + _BODY)
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def _serve(port: int, delay: float) -> None:
    server = await asyncio.start_server(lambda r, w: _handle(r, w, delay), "127.0.0.1", port, backlog=1024)
    print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


@contextmanager
def serve_in_process(delay: float) -> Iterator[str]:
    """Run the server in a child process for the ``with`` block; yields its base URL."""
    proc = subprocess.Popen([sys.executable, __file__, "--delay", str(delay)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.startswith("PORT "):
            raise RuntimeError(f"benchmark server did not start: {line!r}")
        yield f"http://127.0.0.1:{int(line.split()[1])}/v1"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.05, help="seconds before each reply")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    try:
        asyncio.run(_serve(args.port, args.delay))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
