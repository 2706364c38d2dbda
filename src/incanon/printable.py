"""User text made safe to show: control characters escaped, long text cut to an excerpt.

Names, titles, positions and anything else read from a user's file or request may hold terminal
control sequences (``ESC[31m`` recolours the terminal, ``ESC]52;...`` writes the clipboard, a
carriage return overwrites the line already shown) or a lone UTF-16 surrogate (which no UTF-8
stream can encode, so printing it raises). Everything incanon prints or sends back of such text
goes through :func:`escape_controls` (the consoles of :mod:`incanon.consoles` apply it to all
they print), and error messages quote user input only as an :func:`excerpt`.
"""

from __future__ import annotations

import re

#: Longest piece of user input an error message quotes (the rest is elided).
EXCERPT_CHARS = 80

# C0 controls (tab and newline apart: they are handled below), DEL and C1 controls, lone
# surrogates, and the bidirectional overrides and isolates that make text read in another
# order than it is stored ("Trojan Source").
_UNSAFE = "\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069"
_UNSAFE_INLINE = re.compile(f"[{_UNSAFE}\t\n]")
_UNSAFE_LAYOUT = re.compile(f"[{_UNSAFE}]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\x1b": "\\x1b"}


def _escape_one(match: re.Match[str]) -> str:
    char = match.group(0)
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def escape_controls(text: object, *, keep_newlines: bool = False) -> str:
    """``text`` as a string with every control character written as an escape (``\\x1b``,
    ``\\r``, ``\\u202e``), so it shows what it holds and cannot drive the terminal. With
    ``keep_newlines``, newlines and tabs stay (multi-line text whose lines are layout)."""
    value = str(text)
    pattern = _UNSAFE_LAYOUT if keep_newlines else _UNSAFE_INLINE
    if pattern.search(value) is None:  # the common case: nothing to copy
        return value
    return pattern.sub(_escape_one, value)


#: Controls JSON leaves raw (``json.dumps`` escapes C0 only): DEL, C1, bidi overrides and isolates.
_JSON_RAW = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def json_safe(document: str) -> str:
    """A JSON document with the control characters JSON leaves raw written as ``\\u`` escapes:
    the same data, valid JSON still (such characters occur only inside strings), harmless on a
    terminal."""
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group(0)):04x}", document)


def excerpt(text: object, limit: int = EXCERPT_CHARS) -> str:
    """A short, escaped excerpt of ``text`` for a message: at most ``limit`` characters of it
    (escapes included), ending with ``…`` and the full length when cut."""
    value = str(text)
    shown = escape_controls(value[: limit + 1])
    if len(value) <= limit and len(shown) <= limit:
        return shown
    return f"{shown[:limit]}… ({len(value):,} characters)"


def quoted(text: object, limit: int = EXCERPT_CHARS) -> str:
    """``text`` quoted for a message, as ``repr`` quotes it (control characters escaped once),
    cut to its first ``limit`` characters with the full length said: ``'1-999'… (4,303
    characters)``. Use it, not ``f"{excerpt(x)!r}"``, which escapes the escapes again."""
    value = str(text)
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}… ({len(value):,} characters)"


def _closing(text: str, start: int) -> int:
    """The index of the quote that closes the one at ``start``, or -1. An escaped quote (``\\'``)
    or an apostrophe inside a word (``don't``) closes nothing."""
    quote = text[start]
    end = text.find(quote, start + 1)
    while end > 0 and (_escaped(text, end) or _in_word(text, end)):
        end = text.find(quote, end + 1)
    return end


def _escaped(text: str, index: int) -> bool:
    """True when an odd number of backslashes precede ``text[index]``."""
    slashes = 0
    while index - slashes - 1 >= 0 and text[index - slashes - 1] == "\\":
        slashes += 1
    return slashes % 2 == 1


def _in_word(text: str, index: int) -> bool:
    """True when ``text[index]`` has a letter or digit on both sides (an apostrophe)."""
    return 0 < index < len(text) - 1 and text[index - 1].isalnum() and text[index + 1].isalnum()


def shorten_quotes(message: str, limit: int = EXCERPT_CHARS) -> str:
    """``message`` with every quoted piece (``'...'`` or ``"..."``, as ``repr`` and f-strings
    quote the input a message refuses) longer than ``limit`` cut to an :func:`excerpt`.

    A linear scan, not a regular expression: a backtracking pattern over a 100,000-character
    quote full of quote marks would take minutes."""
    out: list[str] = []
    copied = resume = 0  # copied: message[:copied] is in out; resume: where a quote may open
    for found in re.finditer(r"['\"]", message):
        start = found.start()
        if start < resume or _escaped(message, start) or (start and message[start - 1].isalnum()):
            continue  # inside a quote already, escaped, or ending a word (Wren's, characters')
        end = _closing(message, start)
        if end < 0:
            continue
        resume = end + 1
        if end - start - 1 > limit:
            out += [message[copied:start + 1], excerpt(message[start + 1:end], limit)]
            copied = end
    out.append(message[copied:])
    return "".join(out)


def safe_message(message: str, limit: int = 1000) -> str:
    """An error message fit to send back or print: control characters escaped, each quoted piece
    longer than :data:`EXCERPT_CHARS` cut to an excerpt, and the whole at most ``limit``
    characters, so an error never echoes a long or control-bearing input."""
    text = shorten_quotes(escape_controls(message))
    return text if len(text) <= limit else text[: limit - 1] + "…"
