"""Few-shot examples in the TimeChara authors' layout (``methods/few_shot/<series>.json``).

Each file is a JSON object: ``"<character>-<book>-<day>"`` → a block of worked examples, one
per data type, written as ``Question: ... / Response: ...`` pairs separated by ``***``. The key
is the character's time point as the published rows write it: ``Hermione Granger-2-on
Halloween`` (Harry Potter: the school year's number and the day), ``Frodo Baggins-1-at the end
of the scene`` (other series: the book and the named moment; a period without one is the end of
the scene). Keys are matched exactly, then ignoring case and punctuation. A missing key is an
error naming it, never an example-less prompt.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from incanon.errors import InputError, NotFoundError
from incanon.reading import read_json

END_OF_SCENE = "at the end of the scene"


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def example_key(character: str, period: str) -> str:
    """The authors' key of a published time point (``2nd-year / on Halloween`` → book ``2``)."""
    head, _, day = period.partition("/")
    digits = re.findall(r"\d+", head)
    # The authors take the first character of "2nd-year" as the book; the number is the same.
    book = digits[0] if digits else head.strip()
    return f"{character}-{book}-{day.strip() or END_OF_SCENE}"


class PublishedExamples:
    """The examples of one or more authors' few-shot files, looked up by time point."""

    def __init__(self, path: str | Path) -> None:
        path = Path(path).expanduser()
        if path.is_dir():
            files = sorted(p for p in path.glob("*.json") if not p.name.startswith("."))
            if not files:
                raise InputError("the folder holds no few-shot .json files", source=str(path))
        elif path.exists():
            files = [path]
        else:
            raise NotFoundError(f"no few-shot examples file or folder at {path}")
        self.blocks: dict[str, str] = {}
        self.sources: dict[str, str] = {}
        for file in files:
            data = read_json(file, "few-shot examples file")
            if not isinstance(data, dict):
                raise InputError("expected a JSON object of '<character>-<book>-<day>' → examples",
                                 source=str(file))
            for key, value in data.items():
                if not isinstance(value, str) or not value.strip():
                    raise InputError("expected a non-empty text of examples", source=str(file), where=f"key {key!r}")
                self.blocks[key] = value.strip()
                self.sources[key] = str(file)
        self._normalized = {_norm(k): k for k in self.blocks}

    def key_for(self, character: str, period: str) -> str | None:
        """The stored key of a character's time point, or None. After the exact and the
        normalized key, one near spelling of the same character and book is accepted (the
        paper and the code spell some moments differently: "first confirmed" / "first
        confirm"), only when it is the single close one."""
        wanted = example_key(character, period)
        if wanted in self.blocks:
            return wanted
        found = self._normalized.get(_norm(wanted))
        if found is not None:
            return found
        prefix = _norm(f"{character}-{wanted[len(character) + 1:].split('-', 1)[0]}")
        close = [k for n, k in self._normalized.items() if n.startswith(prefix)
                 and difflib.SequenceMatcher(None, n, _norm(wanted)).ratio() >= 0.95]
        return close[0] if len(close) == 1 else None

    def block(self, character: str, period: str) -> tuple[str, str]:
        """``(key, examples)`` of a time point; ``InputError`` when there are none."""
        key = self.key_for(character, period)
        if key is None:
            raise InputError(f"no few-shot examples for {example_key(character, period)!r} "
                             f"({len(self.blocks)} keys loaded)")
        return key, self.blocks[key]
