"""The keys and value types of CoSER's released per-book files (``data/final/*.json``).

Written down from a survey of the 14 released files (not shipped): the keys each kind of object
carries, which of them every such object has, and the JSON types of their values. Two flavours
are in the release: King Lear and Othello as the curation pipeline writes them (plots with
``text``, ids on dialogues and key characters, ``experience`` / ``motivation`` in the character
datasets) and twelve as the dataset is distributed (plot ``i_p`` and conversation ``i_c``, no
``text``, ``summary`` / ``thought`` in the character datasets). A key is allowed where either
flavour has it; a key is required where both have it.
"""

from __future__ import annotations

from typing import Any

STR, INT, NULL, LIST, DICT = "str", "int", "null", "list", "dict"

# path -> (required keys, optional keys, {key: allowed types}); "*" is any character name.
SCHEMA: dict[str, tuple[set[str], set[str], dict[str, set[str]]]] = {
    "": ({"plots", "character_datasets", "split_plot_index"}, {"fail_to_parse_responses"},
         {"plots": {LIST}, "character_datasets": {DICT}, "split_plot_index": {INT},
          "fail_to_parse_responses": {LIST}}),
    "plots[]": ({"summary", "prominence", "key_characters", "chapter", "conversation", "state", "i_chunk"},
                {"text", "i_p"},
                {"summary": {STR}, "prominence": {INT}, "key_characters": {LIST}, "chapter": {STR, NULL},
                 "conversation": {LIST}, "state": {STR}, "i_chunk": {INT}, "text": {STR}, "i_p": {INT}}),
    "plots[].key_characters[]": ({"name", "description", "experience"}, {"i_p"},
                                 {"name": {STR}, "description": {STR}, "experience": {STR}, "i_p": {INT}}),
    "plots[].conversation[]": ({"scenario", "topic", "key_characters", "dialogues"}, {"i_c"},
                               {"scenario": {STR}, "topic": {STR}, "key_characters": {LIST}, "dialogues": {LIST},
                                "i_c": {INT}}),
    "plots[].conversation[].key_characters[]": ({"name", "motivation"}, {"i_p", "i_c"},
                                                {"name": {STR}, "motivation": {STR}, "i_p": {INT}, "i_c": {INT}}),
    "plots[].conversation[].dialogues[]": ({"character", "message"}, {"i_p", "i_c", "i_u"},
                                           {"character": {STR}, "message": {STR}, "i_p": {INT}, "i_c": {INT},
                                            "i_u": {INT}}),
    "character_datasets.*": ({"profile", "plots", "conversations", "utterances"}, set(),
                             {"profile": {STR}, "plots": {LIST}, "conversations": {LIST}, "utterances": {LIST}}),
    "character_datasets.*.plots[]": ({"name", "description", "i_p"}, {"summary", "experience"},
                                     {"name": {STR}, "description": {STR}, "i_p": {INT}, "summary": {STR},
                                      "experience": {STR}}),
    "character_datasets.*.conversations[]": ({"name", "i_p", "i_c"}, {"thought", "motivation"},
                                             {"name": {STR}, "i_p": {INT}, "i_c": {INT}, "thought": {STR},
                                              "motivation": {STR}}),
    "character_datasets.*.utterances[]": ({"character", "message", "i_p", "i_c", "i_u"}, set(),
                                          {"character": {STR}, "message": {STR}, "i_p": {INT}, "i_c": {INT},
                                           "i_u": {INT}}),
}


def _type(value: Any) -> str:
    if value is None:
        return NULL
    if isinstance(value, bool):
        return "bool"
    return {str: STR, int: INT, float: "float", list: LIST, dict: DICT}.get(type(value), type(value).__name__)


def problems(data: Any) -> list[str]:
    """Every way ``data`` departs from the released layout (empty when it fits)."""
    found: list[str] = []

    def check(obj: Any, path: str) -> None:
        if path not in SCHEMA:
            return
        if not isinstance(obj, dict):
            found.append(f"{path or '<top>'}: expected an object, got {_type(obj)}")
            return
        required, optional, types = SCHEMA[path]
        for key in sorted(required - set(obj)):
            found.append(f"{path or '<top>'}: missing key {key!r}")
        for key in sorted(set(obj) - required - optional):
            found.append(f"{path or '<top>'}: key {key!r} is not in the released files")
        for key, value in obj.items():
            if key in types and _type(value) not in types[key]:
                found.append(f"{path or '<top>'}.{key}: {_type(value)} where the release has {sorted(types[key])}")
            child = f"{path}.{key}" if path else key
            if key == "character_datasets" and isinstance(value, dict) and not path:
                for entry in value.values():
                    check(entry, "character_datasets.*")
            elif isinstance(value, list):
                for item in value:
                    check(item, f"{child}[]")

    check(data, "")
    return found
