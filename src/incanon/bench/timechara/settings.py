"""Parsing ``--agent-param`` / ``--judge-param`` settings onto generation parameters."""

from __future__ import annotations

from typing import Iterable

from pydantic import ValidationError

from incanon.errors import ConfigError
from incanon.models.types import GenerationParams

_ALLOWED = ("temperature", "top_p", "max_tokens", "seed", "frequency_penalty", "presence_penalty")


def _value(text: str) -> float | int | None:
    text = text.strip()
    if text.lower() in ("none", "null"):
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise ConfigError(f"{text!r} is not a number") from None


def apply_params(base: GenerationParams, settings: Iterable[str], role: str) -> GenerationParams:
    """``base`` with ``NAME=VALUE`` settings applied (``temperature=0.7``, ``max_tokens=512``)."""
    update: dict[str, float | int | None] = {}
    for setting in settings:
        name, sep, raw = setting.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or name not in _ALLOWED:
            raise ConfigError(f"--{role}-param {setting!r}: expected NAME=VALUE with NAME one of {', '.join(_ALLOWED)}")
        try:
            update[name] = _value(raw)
        except ConfigError as exc:
            raise ConfigError(f"--{role}-param {setting!r}: {exc}") from None
    try:
        return GenerationParams(**{**base.model_dump(), **update})
    except ValidationError as exc:
        raise ConfigError(f"--{role}-param: {exc.errors()[0]['msg']}") from None
