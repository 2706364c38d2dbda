"""Reading a ``/v1/chat/completions`` body beyond ``model`` and ``messages``.

* Sampling fields (``max_tokens`` / ``max_completion_tokens``, ``temperature``, ``top_p``,
  ``stop``, ``presence_penalty``, ``frequency_penalty``, ``seed``) become the generation
  parameters of the method's calls; ``n`` asks for several choices. A value of the wrong type
  or out of OpenAI's range is a :class:`FieldError` naming the field.
* A conversation that ends with the assistant's message is a *Continue* (SillyTavern): see
  :func:`continue_turn`.
* The body itself is read by :func:`read_body`: JSON nested too deep to read, or a string holding
  a lone UTF-16 surrogate (``"\\ud800"``, valid JSON but not text: no model, tokenizer or
  embedder can encode it) is a 400 naming the field, not a 500 deep inside a method.
* Open WebUI's background tasks (a chat title, tags, follow-up suggestions, search queries)
  are recognised by their prompt's shape and answered plainly from the conversation the
  client sent (:func:`background_task`), never by the character.
* SillyTavern's group chats say who spoke each ``assistant`` line: its ``name`` field (the
  "names in completion" setting, the name with anything but ``[A-Za-z0-9_]`` made ``_``) and/or
  a leading ``Name: `` in its content (the default in groups, and the "in content" setting).
  :func:`client_lines` reads them as written; :mod:`incanon.serve.scene_group` decides who
  they are.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

from incanon.agents.base import Turn
from incanon.errors import InputError
from incanon.models.types import GenerationParams
from incanon.printable import excerpt

#: The most choices one request may ask for: each is a whole run of the method.
MAX_CHOICES = 8
#: The most stop sequences, as OpenAI allows.
MAX_STOPS = 4


def dialogue_from_messages(messages: list[dict[str, Any]], character: str, *,
                           allow_continue: bool = False) -> list[Turn]:
    """The OpenAI ``messages`` as incanon's dialogue (system messages left out). It must end
    with the user's message, or with the character's when ``allow_continue`` (a *Continue*)."""
    turns: list[Turn] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        content = message.get("content")
        if isinstance(content, list):  # content parts: keep the text ones
            content = "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
        if not isinstance(content, str):
            raise InputError(f"messages[{index}].content: expected text")
        if role in ("system", "developer"):
            continue
        if role not in ("user", "assistant"):
            raise InputError(f"messages[{index}].role: expected system, user or assistant, not {role!r}")
        turns.append(Turn(speaker="user" if role == "user" else character, text=content))
    if not turns:
        raise InputError("messages: expected at least one user or assistant message")
    if turns[-1].speaker != "user" and not allow_continue:
        raise InputError("messages: the last message must be the user's")
    return turns



class FieldError(InputError):
    """A request field with a wrong value; ``param`` names it (OpenAI's ``error.param``)."""

    def __init__(self, param: str, message: str) -> None:
        super().__init__(f"{param}: {message}")
        self.param = param


def read_body(raw: bytes) -> dict[str, Any]:
    """The request body ``raw`` as a JSON object; anything else is an ``InputError`` (a
    :class:`FieldError` naming the field that holds a lone surrogate)."""
    try:
        body = json.loads(raw)
    except RecursionError:
        raise InputError("the body is JSON nested too deeply to read") from None
    except ValueError:  # not UTF-8, or not JSON
        raise InputError("the body is not JSON") from None
    if not isinstance(body, dict):
        raise InputError("the body must be a JSON object")
    where = lone_surrogate_at(body)
    if where is not None:
        raise FieldError(where or "body", "holds a lone UTF-16 surrogate (an escape such as \\ud800 without "
                                         "its pair), which is not text")
    return body


def lone_surrogate_at(value: Any) -> str | None:
    """Where in ``value`` (parsed JSON) a string or key holds a lone surrogate, as a field path
    such as ``messages[0].content``; None when nowhere. Iterative: the depth is the client's."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            if not _encodes(item):
                return path
        elif isinstance(item, dict):
            for key, inner in item.items():
                shown = excerpt(key, 40)  # a client's key may be long or hold controls
                named = f"{path}.{shown}" if path else shown
                if not _encodes(key):
                    return path or "body"  # the key itself cannot be named safely
                stack.append((named, inner))
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", inner) for i, inner in enumerate(item))
    return None


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _number(body: dict[str, Any], name: str, low: float, high: float) -> float | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FieldError(name, f"expected a number from {low:g} to {high:g}")
    if not low <= value <= high:
        raise FieldError(name, f"{value!r} is out of range: expected {low:g} to {high:g}")
    return float(value)


def _integer(body: dict[str, Any], name: str, low: int, high: int | None = None) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise FieldError(name, "expected an integer")
    if value < low or (high is not None and value > high):
        bound = f"{low} to {high}" if high is not None else f"at least {low}"
        raise FieldError(name, f"{value!r} is out of range: expected {bound}")
    return value


def _stops(body: dict[str, Any]) -> tuple[str, ...] | None:
    value = body.get("stop")
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise FieldError("stop", "expected a string or a list of strings")
    if len(value) > MAX_STOPS:
        raise FieldError("stop", f"at most {MAX_STOPS} stop sequences")
    return tuple(s for s in value if s)


def sampling(body: dict[str, Any], base: GenerationParams) -> GenerationParams | None:
    """The generation parameters ``body`` asks for on top of ``base`` (the server's chat
    settings), or None when it sets none. Fields it leaves out keep ``base``'s values."""
    changes: dict[str, Any] = {}
    for name in ("max_completion_tokens", "max_tokens"):  # the newer name wins when both come
        tokens = _integer(body, name, 1)
        if tokens is not None and "max_tokens" not in changes:
            changes["max_tokens"] = tokens
    for name, low, high in (("temperature", 0, 2), ("top_p", 0, 1),
                            ("presence_penalty", -2, 2), ("frequency_penalty", -2, 2)):
        value = _number(body, name, low, high)
        if value is not None:
            changes[name] = value
    if (stop := _stops(body)) is not None:
        changes["stop"] = stop
    if (seed := _integer(body, "seed", -(2**63))) is not None:
        changes["seed"] = seed
    return base.model_copy(update=changes) if changes else None


def choices_wanted(body: dict[str, Any]) -> int:
    """``n``: how many choices (1 when left out)."""
    n = _integer(body, "n", 1, MAX_CHOICES)
    if n is not None and n > 1 and body.get("stream"):
        raise FieldError("n", "n > 1 is not offered with stream: true (ask without streaming, or n times)")
    return n or 1


# -- SillyTavern's Continue --------------------------------------------------------------------

#: What the method is asked when the client continues the character's last message.
CONTINUE_NOTE = ("(Your reply so far was: \u00ab{partial}\u00bb \u2014 it was cut off. Go on from exactly "
                 "where it stops, in character; do not repeat it.)")


def continue_turn(dialogue: list[Turn], character: str) -> tuple[list[Turn], str] | None:
    """For a *Continue* (the dialogue ends with the character's own message), the dialogue the
    method answers and the partial message; None for an ordinary request.

    The method sees the conversation up to the user's last turn, that turn followed by a note
    quoting the partial reply and asking to go on from where it stops; the partial reply is
    not repeated as a turn of its own. Its answer is the continuation, which the client
    appends to the message. Retrieval methods search with that turn, so they look for the
    question and the reply's start together."""
    if not dialogue or dialogue[-1].speaker != character:
        return None
    partial = dialogue[-1].text
    earlier = dialogue[:-1]
    note = CONTINUE_NOTE.format(partial=partial.strip())
    if earlier and earlier[-1].speaker == "user":
        asked = earlier[-1]
        return [*earlier[:-1], Turn(speaker="user", text=f"{asked.text}\n\n{note}")], partial
    return [*earlier, Turn(speaker="user", text=note)], partial


# -- Open WebUI's background tasks --------------------------------------------------------------

# Blanks, not ``\s``: ``^\s*`` under MULTILINE crosses line ends, so on a message of 60,000
# newlines every line start scanned the rest of the text (quadratic, 45 s on the event loop).
_TASK = re.compile(r"^[ \t]*#{2,4}[ \t]*Task[ \t]*:", re.IGNORECASE | re.MULTILINE)
_OUTPUT_KEY = re.compile(r"\{\s*\"(title|tags|follow_ups|queries)\"\s*:")
_HISTORY_OPEN, _HISTORY_CLOSE = "<chat_history>", "</chat_history>"
_LINE = re.compile(r"^(USER|ASSISTANT)\s*:\s*(.*)$", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_][\w'\u2019-]*")
#: Words a title, a tag or a query is better without.
_COMMON = frozenset("""a about after again all also am an and any are as at be been before being but by can could did
do does for from had has have he her here him his how i if in into is it its just me my no not now of on or our
out over she so some than that the their them then there these they this to too up us was we were what when where
which who whom why will with would you your yes well oh ah hello hi hey tell know said say""".split())


@dataclass(frozen=True)
class BackgroundTask:
    """A recognised task and the plain answer to it."""

    kind: str
    """``title``, ``tags``, ``follow_ups`` or ``queries`` (the JSON key Open WebUI asks for)."""
    text: str
    """The answer: the JSON object the task's template asks for."""
    history: tuple[tuple[str, str], ...] = ()
    """The conversation the task quotes, ``(speaker, text)`` per line."""


def _history_text(prompt: str) -> str:
    """What the first ``<chat_history>`` … ``</chat_history>`` holds (any case), or ``""``.

    Two finds, not the regex ``<chat_history>(.*?)</chat_history>``: without a closing tag the
    regex tried every opening one and scanned to the end from each (30,000 markers: 158 s). If
    the first opening tag has no closing one after it, no later one has either."""
    folded = prompt.lower()  # ASCII tags: lower() keeps every index of the prompt
    if len(folded) != len(prompt):
        folded = "".join(ch if ch.isascii() else "\x00" for ch in prompt).lower()
    start = folded.find(_HISTORY_OPEN)
    if start < 0:
        return ""
    start += len(_HISTORY_OPEN)
    end = folded.find(_HISTORY_CLOSE, start)
    return prompt[start:end] if end >= 0 else ""


def _history(prompt: str) -> list[tuple[str, str]]:
    """The (speaker, text) lines of the task's ``<chat_history>``."""
    lines: list[tuple[str, str]] = []
    for line in _history_text(prompt).splitlines():
        match = _LINE.match(line.strip())
        if match:
            lines.append((match.group(1).lower(), match.group(2).strip()))
        elif lines and line.strip():
            speaker, text = lines[-1]
            lines[-1] = (speaker, f"{text} {line.strip()}")
    return lines


def _topic_words(texts: list[str], limit: int) -> list[str]:
    """The conversation's most used uncommon words, first-seen order among equals."""
    counts: Counter[str] = Counter()
    shown: dict[str, str] = {}
    for text in texts:
        for word in _WORD.findall(text):
            key = word.lower().strip("'\u2019-")
            if len(key) < 3 or key in _COMMON:
                continue
            counts[key] += 1
            shown.setdefault(key, word.strip("'\u2019-"))
    ranked = sorted(counts, key=lambda k: -counts[k])  # sorted is stable: ties keep first-seen order
    return [shown[k] for k in ranked[:limit]]


def _title(user_texts: list[str], all_texts: list[str]) -> str:
    first = next((t for t in user_texts if t), "")
    words = _WORD.findall(first)
    if 2 <= len(words) <= 6:
        return " ".join(words)
    topic = _topic_words(user_texts or all_texts, 4)
    if topic:
        return " ".join(w[:1].upper() + w[1:] for w in topic)
    return "Role-play chat"


def background_task(messages: list[dict[str, Any]]) -> BackgroundTask | None:
    """The Open WebUI background task in ``messages``, answered, or None for a chat turn.

    Open WebUI sends each task as a lone user message: a ``### Task:`` heading, guidelines,
    an ``### Output:`` section that asks for JSON with one key (``title``, ``tags``,
    ``follow_ups``, ``queries``), and the conversation inside ``<chat_history>`` as
    ``USER:`` / ``ASSISTANT:`` lines. The answer is built from that conversation only, with
    no model call: nothing of the canon or the persona can reach it, and it costs nothing."""
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    if not users or not isinstance(users[-1].get("content"), str):
        return None
    prompt = users[-1]["content"]
    key = _OUTPUT_KEY.search(prompt)
    if not _TASK.search(prompt) or key is None:
        return None
    kind = key.group(1)
    lines = _history(prompt)
    user_texts = [t for who, t in lines if who == "user"]
    all_texts = [t for _, t in lines]
    topic = _topic_words(all_texts, 3)
    value: Any
    if kind == "title":
        value = _title(user_texts, all_texts)
    elif kind == "tags":
        value = ["Role-play", *[w[:1].upper() + w[1:] for w in topic]]
    elif kind == "queries":
        last = user_texts[-1] if user_texts else ""
        value = [last[:200]] if last else []
    else:
        about = topic[0] if topic else "that"
        value = ["What happened next?", f"Tell me more about {about}.", "How did you feel about it?"]
    return BackgroundTask(kind=kind, text=json.dumps({kind: value}, ensure_ascii=False), history=tuple(lines))


# -- SillyTavern's group chats -------------------------------------------------------------------

#: A speaker label at the start of a line: a short name, then a colon (also a full-width one),
#: then the words. Names hold no sentence punctuation, quotes or brackets and span one line.
_LEADING = re.compile(r"^\s*(?P<name>[^\W\d_][^:\uff1a\n?!,;\"\u201c\u201d()\[\]{}*<>/]{0,63}?)"
                      r"\s*[:\uff1a]\s*(?P<rest>\S.*)\Z", re.DOTALL)
#: At most this many words in a speaker label ("Lamp-Mistress Wren Callow of Harrowmere" is five).
MAX_LABEL_WORDS = 6


@dataclass(frozen=True)
class ClientLine:
    """One ``user`` or ``assistant`` message of a request, as the client wrote it."""

    index: int
    """Where it is in ``messages``."""
    role: Literal["user", "assistant"]
    text: str
    name: str | None = None
    """Its ``name`` field, when it has one (SillyTavern writes the speaker's name there)."""


def message_text(message: dict[str, Any], index: int) -> str:
    """The text of ``messages[index]`` (content parts: the text ones, joined); anything else is
    an ``InputError`` naming the field."""
    content = message.get("content")
    if isinstance(content, list):  # content parts: keep the text ones
        content = "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    if not isinstance(content, str):
        raise InputError(f"messages[{index}].content: expected text")
    return content


def client_lines(messages: list[dict[str, Any]]) -> list[ClientLine]:
    """The ``user`` and ``assistant`` messages of ``messages`` in order (system and developer
    messages are the front end's own and left out), with their ``name`` fields. A wrong role,
    content or name is an ``InputError`` naming the field."""
    lines: list[ClientLine] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        text = message_text(message, index)
        if role in ("system", "developer"):
            continue
        if role not in ("user", "assistant"):
            raise InputError(f"messages[{index}].role: expected system, user or assistant, not {role!r}")
        name = message.get("name")
        if name is not None and not isinstance(name, str):
            raise FieldError(f"messages[{index}].name", "expected text (the speaker's name)")
        lines.append(ClientLine(index=index, role=role, text=text, name=(name or "").strip() or None))
    return lines


def leading_label(text: str) -> tuple[str, str] | None:
    """``("Name", "words")`` when ``text`` opens with a speaker label ``Name: words`` (a short
    name: at most ``MAX_LABEL_WORDS`` words and 64 characters, no sentence punctuation), else
    None. Whether the name is someone's is for the caller to decide."""
    match = _LEADING.match(text)
    if match is None:
        return None
    name = match.group("name").strip()
    if len(name.split()) > MAX_LABEL_WORDS or name.endswith("."):
        return None
    return name, match.group("rest").strip()


def completion_name(name: str) -> str:
    """``name`` as SillyTavern writes it in a message's ``name`` field: every character but
    ``[A-Za-z0-9_]`` made ``_``, at most 64 characters (so ``Aurel Vane`` is ``Aurel_Vane``)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", name)[:64]


def readable_name(name: str) -> str:
    """A ``name`` field read back as a name: underscores as spaces (``Aurel_Vane``: ``Aurel Vane``);
    empty when nothing of it is left (a name of other scripts is all underscores)."""
    return " ".join(name.replace("_", " ").split())
