"""Prompt templates: every prompt incanon sends is a jinja2 file a user can override.

Built-in templates live in ``incanon/prompts/<name>.j2``. A user points ``INCANON_PROMPTS`` (or
``--prompts DIR`` on commands that take it) at a folder; a file there with the same name wins,
so anyone can drop in a paper's exact wording. Templates render in jinja2's sandbox with
``StrictUndefined``: a placeholder left unfilled is an error, never silent text (one of the
reference evaluators shipped a rubric with ``{major_characters}`` left in it).

Each run records the sha256 of every template it rendered, so results say which wording made them.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Callable

from jinja2 import StrictUndefined, TemplateSyntaxError, UndefinedError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from incanon.errors import ConfigError, InputError, NotFoundError

_BUILTIN = "prompts"


@lru_cache(maxsize=None)
def _builtin_text(filename: str) -> str | None:
    """A built-in template's text, None when there is none. Read once per process: they ship
    inside the package, and reading the file on every render cost about a millisecond of a
    chat reply's CPU (override templates are still read each time, so edits show at once)."""
    builtin = resources.files("incanon").joinpath(_BUILTIN, filename)
    return builtin.read_text(encoding="utf-8") if builtin.is_file() else None


def _env() -> ImmutableSandboxedEnvironment:
    return ImmutableSandboxedEnvironment(
        undefined=StrictUndefined, keep_trailing_newline=False, autoescape=False
    )


@dataclass(frozen=True)
class ExactPrompt:
    """A prompt taken word for word from a reference implementation the user has (``--prompts-from
    DIR``): its text, where it came from, and how incanon's template variables fill it (the
    reference's own placeholder syntax, not jinja2)."""

    text: str
    origin: str
    fill: Callable[[str, dict[str, Any]], str]
    """(text, incanon's variables) → the prompt."""


class PromptLibrary:
    """Finds, renders and fingerprints prompt templates, user overrides first."""

    def __init__(self, override_dir: str | Path | None = None):
        env_dir = os.environ.get("INCANON_PROMPTS")
        chosen = override_dir if override_dir is not None else env_dir
        self.override_dir = Path(chosen).expanduser() if chosen else None
        if self.override_dir is not None and not self.override_dir.is_dir():
            raise ConfigError(f"prompt folder {self.override_dir} does not exist or is not a folder")
        self._env = _env()
        self._compiled: dict[str, Any] = {}
        """Source text → compiled template: compiling costs ~10 ms, rendering microseconds."""
        self.used: dict[str, str] = {}
        """Template name → sha256 of the source that was rendered (for run configs)."""
        self.exact: dict[str, ExactPrompt] = {}
        """Template name → a reference's own prompt used in its place (``--prompts-from``)."""

    def source(self, name: str) -> tuple[str, str]:
        """Return (template text, where it came from)."""
        filename = f"{name}.j2"
        if self.override_dir is not None:
            candidate = self.override_dir / filename
            if candidate.is_file():
                return candidate.read_text(encoding="utf-8"), str(candidate)
        text = _builtin_text(filename)
        if text is None:
            raise NotFoundError(f"no prompt template named {name!r} (looked for {filename})")
        return text, f"incanon/{_BUILTIN}/{filename}"

    def render(self, name: str, **variables: Any) -> str:
        """Render template ``name`` with ``variables``; unknown placeholders are errors."""
        exact = self.exact.get(name)
        if exact is not None:
            self.used[name] = fingerprint(exact.text)
            try:
                return exact.fill(exact.text, variables)
            except (KeyError, IndexError, ValueError) as exc:
                raise InputError(f"the reference's prompt has a placeholder incanon cannot fill: {exc}",
                                 source=exact.origin) from None
        text, origin = self.source(name)
        try:
            template = self._compiled.get(text)
            if template is None:
                template = self._compiled[text] = self._env.from_string(text)
            rendered = template.render(**variables)
        except TemplateSyntaxError as exc:
            raise InputError(f"template syntax error: {exc.message}", source=origin, where=f"line {exc.lineno}") from None
        except UndefinedError as exc:
            raise InputError(f"template needs a value that was not given: {exc.message}", source=origin) from None
        self.used[name] = fingerprint(text)
        return rendered.strip()


def fingerprint(text: str) -> str:
    """Short sha256 of a template's source."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@lru_cache(maxsize=1)
def default_library() -> PromptLibrary:
    """The process-wide library (honours ``INCANON_PROMPTS``)."""
    return PromptLibrary()


PROMPT_SETS: tuple[str, ...] = ("incanon", "paper")
"""Named prompt sets a benchmark may offer: incanon's own wording, or the paper's structure and
fields written in incanon's words (``--prompt-set paper``)."""


def check_prompt_set(name: str | None) -> str:
    """The set's template infix (``""`` for incanon's own prompts); an unknown name is a
    ``ConfigError`` listing the sets."""
    from incanon.errors import ConfigError

    if name in (None, "", "incanon"):
        return ""
    if name not in PROMPT_SETS:
        raise ConfigError(f"unknown prompt set {name!r}; use one of: {', '.join(PROMPT_SETS)}")
    return name
