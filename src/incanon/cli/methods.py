"""Checking ``--method`` names before anything runs (a dry run estimates only real methods)."""

from __future__ import annotations

from incanon.errors import ConfigError


def split_methods(text: str) -> list[str]:
    """``--method a,b`` as a list of names."""
    return [m.strip() for m in text.split(",") if m.strip()]


def check_methods(methods: list[str], option: str = "--method") -> None:
    """Unknown role-play method names fail here, naming the option and the known methods."""
    from incanon.agents.registry import agent_names

    if not methods:
        raise ConfigError(f"{option} names no method")
    known = agent_names()
    unknown = [m for m in methods if m not in known]
    if unknown:
        raise ConfigError(f"{option}: unknown role-play method {unknown[0]!r}; known methods: {', '.join(known)}")
