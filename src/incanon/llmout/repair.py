"""Repairing the JSON of a model's reply: ``repair_json(text)`` returns the parsed value and the
list of fixes it needed, or raises ``JSONRepairError``. Fixes, in one pass over the text:

* the JSON is taken from a fenced block or from the first ``{``/``[`` on, prose around it dropped;
* ``//`` comments, trailing commas, Python ``None``/``True``/``False`` and raw newlines in strings;
* a double quote inside a string that does not end it (``"He said "stop", then left"``): a quote
  ends a string only when what follows can follow a string in JSON;
* truncation (the model hit its token limit): the text is cut back to the last complete value
  and every open string, array and object is closed. ``RepairResult.truncated`` says so, so the
  caller can treat the last item as unfinished.

What still cannot be read goes to a model repair turn (see ``curate.extract``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from incanon.llmout.blocks import FENCE as _FENCE

_LITERALS = {"None": "null", "True": "true", "False": "false", "null": "null", "true": "true", "false": "false",
             "NaN": "null", "Infinity": "null", "undefined": "null"}
_CLOSER = {"{": "}", "[": "]"}
# What may follow ``",`` when the quote really ended a string: the next key or array value.
_VALUE_START = re.compile(r"\s*(?:$|[\"{\[\]}]|-?\d|//|(?:true|false|null|None|True|False)\b)")


class JSONRepairError(ValueError):
    """The text holds no JSON value that local repair can recover."""


@dataclass
class RepairResult:
    value: Any
    fixes: list[str] = field(default_factory=list)
    truncated: bool = False


def _candidate(text: str) -> str:
    """The JSON part of a model's answer: a fenced block if there is one, else from the first brace."""
    fenced = [m.group(1) for m in _FENCE.finditer(text) if re.search(r"[\[{]", m.group(1))]
    body = fenced[0] if fenced else text
    starts = [i for i in (body.find("{"), body.find("[")) if i >= 0]
    if not starts:
        raise JSONRepairError("no JSON object or array in the text")
    return body[min(starts):]


def _next_nonspace(text: str, i: int) -> tuple[str, int]:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return (text[i], i) if i < len(text) else ("", i)


class _Scanner:
    """One pass that rewrites the text into valid JSON where it can, noting what it changed."""

    def __init__(self, text: str):
        self.text = text
        self.out: list[str] = []
        self.stack: list[str] = []
        self.expect_key: list[bool] = []  # per open object: is the next string a key?
        self.fixes: set[str] = set()
        self.safe: tuple[int, tuple[str, ...]] | None = None  # (len(out), stack) after a complete value
        self.done_at: int | None = None  # where the top-level value closed

    def mark_safe(self) -> None:
        self.safe = (len(self.out), tuple(self.stack))

    def string_ends(self, i: int) -> bool:
        nxt, j = _next_nonspace(self.text, i + 1)
        if nxt in ("", ":", "}", "]"):
            return True
        if nxt == ",":
            return _VALUE_START.match(self.text, j + 1) is not None
        return False

    def run(self) -> None:
        text, n, i = self.text, len(self.text), 0
        while i < n and self.done_at is None:
            c = text[i]
            if c == '"':
                i = self.string(i)
                continue
            if c in "{[":
                self.stack.append(c)
                if c == "{":
                    self.expect_key.append(True)
                self.out.append(c)
            elif c in "}]":
                if self.stack and _CLOSER[self.stack[-1]] == c:
                    if self.out and self.out[-1] == ",":
                        self.out.pop()
                        self.fixes.add("trailing comma")
                    if self.stack.pop() == "{":
                        self.expect_key.pop()
                    self.out.append(c)
                    self.mark_safe()
                    if not self.stack:
                        self.done_at = i + 1
                else:
                    self.fixes.add("stray bracket")
            elif c == ",":
                nxt, _ = _next_nonspace(text, i + 1)
                if nxt in ("}", "]"):
                    self.fixes.add("trailing comma")
                else:
                    self.mark_safe()
                    self.out.append(",")
                    if self.stack and self.stack[-1] == "{":
                        self.expect_key[-1] = True
            elif c == ":":
                self.out.append(":")
                if self.stack and self.stack[-1] == "{":
                    self.expect_key[-1] = False
            elif c == "/" and text.startswith("//", i):
                end = text.find("\n", i)
                i = n if end < 0 else end
                self.fixes.add("comment")
                continue
            elif c.isalpha():
                m = re.match(r"[A-Za-z_]+", text[i:])
                assert m is not None
                word = m.group()
                if word in _LITERALS:
                    if _LITERALS[word] != word:
                        self.fixes.add("python literal")
                    self.out.append(_LITERALS[word])
                else:
                    self.fixes.add("bare word")
                    self.out.append(json.dumps(word))
                i += len(word)
                continue
            elif c in " \t\r\n" or c in "-+.eE0123456789":
                self.out.append(c)
            else:
                self.fixes.add("stray character")
            i += 1

    def string(self, i: int) -> int:
        """Copy the string starting at the quote at ``i``; return the index after it."""
        text, n = self.text, len(self.text)
        buf = ['"']
        j = i + 1
        while j < n:
            c = text[j]
            if c == "\\":
                if j + 1 < n and text[j + 1] in '"\\/bfnrtu':
                    buf.append(text[j : j + 2])
                    j += 2
                else:
                    buf.append("\\\\")
                    self.fixes.add("bad escape")
                    j += 1
                continue
            if c == '"':
                if self.string_ends(j):
                    buf.append('"')
                    self.out.append("".join(buf))
                    is_key = bool(self.stack) and self.stack[-1] == "{" and self.expect_key[-1]
                    if not is_key:
                        self.mark_safe()
                    return j + 1
                buf.append('\\"')
                self.fixes.add("unescaped quote")
            elif c in "\n\r\t":
                buf.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[c])
                self.fixes.add("raw control character")
            else:
                buf.append(c)
            j += 1
        # The text ended inside this string: truncation.
        self.out.append("".join(buf))
        self.open_string = True
        return n

    open_string = False


