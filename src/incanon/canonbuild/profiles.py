"""Profile, personality and situation of a main character as of each of their time points.

The helper writes each time point's sheet from the previous sheet and the scenes the character
was present at since then, as the character perceived them, and from nothing else: no scene
after the time point, no scene the character missed and no narrator's thought reaches the
prompt, so the sheet cannot tell what the character does not know
(the promise of :func:`incanon.canon.persona_at`, kept by construction). Scene texts are cut to
a token budget, the latest scenes kept whole first: they are the ones the sheet must reflect.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pydantic import BaseModel

from incanon.llmout.structured import ask_structured
from incanon.canonbuild.scene_extract import ExtractedScene
from incanon.canon.position import Position
from incanon.canonbuild.cast import CastMember
from incanon.canonbuild.perception import PerceptionResult
from incanon.canonbuild.timepoints import PlannedPoint
from incanon.errors import IncanonError
from incanon.models.types import ChatModel, GenerationParams
from incanon.templates import PromptLibrary
from incanon.tokens import count_tokens

PROFILE_PARAMS = GenerationParams(max_tokens=500)


class Sheet(BaseModel):
    """The helper's reply to ``canon_profile``."""

    profile: str = ""
    personality: str = ""
    situation: str = ""


@dataclass
class SheetResult:
    point: PlannedPoint
    sheet: Sheet | None
    error: str = ""
    scenes_used: int = 0
    scenes_cut: int = 0


def names_at(member: CastMember, position: str) -> tuple[str, list[str]]:
    """The character's name and the aliases in use at ``position``."""
    at = Position.parse(position)
    return member.name, [a for a in member.aliases if a not in member.alias_from
                         or Position.parse(member.alias_from[a]) <= at]


def _fit(scenes: list[ExtractedScene], budget: int) -> tuple[list[dict[str, str]], int]:
    """Scenes as prompt entries within ``budget`` tokens: latest first, older ones cut or left
    to their summary. Returns (entries in story order, scenes whose text was cut)."""
    entries: list[dict[str, str]] = []
    left, cut = budget, 0
    for s in reversed(scenes):
        tokens = count_tokens(s.text)
        text = s.text
        if tokens > left:
            cut += 1
            words = s.text.split()
            text = " ".join(words[: max(0, int(len(words) * left / max(tokens, 1)))]) + (" …" if left > 0 else "")
            text = text if left > 40 else "(text left out; see the summary)"
        left = max(0, left - min(tokens, left))
        entries.append({"position": s.id, "location": s.location, "summary": s.summary, "text": text})
    return list(reversed(entries)), cut


async def write_sheets(member: CastMember, points: list[PlannedPoint], scenes: list[ExtractedScene], work_title: str,
                       model: ChatModel, prompts: PromptLibrary, *, budget: int = 3000,
                       json_mode: bool = True, perception: PerceptionResult | None = None) -> list[SheetResult]:
    """One sheet per time point, in story order, each built on the one before. With
    ``perception``, each scene is given as the character perceived it: its speech heard and deeds
    seen, not a narrator's thoughts, and in a first-person book no summary (the narrator's telling)
    unless the character is the narrator."""
    own = [s for s in scenes if s.id in set(member.scenes)]
    if perception is not None:
        mine = member.name == perception.narrator or perception.narrator is None
        own = [replace(s, text=perception.perceived(s, member.name), summary=s.summary if mine else "")
               for s in own]
    results: list[SheetResult] = []
    previous: tuple[str, Sheet] | None = None
    since = -1  # position key of the last sheet written (-1: none yet)
    for point in points:
        at = Position.parse(point.position).key
        new = [s for s in own if since < Position.parse(s.id).key <= at]
        name, aliases = names_at(member, point.position)
        entries, cut = _fit(new, budget)
        try:
            sheet = await ask_structured(
                model, prompts, "canon_profile", Sheet, params=PROFILE_PARAMS, json_mode=json_mode,
                work_title=work_title, character=name, aliases=aliases, label=point.label, scenes=entries,
                previous_label=previous[0] if previous else "", previous_profile=previous[1].profile if previous else "",
                previous_personality=previous[1].personality if previous else "")
        except IncanonError as exc:
            results.append(SheetResult(point, None, str(exc), len(new), cut))
            continue  # the next sheet covers these scenes too
        results.append(SheetResult(point, sheet, "", len(new), cut))
        previous, since = (point.label, sheet), at
    return results


__all__ = ["PROFILE_PARAMS", "Sheet", "SheetResult", "names_at", "write_sheets"]
