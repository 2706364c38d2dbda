"""Claim templates per language: ``en`` and ``zh`` are built in; add ``<code>.py`` here to add one.

A language module builds a ``incanon.bench.sharp.templates.Language``, registers one render
function per relation with ``@language.relation("IsA")`` and calls ``register_language``.
Modules whose name starts with ``_`` hold helpers (grammar, word lists) and are not languages.
The prompts a role and the detector see come from ``sharp_question_<code>``,
``sharp_stance_<code>`` and ``sharp_stance_repair_<code>`` templates (English when missing).
"""
