"""``incanon graph build --dry-run``: chunks, model calls, tokens and cost before any call.

Extraction is exact in its structure: per chunk one call, plus ``gleanings`` follow-ups (each
re-sending the conversation so far), up to ``max_attempts`` × 2 calls when replies need repair.
Its completion is assumed as long as the passage (an extraction restates most of it), capped at
``extract_max_tokens``. Integration (same-entity judgements, canonical names, summaries) depends
on what is extracted: it is estimated at ``INTEGRATION_CALLS_PER_CHUNK`` (measured with the
oracle model on the sample world: 72 calls for 52 chunks, ``benchmarks/graph.py``), bounded by 6.
Chunks already extracted in the store are left out, as the build would skip them.
"""

from __future__ import annotations

from collections.abc import Sequence

from incanon.graph.chunking import SourceChunk
from incanon.graph.config import GraphConfig
from incanon.runs.estimate import CallPattern, EstimateLine, RunEstimate, estimate_run
from incanon.runs.records import RunItem
from incanon.templates import PromptLibrary
from incanon.tokens import count_tokens

INTEGRATION_CALLS_PER_CHUNK = 1.4
INTEGRATION_PROMPT_TOKENS = 260
INTEGRATION_COMPLETION_TOKENS = 60


def build_estimate(chunks: Sequence[SourceChunk], config: GraphConfig, model: str,
                   prompts: PromptLibrary | None = None) -> RunEstimate:
    """The predicted model use of extracting and integrating ``chunks``."""
    from incanon.sizing import template_tokens

    base = template_tokens("graph_extract", prompts)
    glean = template_tokens("graph_glean", prompts)
    items = [{"id": c.id, "input": {"tokens": c.tokens}} for c in chunks]

    def extraction(item: RunItem) -> CallPattern:
        tokens = int(item.input["tokens"])
        reply = min(config.extract_max_tokens, max(60, tokens))
        first = base + tokens
        # Gleaning call i re-sends the passage, i replies and i + 1 instructions.
        prompts_total = first + sum(first + (i + 1) * (reply + glean) for i in range(config.gleanings))
        calls = 1 + config.gleanings
        return CallPattern(calls=calls, min_calls=1, max_calls=2 * config.max_attempts + config.gleanings,
                           prompt_tokens=prompts_total // calls, completion_tokens=reply)

    integration = CallPattern(calls=INTEGRATION_CALLS_PER_CHUNK, min_calls=0, max_calls=6,
                              prompt_tokens=INTEGRATION_PROMPT_TOKENS,
                              completion_tokens=INTEGRATION_COMPLETION_TOKENS)
    lines = [
        EstimateLine("extraction (+ gleaning)", model, extraction,
                     note=f"1 + {config.gleanings} calls per chunk; a reply as long as its passage"),
        EstimateLine("normalization + summaries", model, integration,
                     note=f"~{INTEGRATION_CALLS_PER_CHUNK} calls per chunk (sample world); depends on the names found"),
    ]
    return estimate_run(items, lines)


def corpus_tokens(chunks: Sequence[SourceChunk]) -> int:
    """Tokens of the chunks (overlaps counted in each chunk)."""
    return sum(count_tokens(c.text) for c in chunks)
