"""Planning a chunk's perceived units on import (``incanon.canon.perception``): names and positions
resolved through the world checker, stated units placed in the text, errors by JSON path."""

from __future__ import annotations

import json
from typing import Any

from incanon.canon.perception import StatedUnit, place_units
from incanon.canon.world import Chunk


def plan_units(check: Any, path: str, ck: Chunk) -> str:
    """The perceived units of chunk ``ck`` (at JSON path ``path``) as the store keeps them (JSON):
    the stated ones placed in its text, the rest cut by the default rule. ``check`` is the world
    checker (``incanon.canon.validate``), which resolves names and positions and reports the first
    bad one by path."""
    canonical = [c.name for c in check.world.characters]
    narrator = check.plan.narrator
    if ck.narrator is not None:
        narrator = canonical[check.character(f"{path}.narrator", ck.narrator)]
    stated = []
    for j, u in enumerate(ck.units):
        upath = f"{path}.units[{j}]"
        check.nonblank(f"{upath}.text", u.text, "unit text")
        by = None if u.by is None else canonical[check.character(f"{upath}.by", u.by)]
        known = tuple(canonical[check.character(f"{upath}.known_by[{k}]", n)] for k, n in enumerate(u.known_by))
        if u.mode == "thought" and by is None:
            check.fail(f"{upath}.by", "a thought unit needs 'by' (whose thought it is)")
        if u.mode == "document" and by is None and not known:
            check.fail(f"{upath}.by", "a document unit needs 'by' (its writer) or 'known_by' (its readers)")
        start = check.opt_position(f"{upath}.from", u.from_)
        stated.append(StatedUnit(u.text, u.mode, u.audience, by, known, start))
    units, missing = place_units(ck.text, stated, narrator)
    if missing is not None:
        check.fail(f"{path}.units[{missing}].text", f"{ck.units[missing].text[:60]!r} is not in the chunk's text "
                  "after the previous unit (units are given in text order, each its exact text)")
    return json.dumps([u.to_json() for u in units], ensure_ascii=False)


__all__ = ["plan_units"]
