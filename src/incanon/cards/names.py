"""Which names a character has met by a story position, and which text names someone unmet.

The canon store gives a character's and an entity's aliases without a date: "Stormwren" is one
of Wren's names, but only from the night of the flood on. A name is *attested* when it occurs
in the text the character has access to by then (witnessed chunks and dialogue, known facts,
their own time points). A card uses only attested names as lorebook keys, and drops any
sentence of undated text (the personality) that mentions a name that is not attested.

Matching is case-insensitive on word boundaries, longest name first, so "Aldric Hame
Marrow-Hame" is one (later) name and not "Aldric Hame" followed by text.
"""

from __future__ import annotations

from incanon.canon.namebook import NameBook
from incanon.canon.names import CARD_SCENE_PREFIX

#: Speaker name given to the front end's user in imported example dialogue; never a lorebook entry.
USER_NAME = "{{user}}"

__all__ = ["CARD_SCENE_PREFIX", "USER_NAME", "NameBook"]
