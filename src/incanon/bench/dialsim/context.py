"""How much remembered text fits in the model's prompt: the model's own context size.

The paper's Base LLM prefixes "latest utterances as much allowed by the model's context
length", and the reference code fills that context up to 500 tokens short of the model's size
(``max_token_len - 500``). Retrieval strategies take their top k and, like the reference, are
cut only by what the context holds. incanon does the same by default; ``--context-tokens N``
caps it (a smaller budget for a quick or cheap run).

The size comes from the model when it says (a local GGUF model's ``n_ctx``), else from the
reference's table of model names, else the reference's fallback of 4,000 tokens.
"""

from __future__ import annotations

from typing import Any

RESERVE_TOKENS = 500
"""Kept free for the instructions, the question and the answer (the reference's margin)."""
FALLBACK_TOKENS = 4000
"""The reference's size for a model it knows nothing about."""
_BY_NAME = (("gpt-3.5-turbo", 16000), ("gpt-4", 128000), ("claude", 200000), ("gemini", 32000),
            ("tulu", 6000), ("llama3.1", 8196))


def model_context_tokens(model: Any) -> tuple[int, str]:
    """(context size in tokens, where it came from) for ``model`` (wrappers are looked through)."""
    seen = model
    for _ in range(10):  # accounting → cache → retry → limit → backend
        n_ctx = getattr(seen, "n_ctx", None)
        if isinstance(n_ctx, int) and n_ctx > 0:
            return n_ctx, "the model's n_ctx"
        inner = getattr(seen, "inner", None)
        if inner is None:
            break
        seen = inner
    name = str(getattr(model, "name", "")).lower()
    for key, size in _BY_NAME:
        if key in name:
            return size, f"the reference's size for {key} models"
    return FALLBACK_TOKENS, "the reference's fallback (model size unknown)"


def history_budget(model: Any, cap: int | None) -> tuple[int, str]:
    """Tokens of remembered text a prompt may hold: the model's context minus the reserve, or
    ``cap`` when given (and smaller)."""
    size, source = model_context_tokens(model)
    budget = max(100, size - RESERVE_TOKENS)
    if cap is not None and cap < budget:
        return cap, "--context-tokens"
    return budget, f"{size} tokens ({source}) minus {RESERVE_TOKENS}"
