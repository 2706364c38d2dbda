"""Name matching: the one normal form every name lookup uses, and "did you mean" hints."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: Narration speakers: a message by one of these is nobody's speech (CoSER's environment role).
NARRATORS = ("Environment", "impersonal")
#: Speakers of a scene's lines who are no character: the narrators, and the front end's user in
#: the example dialogue of an imported character card.
OUTSIDE_SPEAKERS = (*NARRATORS, "{{user}}")
#: Id prefix of the scenes a card import writes (greetings, example dialogue): they are not
#: story text, so they do not date names.
CARD_SCENE_PREFIX = "card-"


def norm(name: str) -> str:
    """Case- and spacing-insensitive form of a name or label ("  Harry  POTTER" → "harry potter")."""
    return " ".join(name.split()).casefold()


def listing(names: Iterable[str], limit: int = 12) -> str:
    """``"A, B, C"``, shortened to ``limit`` names with a count of the rest."""
    items = list(names)
    if not items:
        return "none"
    shown = ", ".join(items[:limit])
    if len(items) > limit:
        shown += f", ... ({len(items) - limit} more)"
    return shown


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """``"; did you mean 'Harry'?"`` for the closest candidate, or ``""`` if none is close."""
    pool = {norm(c): c for c in candidates}
    close = difflib.get_close_matches(norm(name), list(pool), n=1, cutoff=0.6)
    return f"; did you mean {pool[close[0]]!r}?" if close else ""
