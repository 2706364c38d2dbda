"""Moved to :mod:`incanon.llmout.structured` (shared with ``canon build``); kept for imports."""

from incanon.llmout.structured import HelperOutputError, ask_structured, parse_structured

__all__ = ["HelperOutputError", "ask_structured", "parse_structured"]
