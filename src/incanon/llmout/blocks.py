"""Finding JSON in a model's reply: code fences, and every value that can be decoded from them
and from the text around them.

``fenced_blocks(text)`` gives the contents of code fences; ``json_values(text)`` every JSON value
that can be decoded (fenced blocks first, then the whole text, objects and arrays wherever they
start); ``json_objects`` the objects among them. ``lenient=True`` also reads what strict JSON
refuses but models write: trailing commas, curly quotes, single-quoted strings and Python
literals (``None``, ``True``). Nothing here repairs a reply cut at the token limit: the complete
values inside it are found (``nested=True``), and ``incanon.llmout.repair`` closes the rest.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

FENCE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)(?:```|$)", re.DOTALL)
"""A code fence with any language tag; an unclosed last fence runs to the end of the text."""
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def fenced_blocks(text: str) -> list[str]:
    """The contents of the reply's code fences (```json ... ```, ```` ``` ... ``` ````), in order;
    an unclosed last fence (a reply cut at the token limit) counts to the end of the text."""
    return [m.group(1) for m in FENCE.finditer(text)]


def loads_lenient(span: str) -> Any:
    """``span`` as JSON; else with trailing commas and curly quotes fixed; else as a Python
    literal (single quotes, ``None``, ``True``; ``null``/``true``/``false`` as JSON spells them).
    None when none of them reads it."""
    try:
        return json.loads(span)
    except (json.JSONDecodeError, RecursionError):
        pass
    fixed = _TRAILING_COMMA.sub(r"\1", span.replace("“", '"').replace("”", '"'))
    try:
        return json.loads(fixed)
    except (json.JSONDecodeError, RecursionError):
        pass
    python = re.sub(r"\bnull\b", "None", re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", fixed)))
    try:
        return ast.literal_eval(python)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None


def balanced_span(text: str, start: int) -> str | None:
    """The bracketed span that opens at ``text[start]`` (``{`` or ``[``), strings (double or
    single quoted) respected; None when it never closes or closes with the wrong bracket."""
    closer = "}" if text[start] == "{" else "]"
    depth, quote, escape = 0, "", False
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == quote:
                quote = ""
        elif ch == '"' or (ch == "'" and text[i - 1] in "{[,: "):
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return text[start:i + 1] if ch == closer else None
    return None


def json_values(text: str, *, starts: str = "{[", lenient: bool = False, nested: bool = False) -> list[Any]:
    """Every JSON value decodable from ``text``: fenced blocks first, then the whole text, each
    scanned for values opening with one of ``starts``.

    ``lenient``: a span strict JSON refuses is read by :func:`loads_lenient`. ``nested``: values
    inside one already found are listed too (after it); by default the scan goes on after it."""
    decoder = json.JSONDecoder()
    found: list[Any] = []
    for block in [*fenced_blocks(text), text]:
        position = 0
        while position < len(block):
            start = min((i for i in (block.find(c, position) for c in starts) if i >= 0), default=-1)
            if start < 0:
                break
            value: Any = None
            end = start + 1
            try:
                value, end = decoder.raw_decode(block, start)
            except (json.JSONDecodeError, RecursionError):
                span = balanced_span(block, start) if lenient else None
                value = loads_lenient(span) if span is not None else None
                if span is not None and isinstance(value, (dict, list)):
                    end = start + len(span)
                else:
                    value = None
            if value is None:
                position = start + 1
                continue
            found.append(value)
            position = start + 1 if nested else end
    return found


def json_objects(text: str, *, lenient: bool = False, nested: bool = False) -> list[dict[str, Any]]:
    """The JSON objects among :func:`json_values` of ``text`` (arrays and scalars left out)."""
    return [v for v in json_values(text, starts="{", lenient=lenient, nested=nested) if isinstance(v, dict)]
