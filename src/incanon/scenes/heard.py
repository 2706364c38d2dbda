"""What one character heard in a scene, as the dialogue its method answers.

One rule for every front end that puts several speakers in front of a character (the scene
engine, and ``/v1`` group chats, :mod:`incanon.serve.scene_group`): the character's own lines
are its own (assistant turns), the narrator's (the user's) come as said, anyone else's as
``Label: words`` under the name the listener knows them by, and an aside to it is marked as
one. Others' lines in a row are one user turn and its own in a row one assistant turn, as
CoSER's simulation sends them (chat templates that want roles to alternate accept it).

Nothing of the other speakers' scopes is read here: a line is its words and its speaker's label,
and the labels come from the listener's own horizon (:func:`incanon.scenes.cast.labels_for`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from incanon.agents.base import Turn
from incanon.scenes.cast import STRANGER
from incanon.scenes.record import NARRATOR, SceneLine
from incanon.templates import PromptLibrary


def told_text(lines: Iterable[SceneLine]) -> str:
    """The words of ``lines`` as one case-folded text: where a name said in the scene is found
    (a name said while a character listened is one it knows from then on)."""
    return " ".join(line.text for line in lines).casefold()


def heard_turns(name: str, lines: Sequence[SceneLine], labels: Mapping[str, str], prompts: PromptLibrary, *,
                cue: bool = True) -> list[Turn]:
    """``lines`` (the lines ``name`` heard, in order) as ``name``'s dialogue. ``labels``: how
    ``name`` is shown each other speaker (a speaker missing from it is a stranger). ``cue``: when
    the last line is its own (or it heard nothing), end with the scene's turn cue; without it
    such a dialogue ends with its own turn (a client's *Continue*)."""
    turns: list[Turn] = []
    for line in lines:
        text = line.text
        if line.to is not None and line.speaker != name:
            text = prompts.render("scene_aside", text=text).strip()
        mine = line.speaker == name
        if not mine and line.speaker != NARRATOR:
            text = f"{labels.get(line.speaker) or STRANGER}: {text}"
        speaker = name if mine else "user"
        if turns and turns[-1].speaker == speaker:
            turns[-1] = Turn(speaker=speaker, text=f"{turns[-1].text}\n\n{text}")
        else:
            turns.append(Turn(speaker=speaker, text=text))
    if cue and (not turns or turns[-1].speaker == name):
        turns.append(Turn(speaker="user", text=prompts.render("scene_cue", character=name).strip()))
    return turns


__all__ = ["heard_turns", "told_text"]
