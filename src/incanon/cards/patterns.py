"""A card's regular-expression keys, run with a time limit.

A lorebook key is a pattern written by whoever made the card: ``/(a+)+$/`` or ``(x+x+)+y`` with
``use_regex`` backtracks without end on a 40-character line, and Python's ``re`` neither stops
nor lets other threads run meanwhile (66 s of CPU, the whole server stalled). So card patterns
run on the ``regex`` package, which is compatible with ``re`` (its V0 mode) and takes a
``timeout=``; ``concurrent=True`` releases the interpreter lock while it matches, so the event
loop and other chats go on. A pattern that runs out of time does not fire, is noted in the log
once and never run again in this process.
"""

from __future__ import annotations

import logging
import threading
from functools import lru_cache

import regex

log = logging.getLogger(__name__)

#: Seconds one key may take on one text. Honest keys (names, ``\bcaptain\b``) take microseconds.
KEY_TIMEOUT_S = 0.05

_FLAGS = {"i": regex.IGNORECASE, "m": regex.MULTILINE, "s": regex.DOTALL, "x": regex.VERBOSE}
_runaway: set[str] = set()
_runaway_lock = threading.Lock()


def flags_of(letters: str) -> int:
    """``regex`` flags of a ``/…/flags`` key's letters (unknown letters are ignored, as front ends do)."""
    flags = 0
    for letter in letters:
        flags |= _FLAGS.get(letter, 0)
    return flags


@lru_cache(maxsize=1024)
def compile_key(pattern: str, flags: int) -> regex.Pattern[str] | None:
    """``pattern`` compiled as ``re`` would read it; None for a broken one (it never fires)."""
    try:
        return regex.compile(pattern, flags | regex.V0)
    except (regex.error, ValueError, OverflowError, RecursionError):
        return None


def key_matches(pattern: regex.Pattern[str], text: str, *, timeout: float = KEY_TIMEOUT_S) -> bool:
    """True when ``pattern`` is found in ``text`` within ``timeout`` seconds; a pattern that
    once ran out of time is False from then on (logged once)."""
    if pattern.pattern in _runaway:
        return False
    try:
        return pattern.search(text, timeout=timeout, concurrent=True) is not None
    except TimeoutError:
        with _runaway_lock:
            first = pattern.pattern not in _runaway
            _runaway.add(pattern.pattern)
        if first:
            log.warning("a card's lorebook key took over %.0f ms on a %d-character line and is skipped from now "
                        "on (a pattern that backtracks without end): %.80r", timeout * 1000, len(text),
                        pattern.pattern)
        return False


__all__ = ["KEY_TIMEOUT_S", "compile_key", "flags_of", "key_matches"]
