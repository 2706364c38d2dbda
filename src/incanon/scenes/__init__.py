"""Scenes: two to four characters at one point of the story, each answering from its own
knowledge scope and hearing only what was said while it was there.

``SceneSession`` holds the scene (cast, position, setting, lines with who heard them) and lets
characters speak through the one scoped builder and the ``in-canon`` method; ``handle`` runs one
line of the scene protocol (text or a ``/command``); ``ScenesStore`` keeps scenes in SQLite;
``Scene`` is what ``/save`` writes; ``SceneEngine`` takes every scene's turns (CoSER's
``coser simulate`` runs on it too). The terminal (``incanon scene``) and the web app's Scene tab
are front ends over these::

    from incanon.scenes import SceneSession, handle
    session = SceneSession(store, characters=["Wren", "Ottilie"], at="1-1-1", model=model)
    outcome = await handle(session, "The lamp-room is cold tonight.")   # the next speaker answers
    outcome = await handle(session, "/as Wren Will you teach me the Tower lamp?")
    outcome = await handle(session, "/why")
"""

from incanon.scenes.engine import Cue, Performance, SceneEngine
from incanon.scenes.commands import COMMANDS, Outcome, default_save_path, handle, split_name
from incanon.scenes.record import FORMAT, MAX_CAST, MIN_CAST, NARRATOR, CastChange, Scene, SceneLine
from incanon.scenes.session import SceneSession, new_scene_id
from incanon.scenes.store import SavedScene, ScenesStore, default_scenes_path

__all__ = [
    "COMMANDS",
    "FORMAT",
    "MAX_CAST",
    "MIN_CAST",
    "NARRATOR",
    "CastChange",
    "Cue",
    "Outcome",
    "Performance",
    "SavedScene",
    "SceneEngine",
    "Scene",
    "SceneLine",
    "SceneSession",
    "ScenesStore",
    "default_save_path",
    "default_scenes_path",
    "handle",
    "new_scene_id",
    "split_name",
]
