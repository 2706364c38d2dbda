"""The sample world never replaces a work it did not put in the store (``incanon demo --store``
replaced a user's own ``lanterns`` without a word)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from incanon.canon import CanonStore
from incanon.errors import ConfigError
from incanon.sample import sample_world
from incanon.sample.loading import MARKER, is_sample_work, load_sample_world
from incanon.testing.cli import run_cli


def _users_own_lanterns():
    """A user's work that happens to be called ``lanterns`` (the sample's id)."""
    world = sample_world()
    return world.model_copy(update={"work": world.work.model_copy(update={"title": "My Own Lanterns"})})


def test_a_users_work_of_the_samples_id_is_never_replaced(tmp_path: Path) -> None:
    with CanonStore.open(tmp_path / "mine") as store:
        store.import_world(_users_own_lanterns(), source="mine.json")
        with pytest.raises(ConfigError, match="already holds a work 'lanterns' that is not incanon's sample world"):
            load_sample_world(store, sample_world())
        assert store.work("lanterns").title == "My Own Lanterns"
    assert not (tmp_path / "mine" / MARKER).exists()


def test_the_samples_own_work_is_reloaded_and_remembered(tmp_path: Path) -> None:
    with CanonStore.open(tmp_path / "demo") as store:
        assert load_sample_world(store, sample_world()) == "lanterns"
        assert load_sample_world(store, sample_world()) == "lanterns"  # a re-run of the demo
        assert is_sample_work(store, "lanterns", sample_world())
        recorded = json.loads((tmp_path / "demo" / MARKER).read_text())
        assert list(recorded) == ["lanterns"] and len(recorded["lanterns"]) == 1


def test_an_older_sample_import_without_the_marker_is_still_the_samples(tmp_path: Path) -> None:
    with CanonStore.open(tmp_path / "old") as store:
        store.import_world(sample_world(), source="incanon sample world")  # as the demo did before
        assert load_sample_world(store, sample_world()) == "lanterns"


def test_an_edited_sample_is_the_users_now(tmp_path: Path) -> None:
    with CanonStore.open(tmp_path / "demo") as store:
        load_sample_world(store, sample_world())
        store.import_world(_users_own_lanterns(), replace=True, source="mine.json")  # the user's since
        with pytest.raises(ConfigError):
            load_sample_world(store, sample_world())
        assert store.work("lanterns").title == "My Own Lanterns"


def test_demo_store_with_the_users_lanterns_is_one_line_and_untouched(tmp_path: Path) -> None:
    with CanonStore.open(tmp_path / "mine") as store:
        store.import_world(_users_own_lanterns(), source="mine.json")
    model = tmp_path / "m.json"
    model.write_text('{"rules": [], "default": "Score: 1"}')
    res = run_cli(["demo", "--store", tmp_path / "mine", "--model", f"scripted:{model}", "--judge", f"scripted:{model}", "--no-cache",
                   "--runs", tmp_path / "runs.sqlite"], env={**os.environ, "INCANON_HOME": str(tmp_path / "home")})
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.strip().splitlines()[-1].startswith(
        f"error: the canon store {tmp_path / 'mine'} already holds a work 'lanterns'")
    with CanonStore.open(tmp_path / "mine") as store:
        assert store.work("lanterns").title == "My Own Lanterns"
