"""Run the web app with uvicorn, on the loopback interface unless told otherwise."""

from __future__ import annotations

import errno
from dataclasses import replace
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from incanon.errors import ConfigError
from incanon.models.types import ChatModel
from incanon.serve.config import LOOPBACK, ServeConfig

#: Seconds a thread may hold the interpreter lock while another waits for it (Python's default
#: is 0.005).
SWITCH_INTERVAL_S = 0.001

REMOTE_WARNING = (
    "incanon serve has no login: anyone who can reach {host}:{port} can chat with your model "
    "(spending your API budget) and read every run of {runs}"
)


def is_loopback(host: str) -> bool:
    """True for 127.0.0.1, ::1 and localhost (and the rest of 127.0.0.0/8)."""
    return host in LOOPBACK or host.startswith("127.")


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: a free port) whose connections send
    without delay; a port in use or a host that does not exist is a ``ConfigError`` naming it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto named, not 0: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on sockets whose
    # proto is IPPROTO_TCP, and with it on, each reply waited ~40 ms for the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ConfigError(f"port {port} on {host} is in use: choose another with --port (0 picks a free one)") from None
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve(config: ServeConfig, *, host: str = "127.0.0.1", port: int = 8765, model: ChatModel | None = None,
          on_ready: Callable[[str], None] | None = None, log_level: str = "warning") -> int | None:
    """Serve the app until interrupted. ``on_ready`` gets the app's URL once it listens.
    Ctrl-C or SIGTERM stops it within seconds, saying one line (:mod:`incanon.serve.stopping`);
    returns the exit code that stop calls for (130, 143), None when it ended otherwise."""
    from incanon.serve.app import create_app
    from incanon.serve.home_lock import ServeLock, chat_folder
    from incanon.serve.stopping import StoppableServer, exit_code, uvicorn_config

    sock = bind(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound}/"
    folder = chat_folder(config.chats)
    lock = ServeLock(folder) if folder is not None else None
    if lock is not None:
        try:
            lock.acquire(url)  # before saying where it listens: a refused server never listened
        except BaseException:
            sock.close()
            raise
    server = StoppableServer(uvicorn_config(create_app(replace(config, host=host), model=model), log_level),
                             kept=str(folder) if folder is not None else None)
    if on_ready is not None:
        on_ready(url)
    # The event loop shares the interpreter with the chat and model threads: a shorter switch
    # interval lets it take the lock back sooner from one that computes (a session opening, a
    # method's prompt), so pages and short requests are not held up behind it.
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_S))
    try:
        server.run(sockets=[sock])
    finally:
        if lock is not None:
            lock.release()
    if server.signal is None:
        return None
    server.say_once(server.line(server.signal))
    return exit_code(server.signal)


class BackgroundServer:
    """The app served from a thread of this process, for tests and notebooks::

        with BackgroundServer(config, model=scripted) as url:
            httpx.get(url + "api/info")
    """

    def __init__(self, config: ServeConfig, *, host: str = "127.0.0.1", port: int = 0,
                 model: ChatModel | None = None, start_timeout: float = 30.0) -> None:
        self.config = config
        self.host = host
        self.port = port
        self.model = model
        self.start_timeout = start_timeout
        self.url = ""
        self._server: Any = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> str:
        import uvicorn

        from incanon.serve.app import create_app

        sock = bind(self.host, self.port)
        self.url = f"http://{self.host}:{sock.getsockname()[1]}/"
        self._server = uvicorn.Server(uvicorn.Config(create_app(replace(self.config, host=self.host), model=self.model), log_level="warning",
                                                     access_log=False, lifespan="on"))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True,
                                        name="incanon-serve")
        self._thread.start()
        deadline = time.monotonic() + self.start_timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the web app did not start on {self.url}")
            time.sleep(0.02)
        return self.url

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