def _close(scanner: _Scanner) -> str:
    """Cut back to the last complete value and close every open container."""
    if scanner.safe is None:
        raise JSONRepairError("the text ends before any complete value")
    cut, stack = scanner.safe
    body = "".join(scanner.out[:cut]).rstrip().rstrip(",")
    return body + "".join(_CLOSER[c] for c in reversed(stack))


def repair_json(text: str) -> RepairResult:
    """Parse ``text`` as JSON, repairing what a model typically gets wrong (see module doc)."""
    if not isinstance(text, str) or not text.strip():
        raise JSONRepairError("empty answer")
    try:
        return RepairResult(json.loads(text))
    except json.JSONDecodeError:
        pass
    body = _candidate(text)
    fixes: list[str] = [] if body.strip() == text.strip() else ["surrounding text"]
    try:
        value, end = json.JSONDecoder().raw_decode(body)
        return RepairResult(value, fixes)
    except json.JSONDecodeError:
        pass
    scanner = _Scanner(body)
    scanner.run()
    fixes += sorted(scanner.fixes)
    truncated = bool(scanner.stack) or scanner.open_string
    repaired = _close(scanner) if truncated else "".join(scanner.out)
    if truncated:
        fixes.append("truncated")
    try:
        return RepairResult(json.loads(repaired), fixes, truncated)
    except json.JSONDecodeError as exc:
        rescued = _json_repair_package(body)
        if rescued is not None:
            return RepairResult(rescued, [*fixes, "json-repair"], truncated)
        raise JSONRepairError(f"still not JSON after local repair: {exc.msg} at char {exc.pos}") from None


def _json_repair_package(body: str) -> Any:
    """The ``json-repair`` package's reading of ``body`` when it finds a non-empty object or array:
    on real replies of a small model it recovers replies the one-pass repair above cannot
    (``benchmarks/llmjson_repair.py``), so it is the fallback."""
    import json_repair

    try:
        value = json_repair.loads(body)
    except Exception:  # noqa: BLE001 - any failure of the fallback is "not recovered"
        return None
    return value if isinstance(value, (dict, list)) and value else None


def looks_truncated(text: str) -> bool:
    """True when the answer's JSON is left open (more ``{``/``[`` opened than closed)."""
    try:
        scanner = _Scanner(_candidate(text))
    except JSONRepairError:
        return False
    scanner.run()
    return bool(scanner.stack) or scanner.open_string
