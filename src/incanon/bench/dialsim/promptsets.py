"""Prompt sets: incanon's own DialSim prompts, or ones built like the paper's (``--prompt-set``).

A set is a prefix of template names: the default set renders ``dialsim_answer``,
``dialsim_summary`` and ``dialsim_judge``; the ``paper`` set renders ``dialsim_paper_answer``,
``dialsim_paper_summary`` and ``dialsim_paper_judge``. The paper set keeps the structure and
fields of the authors' prompts (the agent named as a long-term conversational agent, numbered
rules, the date the question is asked, a "[Retrieved Dialogue History]" block, or "[Dialogue
History]" for the Base LLM, the asker's question with its choices laid out as the reference lays
them out, then "[Answer]"), written in incanon's own words, so results can be set beside the
paper's Tables 3-4. Every template can still be overridden with ``--prompts DIR``.
"""

from __future__ import annotations

from incanon.templates import PROMPT_SETS, check_prompt_set  # noqa: F401  (re-exported: the CLI reads them here)


def template_name(step: str, prompt_set: str = "") -> str:
    """``dialsim_<set>_<step>`` (or ``dialsim_<step>`` for the default set)."""
    return f"dialsim_{prompt_set}_{step}" if prompt_set else f"dialsim_{step}"
