"""A scripted chat model for tests and offline demos: answers by regex rule, queue or default."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence, Union

from incanon.errors import ConfigError, ModelError
from incanon.models.types import Completion, GenerationParams, Message

Responder = Union[str, Callable[[Sequence[Message]], str]]
"""A fixed reply, or a function of the messages that returns one."""
QueueItem = Union[str, Callable[[Sequence[Message]], str], BaseException]
"""A queued reply; an exception instance is raised instead (to script failures)."""


@dataclass(frozen=True)
class ScriptedCall:
    """One call the scripted model received."""

    messages: tuple[Message, ...]
    params: GenerationParams


def count_tokens(text: str) -> int:
    """Approximate tokens: whitespace-separated words (good enough for accounting tests)."""
    return len(text.split())


class ScriptedModel:
    """Replies from a script instead of a model.

    Order of precedence per call: the ``queue`` (first in, first out) while it has items, then
    the first rule whose regex is found (``re.search``) in the LAST message's content, then
    ``default``. With none of them a ``ModelError`` says so. Every call is kept in ``calls``.
    """

    def __init__(
        self,
        rules: Iterable[tuple[str | re.Pattern[str], Responder]] = (),
        *,
        queue: Iterable[QueueItem] = (),
        default: Responder | None = None,
        name: str = "scripted",
        identity: str | None = None,
    ):
        self._name = name
        self._identity = identity
        self.rules: list[tuple[re.Pattern[str], Responder]] = [
            (re.compile(pattern) if isinstance(pattern, str) else pattern, reply)
            for pattern, reply in rules
        ]
        self.queue: list[QueueItem] = list(queue)
        self.default = default
        self.calls: list[ScriptedCall] = []
        self.endpoint = f"scripted:{id(self)}"
        """Concurrency-limit key: each scripted model is its own endpoint."""

    @property
    def name(self) -> str:
        """The model name given at construction (part of the cache key)."""
        return self._name

    @property
    def identity(self) -> str:
        """The cache key's model part: the rules file's content hash (from a file), else the name
        and a hash of the rules, so two scripts never share cached replies."""
        if self._identity is None:
            from incanon.models.identity import content_hash

            def describe(reply: object) -> str:
                return reply if isinstance(reply, str) else f"<{getattr(reply, '__qualname__', type(reply).__name__)}>"

            doc = [[pattern.pattern, describe(reply)] for pattern, reply in self.rules]
            doc.append(["<default>", "" if self.default is None else describe(self.default)])
            self._identity = f"{self._name}#{content_hash(repr(doc))}"
        return self._identity

    def __repr__(self) -> str:
        return f"ScriptedModel(name={self._name!r}, rules={len(self.rules)}, queued={len(self.queue)})"

    @classmethod
    def from_file(cls, path: str | Path) -> "ScriptedModel":
        """Load ``[{"match": regex, "response": text}, ...]`` or ``{"rules": [...], "default": text}``."""
        from incanon.models.identity import content_hash
        from incanon.reading import parse_json, read_text

        path = Path(path)
        if not path.exists():
            raise ConfigError(f"scripted model file {path} does not exist")
        text = read_text(path, "scripted model file")
        data = parse_json(text, str(path))
        if isinstance(data, list):
            data = {"rules": data}
        if not isinstance(data, dict) or not isinstance(data.get("rules", []), list):
            raise ConfigError(f"{path}: expected a list of rules or an object with 'rules'")
        rules = []
        for i, rule in enumerate(data.get("rules", [])):
            if not isinstance(rule, dict) or not isinstance(rule.get("match"), str) or not isinstance(
                rule.get("response"), str
            ):
                raise ConfigError(f"{path}: rule {i} needs string fields 'match' and 'response'")
            try:
                rules.append((re.compile(rule["match"]), rule["response"]))
            except re.error as exc:
                raise ConfigError(f"{path}: rule {i} has a bad regex {rule['match']!r}: {exc}") from None
        default = data.get("default")
        if default is not None and not isinstance(default, str):
            raise ConfigError(f"{path}: 'default' must be a string")
        return cls(rules, default=default, name=f"scripted:{path.stem}",
                   identity=f"scripted:{path.stem}#{content_hash(text)}")

    def _reply(self, messages: Sequence[Message]) -> str:
        if self.queue:
            item = self.queue.pop(0)
            if isinstance(item, BaseException):
                raise item
            return item(messages) if callable(item) else item
        last = messages[-1].content if messages else ""
        for pattern, reply in self.rules:
            if pattern.search(last):
                return reply(messages) if callable(reply) else reply
        if self.default is not None:
            return self.default(messages) if callable(self.default) else self.default
        patterns = ", ".join(repr(p.pattern) for p, _ in self.rules) or "none"
        raise ModelError(
            f"{self._name}: no rule matches the last message {last[:80]!r} "
            f"(rules: {patterns}) and there is no default reply"
        )

    async def generate(
        self, messages: Sequence[Message], params: GenerationParams | None = None
    ) -> Completion:
        """Reply by script and record the call."""
        params = params or GenerationParams()
        self.calls.append(ScriptedCall(tuple(messages), params))
        text = self._reply(messages)
        prompt = sum(count_tokens(m.content) for m in messages)
        return Completion(
            text=text,
            model=self._name,
            prompt_tokens=prompt,
            completion_tokens=count_tokens(text),
            finish_reason="stop",
        )
