"""Prompts in the claim's language: ``sharp_question_zh`` for a Chinese claim, and so on.

The paper asks Chinese claims in Chinese and English ones in English, and its detector reads
the answer in the same language. Every SHARP prompt has a base template (English:
``sharp_question``, ``sharp_stance``, ``sharp_stance_repair``) and may have one per language,
named ``<base>_<code>``; a user's ``--prompts`` folder can add or override either. A language
with no template of its own falls back to the base one, once with a warning, because an English
wrapper around a Chinese claim changes what is measured.
"""

from __future__ import annotations

import logging

from incanon.errors import NotFoundError
from incanon.templates import PromptLibrary

log = logging.getLogger(__name__)

BASE_LANG = "en"
"""The language the base templates are written in."""

_USER = {"en": "the user", "zh": "用户"}
_warned: set[tuple[str, str]] = set()


def prompt_for(prompts: PromptLibrary, base: str, lang: str) -> str:
    """The template name to render for ``base`` in ``lang`` (``base`` itself for English or
    when the language has no template)."""
    if lang == BASE_LANG:
        return base
    name = f"{base}_{lang}"
    try:
        prompts.source(name)
    except NotFoundError:
        if (base, lang) not in _warned:
            _warned.add((base, lang))
            log.warning("no %s template for language %r (%s.j2): using the English one", base, lang, name)
        return base
    return name


def user_name(lang: str) -> str:
    """How the detector prompt names the asker of a backbone item (no role is speaking)."""
    return _USER.get(lang, _USER[BASE_LANG])
