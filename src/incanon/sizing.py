"""Token sizes of the prompts a benchmark sends, for ``--dry-run`` estimates.

A dry run calls no model; sizes are counted with incanon's one token counter
(:mod:`incanon.tokens`: the embedded GGUF's vocabulary, no weights loaded, else a documented
estimate) over the template's own text (its jinja placeholders and tags left out) plus the text
the placeholders will receive. Another model's tokenizer differs by some percent; the call
counts, not these sizes, are what a dry run gets exactly right.
"""

from __future__ import annotations

import re
from typing import Iterable

from incanon.templates import PromptLibrary, default_library

MESSAGE_OVERHEAD = 4
"""Tokens a chat template adds around each message (role markers)."""

_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)


def text_tokens(text: str | None) -> int:
    """Tokens of ``text`` (0 for none) by incanon's one token counter (:mod:`incanon.tokens`)."""
    from incanon.tokens import count_tokens

    return count_tokens(text or "")


def template_tokens(name: str, prompts: PromptLibrary | None = None) -> int:
    """Approximate tokens of template ``name``'s fixed text (the override in ``prompts`` if any),
    placeholders excluded: add the sizes of what fills them."""
    text, _ = (prompts or default_library()).source(name)
    return text_tokens(_JINJA.sub("", text)) + MESSAGE_OVERHEAD


def prompt_tokens(name: str, fills: Iterable[str | None] = (), prompts: PromptLibrary | None = None,
                  extra: int = 0) -> int:
    """Approximate prompt tokens of one call rendering ``name`` with the texts ``fills`` (plus
    ``extra`` tokens known only as a figure, e.g. an answer not written yet)."""
    return template_tokens(name, prompts) + sum(text_tokens(t) for t in fills) + extra
