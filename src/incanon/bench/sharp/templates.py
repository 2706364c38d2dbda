"""Relation templates: how an edge becomes a sentence, one registry entry per language.

A language is a ``Language`` object holding one render function per relation. Each function
takes the head and tail concepts and returns ``Forms``: the plain claim, its negation and an
absolute (universally quantified) version that is false whenever the claim is a commonsense
fact. The counterfactual rules only ever ask a language for these forms, so adding a language
means adding one module, ``incanon/bench/sharp/lang/<code>.py``, that builds a ``Language``
and calls ``register_language``; ``get_language`` imports that module on first use. A plugin can
also register a language from its own package.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from incanon.bench.sharp.conceptnet import Concept
from incanon.errors import ConfigError


class Forms(NamedTuple):
    """Clauses for one (head, relation, tail); the language adds capitals and punctuation."""

    fact: str
    negated: str | None = None
    absolute: str | None = None
    """A universal or "never" version that contradicts the fact (None when it cannot)."""


Renderer = Callable[[Concept, Concept], "Forms | None"]


@dataclass
class Language:
    """Everything language-specific about turning edges into claims."""

    code: str
    name: str
    renderers: dict[str, Renderer] = field(default_factory=dict)
    antonyms: dict[str, str] = field(default_factory=dict)
    """Built-in antonym lexicon (word → opposite), used when the graph has no Antonym edge."""
    verb_antonyms: dict[str, str] = field(default_factory=dict)
    """Built-in antonyms for verbs, used for the verb of a verb phrase."""
    claim_exclude: frozenset[str] = frozenset()
    """Relations that have a template but make poor claims (lexical ones like Antonym)."""
    verbal: Callable[[Concept], bool] = lambda concept: concept.pos == "v"
    """Does a concept read as a verb phrase? (Guesses from the words when the URI has no POS.)"""
    determiners: frozenset[str] = frozenset()
    """Words after which a word is used as a noun ("in the dark"): never swapped for an antonym."""
    word_sep: str = " "
    """How words are joined; '' for languages written without spaces."""
    segment: Callable[[str], list[str]] | None = None
    """Splits a phrase into words when spaces do not (Chinese); None: by ``word_sep``."""
    swappable: Callable[[list[str], int], bool] = lambda words, i: True
    """May word ``i`` of a phrase be swapped for its antonym alone? (Chinese: not a character
    that is the second half of a word the segmenter does not know, "爬高" → "爬矮".)"""
    end_mark: str = "."

    def __post_init__(self) -> None:
        self._memo: dict[tuple[str, Concept, Concept], Forms | None] = {}

    def relation(self, name: str) -> Callable[[Renderer], Renderer]:
        """Decorator: register the render function for relation ``name`` (``"IsA"``)."""

        def register(fn: Renderer) -> Renderer:
            self.renderers[name] = fn
            self._memo.clear()
            return fn

        return register

    def supports(self, relation: str) -> bool:
        """True if this language has a template for the relation."""
        return relation in self.renderers

    def forms(self, relation: str, head: Concept, tail: Concept) -> Forms | None:
        """The finished sentences (capitalised, punctuated) or None if no template fits.

        Memoised: the claim builder asks for the forms of one edge once per rule and once more
        to compare with the fact, and rendering is most of what building claims costs."""
        key = (relation, head, tail)
        cached = self._memo.get(key, _MISSING)
        if cached is _MISSING:
            if len(self._memo) >= _MEMO_SIZE:
                self._memo.clear()
            cached = self._memo[key] = self._render(relation, head, tail)
        return cached  # type: ignore[return-value]

    def _render(self, relation: str, head: Concept, tail: Concept) -> Forms | None:
        render = self.renderers.get(relation)
        if render is None:
            return None
        raw = render(head, tail)
        if raw is None:
            return None
        return Forms(*(self.sentence(c) if c else None for c in raw))

    def sentence(self, clause: str) -> str:
        """Capitalise the first letter, collapse spaces and end with the end mark."""
        text = " ".join(clause.split()) if self.word_sep == " " else "".join(clause.split())
        if not text:
            return text
        text = text[0].upper() + text[1:]
        return text if text.endswith((".", "!", "?", "。", "！", "？", self.end_mark)) else text + self.end_mark

    def words(self, text: str) -> list[str]:
        """Split a lemma into words (the language's segmenter, else characters for languages
        without spaces)."""
        if self.segment is not None:
            return self.segment(text)
        return text.split() if self.word_sep else list(text)

    def replacements(
        self, text: str, opposites: Callable[[str, int], list[str]]
    ) -> Iterator[tuple[str, str, str]]:
        """Yield (new text, old word, new word): the whole phrase first, then single words.

        ``opposites(word, position)`` returns the word's antonyms, best first; position is the
        word's index in the phrase, or -1 for the whole phrase.
        """
        for new in opposites(text, -1):
            yield new, text, new
        words = self.words(text)
        if len(words) < 2:
            return
        for i, word in enumerate(words):
            if i > 0 and words[i - 1].casefold() in self.determiners or not self.swappable(words, i):
                continue
            for new in opposites(word, i):
                changed = words[:i] + [new] + words[i + 1 :]
                yield self.word_sep.join(changed), word, new


_MISSING = object()
_MEMO_SIZE = 500_000
"""Forms kept per language before the memo starts over (a few hundred bytes each)."""

_REGISTRY: dict[str, Language] = {}


def register_language(language: Language) -> Language:
    """Make ``language`` available to ``get_language(language.code)`` (replaces an older one)."""
    _REGISTRY[language.code] = language
    return language


def get_language(code: str) -> Language:
    """The language registered under ``code``, importing ``lang/<code>.py`` on first use."""
    if code not in _REGISTRY:
        if code.isidentifier():
            try:
                importlib.import_module(f"incanon.bench.sharp.lang.{code}")
            except ModuleNotFoundError as exc:
                if exc.name != f"incanon.bench.sharp.lang.{code}":
                    raise
    if code not in _REGISTRY:
        known = ", ".join(sorted(set(_REGISTRY) | set(available_languages()))) or "none"
        raise ConfigError(f"no claim templates for language {code!r} (available: {known})")
    return _REGISTRY[code]


def available_languages() -> list[str]:
    """Codes of registered languages plus the built-in modules not imported yet."""
    from importlib import resources

    builtin = {
        p.name[:-3]
        for p in resources.files("incanon.bench.sharp.lang").iterdir()
        if p.name.endswith(".py") and not p.name.startswith("_")
    }
    return sorted(builtin | set(_REGISTRY))
