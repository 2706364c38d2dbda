"""Moved to :mod:`incanon.sizing` (dry runs of the product's build use it too); kept for imports."""

from incanon.sizing import prompt_tokens, template_tokens, text_tokens

__all__ = ["prompt_tokens", "template_tokens", "text_tokens"]
