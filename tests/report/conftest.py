"""A run store with scripted runs of the demo and of TimeChara (two methods), made once."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from incanon.testing.sample_runs import make_sample_runs


@pytest.fixture(scope="session")
def report_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``runs_path``, the ``demo`` run id and the two ``timechara`` run ids."""
    runs = asyncio.run(make_sample_runs(tmp_path_factory.mktemp("report-runs")))
    return {"runs_path": runs.runs_path, "demo": runs.demo, "timechara": runs.timechara}
