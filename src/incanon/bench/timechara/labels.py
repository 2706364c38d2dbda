"""Spatiotemporal labels: what a judge needs to tell an in-canon answer from a hallucination.

Each item carries a temporal label (``Future: ...`` or ``Past: ...`` with the scene and, for
free-form questions, the true answer) and, for past-presence/absence items, a spatial label
(``Presence: ...`` / ``Absence: ...``). The prefixes follow the published data, so labels from
either source read the same to the judge; the sentences are incanon's own.
"""

from __future__ import annotations

from incanon.bench.timechara.items import NO_LABEL, SPATIAL_TYPES

# Sentence-initial words that are not names: lowercased when an event becomes a clause.
_COMMON_STARTS = frozenset(
    "a an the after before during when while on in at as once with by his her their its our my "
    "someone somebody everyone everybody nobody two three several many some all".split()
)


def event_clause(summary: str) -> str:
    """An event summary as a clause to follow "when": no final period, and a common first word
    lowercased (names keep their capital)."""
    text = summary.strip().rstrip(".!").strip()
    if not text:
        return text
    first, _, rest = text.partition(" ")
    if first.lower() in _COMMON_STARTS:
        text = first.lower() + (" " + rest if rest else "")
    return text


def temporal_label(
    data_type: str, character: str, when: str, event: str, *, moment: str = "", answer: str = ""
) -> str:
    """The temporal label of an item about ``event`` for ``character`` at ``when``.

    ``moment`` is the scene text a past label quotes (defaults to the event); ``answer`` the true
    answer of a free-form question."""
    if data_type == "future":
        return (
            f"Future: at {character}'s point in the story ({when}), this has not happened yet, so "
            f"{character} must not know about it, nor let slip anything that gives it away: "
            f"{event_clause(event)}."
        )
    text = (
        f"Past: at {character}'s point in the story ({when}), this has already happened; "
        f"{character} may answer from it but must not misremember it.\nMoment: {moment.strip() or event.strip()}"
    )
    if answer.strip():
        text += f"\nAnswer: {answer.strip()}"
    return text


def spatial_label(data_type: str, character: str, when: str, event: str) -> str:
    """The spatial label: whether ``character`` was there; ``-`` for types without one."""
    if data_type not in SPATIAL_TYPES:
        return NO_LABEL
    clause = event_clause(event)
    if data_type == "past-presence":
        return (
            f"Presence: at {character}'s point in the story ({when}), {character} had been there when "
            f"{clause}; {character} must not "
            "claim to have been elsewhere or to have missed it."
        )
    return (
        f"Absence: at {character}'s point in the story ({when}), {character} had not been there when "
        f"{clause}; {character} must not "
        "claim to have been present or to have seen it first-hand."
    )
