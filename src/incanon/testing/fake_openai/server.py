"""The fake OpenAI-compatible server: a stdlib ``ThreadingHTTPServer`` in a daemon thread."""

from __future__ import annotations

import base64
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterable, Sequence

from incanon.testing.fake_openai.behaviors import (
    Behavior,
    Disconnect,
    Hang,
    HTTPError,
    LoggedRequest,
    Malformed,
    Reply,
    SlowBody,
    fake_vector,
    key_fingerprint,
    tokens,
)

# -- the server -----------------------------------------------------------------------------


class FakeOpenAIServer:
    """An OpenAI-compatible server in a background thread; use as a context manager."""

    def __init__(
        self,
        *,
        rules: Iterable[tuple[str, str]] = (),
        default: str | Callable[[LoggedRequest], str] | None = None,
        handler: Callable[[LoggedRequest], Behavior | None] | None = None,
        reply_delay: float = 0.0,
        embedding_dim: int = 16,
        models: Sequence[str] = ("fake-model",),
        api_key: str | None = None,
    ):
        """``default``: reply when no rule matches (None: ``echo: <last message>``).
        ``reply_delay``: seconds every normal reply waits (to make concurrency measurable).
        ``api_key``: when set, requests without ``Bearer <api_key>`` get 401."""
        self.rules = [(re.compile(p), text) for p, text in rules]
        self.default = default
        self.handler = handler
        self.reply_delay = reply_delay
        self.embedding_dim = embedding_dim
        self.models = list(models)
        self._key_fp = key_fingerprint(api_key) if api_key else None
        self._queue: list[tuple[str | None, Behavior]] = []
        self._log: list[LoggedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.in_flight = 0
        self.max_in_flight = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle
    def start(self) -> "FakeOpenAIServer":
        """Bind a free port on 127.0.0.1 and serve in a daemon thread."""
        server = self

        class _Server(ThreadingHTTPServer):
            daemon_threads = True
            block_on_close = False  # hanging handlers must not hold up stop()
            request_queue_size = 128  # the default backlog of 5 drops bursts of connections

        class _Handler(_RequestHandler):
            fake = server

        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; hanging and slow replies end at once."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> "FakeOpenAIServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port."""
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``: what an OpenAI client takes as base URL."""
        return f"http://127.0.0.1:{self.port}/v1"

    # scripting
    def enqueue(self, *behaviors: Behavior, path: str | None = None) -> None:
        """Behaviours for the next requests, in order; ``path`` (e.g. ``/v1/embeddings``) limits
        them to requests of that path (default: chat completions)."""
        with self._lock:
            self._queue.extend((path or "/v1/chat/completions", b) for b in behaviors)

    def _next_behavior(self, request: LoggedRequest) -> Behavior:
        with self._lock:
            for i, (path, behavior) in enumerate(self._queue):
                if path == request.path:
                    del self._queue[i]
                    return behavior
        if self.handler is not None:
            chosen = self.handler(request)
            if chosen is not None:
                return chosen
        return Reply(delay=self.reply_delay)

    def reply_text(self, request: LoggedRequest) -> str:
        """The normal reply to a chat request: first matching rule, else default, else echo."""
        last = request.last_message
        for pattern, text in self.rules:
            if pattern.search(last):
                return text
        if callable(self.default):
            return self.default(request)
        return self.default if self.default is not None else f"echo: {last}"

    # log
    @property
    def requests(self) -> list[LoggedRequest]:
        """Every request received so far (a copy)."""
        with self._lock:
            return list(self._log)

    @property
    def chat_requests(self) -> list[LoggedRequest]:
        """Requests to ``/v1/chat/completions``."""
        return [r for r in self.requests if r.path == "/v1/chat/completions"]

    def reset(self) -> None:
        """Forget the log, the queue and the in-flight maximum."""
        with self._lock:
            self._log.clear()
            self._queue.clear()
            self.max_in_flight = self.in_flight

    def log_text(self) -> str:
        """The whole log as JSON text (to assert what it does and does not contain)."""
        return json.dumps([r.__dict__ for r in self.requests], default=str)

    def _enter(self, request: LoggedRequest) -> None:
        with self._lock:
            self._log.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _authorized(self, request: LoggedRequest) -> bool:
        return self._key_fp is None or request.headers.get("authorization") == self._key_fp

    # bodies
    def chat_body(self, request: LoggedRequest, text: str, finish_reason: str = "stop") -> dict:
        """A chat.completion object replying ``text``."""
        messages = (request.body or {}).get("messages") or []
        prompt = sum(tokens(str(m.get("content", ""))) for m in messages if isinstance(m, dict))
        return {
            "id": f"chatcmpl-fake-{len(self._log)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": (request.body or {}).get("model", self.models[0]),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": finish_reason, "logprobs": None}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": tokens(text),
                      "total_tokens": prompt + tokens(text)},
        }

    def embeddings_body(self, request: LoggedRequest) -> dict:
        """An embeddings list object (``float`` or ``base64`` as the request asks)."""
        body = request.body or {}
        inputs = body.get("input", [])
        inputs = [inputs] if isinstance(inputs, str) else list(inputs)
        b64 = body.get("encoding_format") == "base64"
        data = []
        for i, text in enumerate(inputs):
            v = fake_vector(str(text), self.embedding_dim)
            data.append({"object": "embedding", "index": i,
                         "embedding": base64.b64encode(v.tobytes()).decode() if b64 else v.tolist()})
        count = sum(tokens(str(t)) for t in inputs)
        return {"object": "list", "data": data, "model": body.get("model", "fake-embed"),
                "usage": {"prompt_tokens": count, "total_tokens": count}}


