"""``provider/model`` specs: the spelling other tools use (``ollama/llama3.1``, ``vllm/NAME``).

Each provider is an OpenAI-compatible endpoint with its usual base URL and the environment
variable its key is read from; ``provider/MODEL`` means ``openai:MODEL@BASE_URL?key_env=ENV``.
A base URL after ``@`` still wins (``vllm/qwen@http://gpu-box:8001/v1``), as does ``?key_env=``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Provider:
    """An OpenAI-compatible service or local server kind."""

    name: str
    base_url: str | None
    """None: ``$OPENAI_BASE_URL``, else OpenAI's."""
    key_env: str | None
    """Environment variable holding the key; None for local servers that need none."""
    example: str
    """A model name to show in ``incanon models``."""


PROVIDERS: dict[str, Provider] = {p.name: p for p in (
    Provider("openai", None, "OPENAI_API_KEY", "gpt-4o-mini"),
    Provider("ollama", "http://127.0.0.1:11434/v1", None, "llama3.1"),
    Provider("vllm", "http://127.0.0.1:8000/v1", None, "Qwen/Qwen2.5-7B-Instruct"),
    Provider("llamacpp", "http://127.0.0.1:8080/v1", None, "local"),
    Provider("lmstudio", "http://127.0.0.1:1234/v1", None, "qwen2.5-7b-instruct"),
    Provider("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", "meta-llama/llama-3.1-8b-instruct"),
    Provider("together", "https://api.together.xyz/v1", "TOGETHER_API_KEY", "meta-llama/Llama-3.3-70B-Instruct-Turbo"),
    Provider("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY", "llama-3.1-8b-instant"),
    Provider("deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", "deepseek-chat"),
    Provider("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY", "mistral-small-latest"),
)}
"""Known providers, by the word before the ``/``."""


def split_provider(base: str) -> tuple[Provider, str] | None:
    """``(provider, model)`` when ``base`` (a spec without options) starts with a known
    ``provider/``; else None."""
    head, sep, rest = base.partition("/")
    provider = PROVIDERS.get(head.lower()) if sep else None
    if provider is None or not rest:
        return None
    return provider, rest
