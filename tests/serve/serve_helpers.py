"""Shared constants of the web app tests."""

from incanon.models import ScriptedModel

#: What the scripted character says: one rule per question the tests ask, and a default.
CHARACTER_RULES = [
    ("flood bell", "I heard the bell from the lamp-room, nothing more."),
    ("Spring Fair", "The fair? I was lighting the harbour lamps that night."),
]
DEFAULT_REPLY = "I keep the lamps of Harrowmere."


def character_model() -> ScriptedModel:
    """The scripted model the app's characters speak with."""
    return ScriptedModel(CHARACTER_RULES, default=DEFAULT_REPLY, name="scripted-character")
