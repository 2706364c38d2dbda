"""Suite-wide isolation: no test reads or writes the user's ~/.incanon or talks to a real API."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _isolated_incanon_home(tmp_path_factory: pytest.TempPathFactory) -> None:
    os.environ["INCANON_HOME"] = str(tmp_path_factory.mktemp("incanon-home"))
    os.environ.pop("INCANON_PROMPTS", None)
    # A developer's real endpoint settings must not leak into offline tests.
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        os.environ.pop(name, None)
