"""Prompt sets of the simulation: incanon's own prompts, or ones built like CoSER's (``--prompt-set``).

A set renames some templates. The ``paper`` set keeps the structure and the constraints of the
prompts in CoSER's ``gca_evaluation`` (the fixed role-play template of the paper's Table 18),
written in incanon's own words:

- ``coser_paper_act_system``: "you are X from BOOK", then ``===``-headed sections for the
  character's profile, the current scenario, the other characters, the character's inner
  thoughts, the background it recalls (retrieval) and the requirements (speech, (actions),
  [thoughts], with or without output examples), closed by the reference's instruction to answer
  briefly, in at most 60 words;
- ``coser_paper_act_start``: the first user message, ``===Conversation Start===``;
- ``coser_paper_act_cue``: empty (the reference adds no turn cue);
- ``coser_paper_nsp_system`` / ``coser_paper_nsp_ask``: the predictor reasons first and ends with
  a ``Next Speaker:`` line; a name, ``random`` or ``<END CHAT>``.

The environment model's prompt (``coser_env_system``) already has the reference's structure and
is shared by both sets. Every template can still be overridden with ``--prompts DIR``.
"""

from __future__ import annotations

from incanon.templates import PROMPT_SETS, check_prompt_set  # noqa: F401  (re-exported: the CLI reads them here)

_STEPS = {"paper": frozenset({"act_system", "act_start", "act_cue", "nsp_system", "nsp_ask"})}


def template_name(step: str, prompt_set: str = "") -> str:
    """``coser_<set>_<step>`` when the set has its own template for ``step``, else ``coser_<step>``."""
    if prompt_set and step in _STEPS.get(prompt_set, ()):
        return f"coser_{prompt_set}_{step}"
    return f"coser_{step}"
