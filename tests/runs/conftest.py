"""Fixtures for the run store and runner tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from incanon.runs import RunConfig, RunStore


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "runs.sqlite"


@pytest.fixture
def store(store_path: Path):
    with RunStore(store_path) as s:
        yield s


@pytest.fixture
def config() -> RunConfig:
    return RunConfig(benchmark="demo", task="unit test", models={"agent": "scripted"}, seeds=[0])

