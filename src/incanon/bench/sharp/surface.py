"""Proper-noun case from ConceptNet's surface text.

ConceptNet lowercases every concept URI (``/c/en/harry_potter``), so a claim rendered from the
URI alone reads "Harry potter is a wizard." and, mid-sentence, "harry potter". The JSON column
often keeps the words as the contributor wrote them: ``surfaceStart`` / ``surfaceEnd`` and the
bracketed spans of ``surfaceText`` (``[[Harry Potter]] is a [[wizard]]``). A concept takes the
surface casing when the surface words equal the lemma but for case *and* the capitals say
"name", not "start of a sentence": a capital after the first letter ("Harry Potter", "FBI
agent", "McDonald's"), or a capitalised span that does not open the surface sentence.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # conceptnet.py imports this module
    from incanon.bench.sharp.conceptnet import Concept

_SPAN = re.compile(r"\[\[(.+?)\]\]")


def _fold(text: str) -> str:
    return " ".join(text.replace("_", " ").split()).casefold()


def _names_a_name(span: str, opens_sentence: bool) -> bool:
    if not any(ch.isupper() for ch in span):
        return False
    return any(ch.isupper() for ch in span[1:]) or not opens_sentence


def _candidates(info: dict[str, Any], key: str) -> list[tuple[str, bool]]:
    """(surface words, opens the surface sentence) pairs worth trying for one end."""
    found: list[tuple[str, bool]] = []
    text = info.get("surfaceText")
    if isinstance(text, str):
        lead = len(text) - len(text.lstrip("* \t"))
        for match in _SPAN.finditer(text):
            found.append((match.group(1).strip(), match.start() <= lead))
    value = info.get(key)
    if isinstance(value, str) and value.strip():
        # Without a surface sentence there is no telling a name from a capital that opens one.
        opens = next((opens for span, opens in found if span == value.strip()), True)
        found.insert(0, (value.strip(), opens))
    return found


def recase(concept: "Concept", info: dict[str, Any], key: str) -> "Concept":
    """``concept`` with the surface casing of its words when that casing marks a name.

    ``key`` is ``surfaceStart`` for the head and ``surfaceEnd`` for the tail.
    """
    if concept.text.lower() != concept.text:
        return concept
    target = _fold(concept.text)
    for span, opens in _candidates(info, key):
        if _fold(span) == target and _names_a_name(span, opens):
            return replace(concept, text=" ".join(span.split()))
    return concept
