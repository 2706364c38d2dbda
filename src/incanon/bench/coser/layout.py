"""The released per-book layout (``data/final/<title>.json``), as CoSER's own tools read it.

incanon's models keep one name per field (a plot character's experience is ``summary``, a
conversation character's state of mind is ``motivation``); the released files name them as
CoSER's curation pipeline (``data_construction/main.py``) writes them, and its tools read those
names: the retrieval of ``gca_evaluation`` reads ``experience`` from a plot's key characters,
``transform.py`` reads ``motivation`` from a conversation's. Written here:

- plots: ``text``, ``summary``, ``prominence``, ``key_characters``, ``chapter``, ``conversation``,
  ``state``, ``i_chunk`` and ``i_p``;
- a plot's key characters: ``name``, ``description``, ``experience``, ``i_p``;
- a conversation: ``scenario``, ``topic``, ``key_characters`` (``name``, ``motivation``,
  ``i_p``, ``i_c``), ``dialogues`` (``character``, ``message``, ``i_p``, ``i_c``, ``i_u``), ``i_c``;
- ``character_datasets``: per character ``profile``, ``plots`` (as a plot's key characters),
  ``conversations`` (as a conversation's key characters) and ``utterances`` (as dialogues);
- ``split_plot_index``, and any other top-level key the book carries (``failed_chunks``).

Every key is one the released files use (the test ``test_layout_coser`` checks it against a
schema taken from them); bookkeeping keys a file brought in (``extra``) are kept as they were.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from incanon.bench.coser.formats import BookData, Conversation, ConversationCharacter, DialogueTurn, Plot, PlotCharacter


def _ids(i_p: int | None, i_c: int | None = None, i_u: int | None = None) -> dict[str, int]:
    return {k: v for k, v in (("i_p", i_p), ("i_c", i_c), ("i_u", i_u)) if v is not None}


def _extra(model: Any, *known: str) -> dict[str, Any]:
    # Keys a loaded file carried that incanon does not model: kept, never renamed.
    return {k: v for k, v in (model.model_extra or {}).items() if k not in known}


def plot_character(pc: PlotCharacter, i_p: int | None) -> dict[str, Any]:
    """A plot's key character (or a ``character_datasets`` plot entry)."""
    return {**_extra(pc, "experience", "summary", "i_p"), "name": pc.name, "description": pc.description,
            "experience": pc.summary, **_ids(i_p if i_p is not None else pc.i_p)}


def conversation_character(cc: ConversationCharacter, i_p: int | None, i_c: int | None) -> dict[str, Any]:
    """A conversation's key character with its motivation (or a ``character_datasets`` entry)."""
    return {**_extra(cc, "thought", "motivation", "i_p", "i_c"), "name": cc.name, "motivation": cc.motivation,
            **_ids(i_p if i_p is not None else cc.i_p, i_c if i_c is not None else cc.i_c)}


def dialogue(turn: DialogueTurn, i_p: int | None, i_c: int | None, i_u: int | None) -> dict[str, Any]:
    """One message with its plot, conversation and message index."""
    return {**_extra(turn, "i_p", "i_c", "i_u"), "character": turn.character, "message": turn.message,
            **_ids(i_p if i_p is not None else turn.i_p, i_c if i_c is not None else turn.i_c,
                   i_u if i_u is not None else turn.i_u)}


def conversation(conv: Conversation, i_p: int | None, i_c: int | None) -> dict[str, Any]:
    """A conversation with every id filled in."""
    i_c = conv.i_c if conv.i_c is not None else i_c
    out = {**_extra(conv), "scenario": conv.scenario, "topic": conv.topic,
           "key_characters": [conversation_character(c, i_p, i_c) for c in conv.key_characters],
           "dialogues": [dialogue(t, i_p, i_c, i_u) for i_u, t in enumerate(conv.dialogues)]}
    if i_c is not None:
        out["i_c"] = i_c
    return out


def plot(p: Plot, i_p: int | None) -> dict[str, Any]:
    """A plot in the released layout (``chapter`` is null when the book gave none)."""
    i_p = p.i_p if p.i_p is not None else i_p
    out: dict[str, Any] = {**_extra(p), "text": p.text, "summary": p.summary}
    if p.prominence is not None:
        out["prominence"] = p.prominence
    out["key_characters"] = [plot_character(c, i_p) for c in p.key_characters]
    out["chapter"] = p.chapter
    out["conversation"] = [conversation(c, i_p, i_c) for i_c, c in enumerate(p.conversation)]
    out["state"] = p.state
    if p.i_chunk is not None:
        out["i_chunk"] = p.i_chunk
    if i_p is not None:
        out["i_p"] = i_p
    return out


def book(b: BookData) -> dict[str, Any]:
    """The whole book file."""
    datasets = {
        name: {**_extra(ds), "profile": ds.profile,
               "plots": [plot_character(c, None) for c in ds.plots],
               "conversations": [conversation_character(c, None, None) for c in ds.conversations],
               "utterances": [dialogue(t, None, None, None) for t in ds.utterances]}
        for name, ds in b.character_datasets.items()
    }
    out: dict[str, Any] = {"plots": [plot(p, i_p) for i_p, p in enumerate(b.plots)],
                           "character_datasets": datasets, "split_plot_index": b.split_index}
    extra = b.model_dump(exclude_none=True, exclude={"title", "plots", "character_datasets", "split_plot_index"})
    return {**out, **extra}
