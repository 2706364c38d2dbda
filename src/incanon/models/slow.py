"""``slow:RULES.json``: a scripted model that takes its time, to try DialSim's time limit offline.

The rules file is the scripted backend's (``{"rules": [{"match", "response"}], "default"}``)
with delays added: ``"seconds"`` on a rule (that reply takes so long) and at the top level (every
other reply). ``slow:RULES.json?seconds=S`` sets the top-level delay from the spec instead. The
model really waits (``asyncio.sleep``), so the simulator's clock sees real latency, in real time
and in ``--fast`` mode alike; a summary call is as slow as its rule says, which shows a session
summary dropped for coming too late.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from pathlib import Path

from incanon.errors import ConfigError
from incanon.models.scripted import ScriptedModel
from incanon.models.spec import ModelSpec
from incanon.models.types import Completion, GenerationParams, Message
from incanon.reading import parse_json, read_text


class SlowScriptedModel:
    """A ``ScriptedModel`` whose replies take ``seconds`` (per rule, else the default)."""

    def __init__(self, inner: ScriptedModel, delays: list[tuple[re.Pattern[str], float]], default: float) -> None:
        self.inner, self.delays, self.default = inner, delays, default

    @property
    def name(self) -> str:
        return self.inner.name.replace("scripted:", "slow:", 1)

    @property
    def identity(self) -> str:
        return self.inner.identity.replace("scripted:", "slow:", 1)

    def delay(self, messages: Sequence[Message]) -> float:
        last = messages[-1].content if messages else ""
        return next((seconds for pattern, seconds in self.delays if pattern.search(last)), self.default)

    async def generate(self, messages: Sequence[Message], params: GenerationParams | None = None) -> Completion:
        """Wait, then reply by script."""
        await asyncio.sleep(self.delay(messages))
        return await self.inner.generate(messages, params)

    @classmethod
    def from_file(cls, path: Path, seconds: float | None = None) -> "SlowScriptedModel":
        inner = ScriptedModel.from_file(path)
        data = parse_json(read_text(path, "scripted model file"), str(path))
        rules = data if isinstance(data, list) else data.get("rules", [])
        delays = []
        for i, rule in enumerate(rules):
            if isinstance(rule, dict) and "seconds" in rule:
                delays.append((re.compile(rule["match"]), _seconds(rule["seconds"], path, f"rule {i}")))
        default = seconds if seconds is not None else (
            _seconds(data.get("seconds", 0.0), path, "seconds") if isinstance(data, dict) else 0.0)
        return cls(inner, delays, default)


def _seconds(value: object, path: Path, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ConfigError(f"{path}: {where}: 'seconds' must be a number of seconds (0 or more)")
    return float(value)


def build(spec: ModelSpec) -> SlowScriptedModel:
    """A scripted model whose replies take time (DialSim time-limit demos)."""
    target = spec.target or ""
    if not target.endswith(".json"):
        raise ConfigError(f"bad chat model spec {spec.text!r}: slow:PATH must name a .json rules file")
    return SlowScriptedModel.from_file(Path(target), spec.option("seconds"))
