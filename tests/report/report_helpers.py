"""Shared pieces of the report tests: what an external reference in HTML looks like."""

from __future__ import annotations

import re

#: Anything that would make the HTML fetch something: a remote src/href, CSS url(), imports, scripts.
EXTERNAL = re.compile(r"""(?:src|href|action)\s*=\s*["']?\s*(?:https?:)?//|url\(|@import|<script|<link""", re.I)
