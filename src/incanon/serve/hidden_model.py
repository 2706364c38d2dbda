"""``/v1`` error messages with the requested ``model`` value hidden.

The client knows what it sent, and an echo would carry its markup or key-like text into logs and
pages. A message quotes the value (or one of its parts: work, character, position, method) as
``repr`` quotes it; each such quoted piece is found as a whole quoted token, at its first place,
and replaced there once by a name of what it was ("(the requested model)", "(the requested
method)"). Nothing is replaced by substring: a model ``"e"`` or ``"Wren"`` leaves every other
word and the grammar's own examples as they were.
"""

from __future__ import annotations

from collections.abc import Iterable

from incanon.printable import excerpt, quoted

NAMED = "(the requested model)"
_ROLE = {"model": NAMED, "work": "(the requested work)", "character": "(the requested character)",
         "position": "(the requested position)", "method": "(the requested method)"}


def _parts(model: str, methods: Iterable[str]) -> list[tuple[str, str]]:
    """``(role, value)`` of the model and of each part, as the model grammar
    ``[WORK/]CHARACTER@AT[/METHOD]`` splits it (see ``incanon.serve.characters.parse_model``);
    the whole first, so a message quoting the whole names it as the model."""
    text = model.strip()
    found = [("model", model), ("model", text)]
    who, sep, when = text.partition("@")
    if "/" in who:
        work, who = who.split("/", 1)
        found.append(("work", work.strip()))
    found.append(("character", who.strip()))
    if sep:
        if "/" in when:
            head, tail = when.rsplit("/", 1)
            found.append(("method", tail.strip()))
            if tail.strip() in methods:
                found.append(("position", head.strip()))
        found.append(("position", when.strip()))
    return [(role, value) for role, value in found if value]


def _forms(value: str) -> list[str]:
    """The ways a message quotes ``value``: ``repr`` (whole or cut), :func:`quoted`, or an
    escaped excerpt quoted again; longest first, so a match takes the whole quoted token."""
    forms = {repr(value), repr(value[:200]), quoted(value), quoted(value, 200), repr(excerpt(value)),
             repr(repr(value)[1:-1])}
    return sorted(forms, key=len, reverse=True)


def _token_at(message: str, form: str, start: int) -> bool:
    """True when ``form`` at ``start`` is a quoted token of its own: its opening quote does not
    end a word (``Wren's``), and what follows its closing quote does not go on as a word."""
    end = start + len(form)
    before_ok = start == 0 or not message[start - 1].isalnum()
    after_ok = end >= len(message) or not message[end].isalnum() or form[-1] not in "'\""
    return before_ok and after_ok


def without_model(message: str, model: object, methods: Iterable[str] = ()) -> str:
    """``message`` with the request's ``model`` value, and each part of it the message quotes,
    hidden once where it stands (see the module docstring). ``methods``: the method names the
    server offers (they tell a ``/METHOD`` suffix from a position holding a slash)."""
    if not isinstance(model, str) or not model:
        return message
    spans: list[tuple[int, int, str]] = []  # (start, end, placeholder), not overlapping
    hidden_roles: set[str] = set()
    pieces = _parts(model, tuple(methods))
    for role, value in pieces:
        if role in hidden_roles:
            continue
        best: tuple[int, int] | None = None
        for form in _forms(value):
            start = message.find(form)
            while start >= 0:
                end = start + len(form)
                free = all(end <= s or start >= e for s, e, _ in spans)
                if free and _token_at(message, form, start):
                    if best is None or start < best[0]:
                        best = (start, end)
                    break
                start = message.find(form, start + 1)
        if best is not None:
            # Parts may be equal ("0@0/0"): the word before the quote says which one it is.
            said = message[:best[0]].rstrip().rsplit(" ", 1)[-1]
            if said != role and (said, value) in pieces and said not in hidden_roles:
                role = said
            spans.append((*best, _ROLE[role]))
            hidden_roles.add(role)
    out, copied = [], 0
    for start, end, placeholder in sorted(spans):
        out += [message[copied:start], placeholder]
        copied = end
    out.append(message[copied:])
    return "".join(out)
