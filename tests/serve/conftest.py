"""Fixtures of the web app tests: scripted runs in a run store, a small canon, a scripted model."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from incanon.canon import CanonStore
from incanon.models import load_chat_model
from incanon.serve import ServeConfig, create_app
from incanon.testing.sample_runs import SampleRuns, make_sample_runs
from incanon.testing.worlds import mini_world

from serve_helpers import character_model

@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> SampleRuns:
    """Scripted demo and TimeChara runs; ``canon`` is the mini world (cheap to embed)."""
    root = tmp_path_factory.mktemp("serve")
    runs = asyncio.run(make_sample_runs(root))
    canon = root / "mini-canon"
    with CanonStore.open(canon) as store:
        store.import_world(mini_world())
    return SampleRuns(runs_path=runs.runs_path, canon=canon, demo=runs.demo, timechara=runs.timechara)


@pytest.fixture
def serve_config(served: SampleRuns) -> ServeConfig:
    return ServeConfig(canon=served.canon, runs=served.runs_path, model="scripted-character", cache=False)


@pytest.fixture
def client(serve_config: ServeConfig) -> Iterator[TestClient]:
    app = create_app(serve_config, model=load_chat_model(character_model()))
    with TestClient(app, base_url="http://127.0.0.1") as test_client:
        yield test_client


@pytest.fixture(scope="module")
def canon_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The app over the mini world alone (no runs to build: seconds, not a minute), for tests
    that only chat; shared by a module's tests, which must not change what it serves."""
    root = tmp_path_factory.mktemp("serve-canon")
    with CanonStore.open(root / "canon") as store:
        store.import_world(mini_world())
    config = ServeConfig(canon=root / "canon", runs=root / "runs.sqlite", model="scripted-character", cache=False)
    app = create_app(config, model=load_chat_model(character_model()))
    with TestClient(app, base_url="http://127.0.0.1") as test_client:
        yield test_client
