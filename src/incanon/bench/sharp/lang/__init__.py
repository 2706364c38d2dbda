"""Claim templates per language: ``en`` is built in; add ``<code>.py`` here to add a language.

A language module builds a ``incanon.bench.sharp.templates.Language``, registers one render
function per relation with ``@language.relation("IsA")`` and calls ``register_language``.
Modules whose name starts with ``_`` hold helpers (grammar, word lists) and are not languages.
"""
