"""When a character card's lorebook entry fires, as the card specifications and the front ends
that use them read it.

* keys match case-insensitively unless ``case_sensitive``; a key written ``/pattern/flags`` is a
  regular expression (SillyTavern), and with V3's ``use_regex`` every key is one;
* ``selective``: a secondary key must match too (SillyTavern's ``extensions.selectiveLogic``:
  0 AND ANY, 1 NOT ALL, 2 NOT ANY, 3 AND ALL);
* ``constant`` entries always fire, disabled ones never;
* V3 decorators, ``@@name value`` lines at the head of the content, are instructions to the front
  end, not text: ``@@activate`` fires always, ``@@dont_activate`` never; the rest are kept on the
  card and left out of the fact the entry becomes.

A card's own patterns run with a time limit (:mod:`incanon.cards.patterns`): one that backtracks
without end does not fire, instead of stopping the server.
"""

from __future__ import annotations

import re
from typing import Any

import regex

from incanon.cards.patterns import compile_key, flags_of, key_matches

_SLASHED = re.compile(r"^/(.+)/([a-z]*)$", re.DOTALL)


def _get(entry: Any, name: str, default: Any = None) -> Any:
    if isinstance(entry, dict):
        return entry.get(name, default)
    value = getattr(entry, name, None)
    if value is None and getattr(entry, "model_extra", None):
        value = entry.model_extra.get(name)
    return default if value is None else value


def is_regex_key(key: str) -> bool:
    """True for a key written as ``/pattern/flags``."""
    return _SLASHED.match(key.strip()) is not None


def is_regex_entry(entry: Any) -> bool:
    """True when the entry's keys are regular expressions (``use_regex``, or any ``/…/`` key)."""
    return bool(_get(entry, "use_regex", False)) or any(is_regex_key(k) for k in _get(entry, "keys", []) or [])


def decorators(content: str) -> list[str]:
    """The ``@@`` decorator lines at the head of ``content``."""
    found = []
    for line in content.splitlines():
        if not line.startswith("@@"):
            break
        found.append(line[2:].strip())
    return found


def strip_decorators(content: str) -> str:
    """``content`` without its head of decorator lines, trimmed."""
    lines = content.splitlines()
    while lines and lines[0].startswith("@@"):
        lines.pop(0)
    return "\n".join(lines).strip()


def _compile(key: str, use_regex: bool, case_sensitive: bool) -> regex.Pattern[str] | None:
    # A broken expression is None: it never fires (front ends skip it too).
    key = key.strip()
    if not key:
        return None
    m = _SLASHED.match(key)
    if m:
        return compile_key(m.group(1), flags_of(m.group(2)))
    case = 0 if case_sensitive else regex.IGNORECASE
    if use_regex:
        return compile_key(key, case)
    return compile_key(rf"(?<!\w){re.escape(key)}(?!\w)", case)


def _any(keys: list[str], text: str, use_regex: bool, case_sensitive: bool) -> list[bool]:
    return [key_matches(p, text) for k in keys if isinstance(k, str)
            and (p := _compile(k, use_regex, case_sensitive)) is not None]


def fires(entry: Any, text: str) -> bool:
    """True when the lorebook ``entry`` (a model or its JSON) is triggered by ``text``."""
    if not _get(entry, "enabled", True):
        return False
    marks = {d.split()[0] for d in decorators(_get(entry, "content", "") or "") if d}
    if "dont_activate" in marks:
        return False
    if "activate" in marks or _get(entry, "constant", False):
        return True
    use_regex = bool(_get(entry, "use_regex", False))
    case = bool(_get(entry, "case_sensitive", False))
    if not any(_any(list(_get(entry, "keys", []) or []), text, use_regex, case)):
        return False
    if not _get(entry, "selective", False):
        return True
    second = _any(list(_get(entry, "secondary_keys", []) or []), text, use_regex, case)
    if not second:
        return True  # selective without secondary keys: the primary match decides
    logic = (_get(entry, "extensions", {}) or {}).get("selectiveLogic", 0)
    return {0: any(second), 1: not all(second), 2: not any(second), 3: all(second)}.get(logic, any(second))


def triggered_facts(card_json: str, text: str) -> set[str]:
    """Ids of the facts a character's imported card (``CharacterRecord.card``) makes from entries
    that ``text`` triggers."""
    import json

    if not card_json:
        return set()
    card = json.loads(card_json)
    doc = card.get("document") or {}
    data = doc.get("data", doc) if isinstance(doc, dict) else {}
    entries = ((data.get("character_book") or {}).get("entries") or []) if isinstance(data, dict) else []
    return {fid for fid, i in (card.get("facts") or {}).items()
            if isinstance(i, int) and 0 <= i < len(entries) and fires(entries[i], text)}


__all__ = ["decorators", "fires", "is_regex_entry", "is_regex_key", "strip_decorators", "triggered_facts"]