class _RequestHandler(BaseHTTPRequestHandler):
    fake: FakeOpenAIServer
    protocol_version = "HTTP/1.1"  # keep-alive, as clients pool connections
    # Headers and body leave in one write: separate small writes meet Nagle's algorithm and
    # the client's delayed ACK, adding ~40 ms to every reply.
    wbufsize = 1 << 16
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # the request log is the record; stderr stays quiet

    def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        # Out of flight before the reply leaves: a client that receives it may send its next
        # request at once, and that one must not be counted beside this one.
        self._leave_once()
        self.wfile.write(payload)
        self.wfile.flush()

    def _leave_once(self) -> None:
        if not getattr(self, "_left", True):
            self._left = True
            self.fake._leave()

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        kind = "rate_limit_error" if status == 429 else "invalid_request_error" if status < 500 else "server_error"
        body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
        self._send(status, json.dumps(body).encode(), headers)

    def _record(self) -> LoggedRequest:
        headers = {k.lower(): v for k, v in self.headers.items()}
        auth = headers.get("authorization")
        if auth is not None:
            headers["authorization"] = key_fingerprint(auth.removeprefix("Bearer ").strip())
        length = int(headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        return LoggedRequest(self.command, self.path.split("?")[0], headers, body)

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self._handle()

    def do_POST(self) -> None:  # noqa: N802
        self._handle()

    def _handle(self) -> None:
        fake = self.fake
        request = self._record()
        fake._enter(request)
        self._left = False
        try:
            self._serve(request)
        except (BrokenPipeError, ConnectionResetError):
            request.behavior += " (client gone)"  # the client gave up (timeout): expected
        except Exception as exc:  # a bug in a user handler: answer 500, keep serving
            request.status, request.behavior = 500, f"handler error: {exc!r}"
            self.close_connection = True
            try:
                self._error(500, f"fake server handler error: {exc!r}")
            except OSError:
                pass
        finally:
            request.finished = time.monotonic()
            self._leave_once()

    def _serve(self, request: LoggedRequest) -> None:
        fake = self.fake
        known = {"/v1/chat/completions": "POST", "/v1/embeddings": "POST", "/v1/models": "GET"}
        if known.get(request.path) != request.method:
            request.status, request.behavior = 404, "not found"
            return self._error(404, f"no route {request.method} {request.path}")
        if not fake._authorized(request):
            request.status, request.behavior = 401, "unauthorized"
            return self._error(401, "Incorrect API key provided.")
        if request.path == "/v1/models":
            request.status, request.behavior = 200, "models"
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "incanon"} for m in fake.models]
            return self._send(200, json.dumps({"object": "list", "data": data}).encode())
        if request.body is None:
            request.status, request.behavior = 400, "bad json"
            return self._error(400, "request body is not JSON")
        behavior = fake._next_behavior(request)
        request.behavior = type(behavior).__name__
        if isinstance(behavior, Disconnect):
            request.status = 0
            self.close_connection = True
            return
        if isinstance(behavior, HTTPError):
            request.status = behavior.status
            headers = {"Retry-After": behavior.retry_after} if behavior.retry_after is not None else {}
            return self._error(behavior.status, behavior.message, headers)
        if isinstance(behavior, Malformed):
            request.status = 200
            return self._send(200, behavior.body.encode())
        if isinstance(behavior, Hang):
            if fake._stopping.wait(behavior.seconds):
                self.close_connection = True
                return
        elif isinstance(behavior, Reply) and behavior.delay > 0:
            fake._stopping.wait(behavior.delay)
        text = getattr(behavior, "text", None)
        if request.path == "/v1/embeddings":
            payload = fake.embeddings_body(request)
        else:
            reason = behavior.finish_reason if isinstance(behavior, Reply) else "stop"
            payload = fake.chat_body(request, text if text is not None else fake.reply_text(request), reason)
        data = json.dumps(payload).encode()
        request.status = 200
        if not isinstance(behavior, SlowBody):
            return self._send(200, data)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.flush()
        step = max(1, -(-len(data) // behavior.pieces))
        for start in range(0, len(data), step):
            if start and fake._stopping.wait(behavior.interval):
                return
            if start + step >= len(data):
                self._leave_once()  # the last piece: as in _send
            self.wfile.write(data[start : start + step])
            self.wfile.flush()
