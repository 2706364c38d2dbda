"""``--option KEY=VALUE`` for role-play methods: options every method of a chat receives
(``k=8``, ``max_rounds=2``, ``witnessed_only=true``)."""

from __future__ import annotations

import re
from typing import Any, Iterable

from incanon.errors import ConfigError, InputError
from incanon.reading import parse_json

OPTION_HELP = ("Method option KEY=VALUE, repeatable (e.g. k=8, max_rounds=2). Values are read as JSON "
               "when they parse (numbers, true/false, lists), else as text.")
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse_method_options(pairs: Iterable[str]) -> dict[str, Any]:
    """``["k=8", "style=terse"]`` → ``{"k": 8, "style": "terse"}``; a malformed pair is a
    ``ConfigError`` naming it and the expected form."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip()
        if not sep or not _KEY.match(key):
            raise ConfigError(f"--option {pair!r}: expected KEY=VALUE with KEY a Python name (e.g. k=8)")
        try:
            value: Any = parse_json(raw, f"--option {key}")
        except InputError:
            value = raw  # not JSON: the text itself
        options[key] = value
    return options
