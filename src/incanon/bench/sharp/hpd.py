"""Per-pair affection scores from the user's copy of HPD (the Harry Potter Dialogue dataset).

SHARP groups roles by affection with HPD's rules; the relationship word alone gets pairs wrong
(the Dursleys are "family", so high, where HPD annotates Harry's affection toward them as
negative). HPD itself annotates each pair, so where the user has its files, the pair's own score
is used, and the word table only where HPD has no score for the pair.

HPD's released JSON files (``en_train_set.json``, ``en_test_set.json``, and the Chinese ones) map
each dialogue (``"dialogue-12"``, in story order) to an object whose ``"Relations With Harry"``
(the spelling varies a little between releases: any key naming relations and Harry) maps each
annotated speaker to the pair's annotation: ``name``, the binary relations (``friend``,
``family``, ...), and four scores, two of them affection: Harry's affection toward the speaker
(a key such as ``"Harry's affection to him"``) and the speaker's toward Harry (``"His affection
to Harry"``). Affection runs from -10 to 10; above 0 is high, below 0 low, 0 neither.

The score read is Harry's toward the speaker (SHARP asks how the main character treats the
role), from the last dialogue in story order that annotates the pair (the relations change as
the story goes on, and SHARP reads affection once the story has ended). A key naming the other
direction is used only where the pair has no forward score. ``affection_key`` names the key
exactly when a release spells it in a way these rules do not find.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from incanon.errors import InputError
from incanon.reading import parse_json, read_text

MAIN = "Harry"
"""The character HPD annotates every relation with."""
_MAIN_ZH = "哈利"
_RELATIONS_KEY = re.compile(r"relation.*harry|与哈利的关系|與哈利的關係|哈利.*关系|哈利.*關係", re.IGNORECASE)
_DIALOGUE_NUMBER = re.compile(r"(\d+)\s*$")


@dataclass(frozen=True)
class PairScore:
    """One pair's affection as HPD annotates it."""

    partner: str
    """The speaker key of the annotation."""
    name: str
    """Its ``name`` field (the full name), or the key when there is none."""
    score: float
    direction: str
    """forward: Harry toward the partner; reverse: the partner toward Harry."""
    dialogue: str
    """The dialogue the score was read from (the last that annotates the pair)."""


@dataclass
class HPDAffection:
    """Pair scores read from one or more HPD files."""

    pairs: dict[str, PairScore] = field(default_factory=dict)
    """Folded partner name (key and ``name``) → its score."""
    files: list[str] = field(default_factory=list)
    dialogues: int = 0

    def score(self, role: str) -> PairScore | None:
        """The pair score of ``role`` (by the annotation's key or full name), or None."""
        return self.pairs.get(_fold(role))

    def applies_to(self, main: str) -> bool:
        """HPD annotates relations with Harry only: its scores say nothing for another main character."""
        words = _fold(main).split()
        return MAIN.casefold() in words or any(_MAIN_ZH in w for w in words)


def _fold(text: str) -> str:
    return " ".join(str(text).casefold().split())


def _affection_keys(entry: dict[str, Any], affection_key: str | None) -> tuple[str | None, str | None]:
    """(forward key, reverse key) of one annotation."""
    if affection_key is not None:
        return (affection_key if affection_key in entry else None), None
    forward = reverse = None
    for key in entry:
        low = key.casefold()
        if "affection" not in low and "好感" not in key and "喜爱" not in key and "喜愛" not in key:
            continue
        # "Harry's affection to him" / "哈利对他的好感度": Harry first is Harry's own feeling.
        if low.lstrip().startswith("harry") or key.lstrip().startswith(_MAIN_ZH):
            forward = forward or key
        else:
            reverse = reverse or key
    return forward, reverse


def _number(value: Any, where: str, source: str) -> float | None:
    if value in (None, ""):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InputError(f"an affection score must be a number from -10 to 10, got {value!r}", source=source, where=where)
    try:
        number = float(value)
    except ValueError:
        raise InputError(f"an affection score must be a number from -10 to 10, got {value!r}",
                         source=source, where=where) from None
    if number != number or not -10 <= number <= 10:
        raise InputError(f"an affection score must be from -10 to 10, got {value!r}", source=source, where=where)
    return number


def _order(key: str, index: int) -> tuple[int, int]:
    match = _DIALOGUE_NUMBER.search(key)
    return (int(match.group(1)) if match else index, index)


def load_hpd(paths: list[str | Path] | str | Path, *, affection_key: str | None = None) -> HPDAffection:
    """Pair scores from HPD JSON files (see the module docstring); a later file's dialogues
    come after an earlier file's. A file not in the layout is an InputError naming it, and the
    dialogue and field where it is not."""
    found = HPDAffection()
    for path in [paths] if isinstance(paths, (str, Path)) else paths:
        p = Path(path).expanduser()
        data = parse_json(read_text(p, "HPD file"), str(p))
        if not isinstance(data, dict) or not data:
            raise InputError("expected HPD's layout: an object of dialogues (\"dialogue-1\": {...})", source=str(p))
        seen = 0
        dialogues = sorted(enumerate(data.items()), key=lambda item: _order(item[1][0], item[0]))
        for position, (_, (dialogue, body)) in enumerate(dialogues):
            if not isinstance(body, dict):
                raise InputError(f"expected an object, got {type(body).__name__}", source=str(p), where=dialogue)
            seen += 1
            key = next((k for k in body if _RELATIONS_KEY.search(k)), None)
            relations = body.get(key) if key else None
            if relations in (None, "", [], {}):
                continue  # HPD leaves it empty when no speaker is among its 113 annotated characters
            if not isinstance(relations, dict):
                raise InputError(f"{key!r} must map speakers to their annotations", source=str(p), where=dialogue)
            for partner, entry in relations.items():
                where = f"{dialogue}, {key!r}, {partner!r}"
                if not isinstance(entry, dict):
                    raise InputError("expected the pair's annotation object", source=str(p), where=where)
                forward, reverse = _affection_keys(entry, affection_key)
                direction, chosen = ("forward", forward) if forward else ("reverse", reverse)
                score = _number(entry.get(chosen), f"{where}, {chosen!r}", str(p)) if chosen else None
                if score is None:
                    continue
                name = str(entry.get("name") or entry.get("Name") or partner).strip()
                pair = PairScore(partner, name, score, direction, dialogue)
                for label in {_fold(partner), _fold(name)}:
                    old = found.pairs.get(label)
                    # Forward beats reverse; among equals the later dialogue (the story's end) wins.
                    if old is None or direction == "forward" or old.direction == "reverse":
                        found.pairs[label] = pair
        found.files.append(str(p))
        found.dialogues += seen
    if not found.pairs:
        raise InputError(f"no pair affection score in {', '.join(found.files)}: expected each dialogue's "
                         "\"Relations With Harry\" with an affection score per speaker (or name it with --hpd-key)")
    return found
