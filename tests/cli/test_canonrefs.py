"""Opening the canon store a command names, and picking its work."""

from __future__ import annotations

import pytest

from incanon.canon import CanonStore
from incanon.canon.schema import DB_NAME
from incanon.canon.world import WorkInfo, World
from incanon.cli.canonrefs import open_canon, pick_work, require_canon
from incanon.errors import ConfigError, NotFoundError


def test_a_plain_folder_is_not_a_store_and_stays_empty(tmp_path):
    with pytest.raises(NotFoundError, match=f"no canon store at {tmp_path} .*incanon canon import FILE --store"):
        open_canon(tmp_path)
    with pytest.raises(NotFoundError, match="incanon dialsim ingest SCRIPT"):
        require_canon(tmp_path, "incanon dialsim ingest SCRIPT --store {path}")
    assert list(tmp_path.iterdir()) == []
    with open_canon(tmp_path / "new", create=True):
        pass
    assert (tmp_path / "new" / DB_NAME).is_file() and require_canon(tmp_path / "new") == tmp_path / "new"


def test_pick_work_by_name_only_one_or_axis(tmp_path):
    with CanonStore.open(tmp_path) as store:
        with pytest.raises(NotFoundError, match="holds no work; give --work"):
            pick_work(store, None, none_hint="give --work NAME to create one")
        store.import_world(World(work=WorkInfo(id="a", title="A")))
        assert pick_work(store, None) == "a"
        store.import_world(World(work=WorkInfo(id="b", title="B")))
        with pytest.raises(ConfigError, match=r"several works \(a, b\); choose one with --work"):
            pick_work(store, None)
        assert pick_work(store, "b") == "b"
        with pytest.raises(NotFoundError, match="no dated dialogue"):
            pick_work(store, None, axis="date", noun=("dated dialogue", "dialogues"))


def _incanon(*args: str, home, canon=None):  # noqa: ANN001, ANN202 - paths; a CompletedProcess
    import os

    from incanon.testing.cli import run_cli

    env = {k: v for k, v in os.environ.items() if k not in ("INCANON_CANON", "INCANON_HOME")}
    env["INCANON_HOME"] = str(home)
    if canon is not None:
        env["INCANON_CANON"] = str(canon)
    return run_cli(args, env=env)


def test_benchmark_commands_without_store_use_the_one_default(tmp_path):
    """DialSim, the graph, RoleRAG and TimeChara default to INCANON_CANON / INCANON_HOME/canon as
    the canon commands do: what one command builds there, the next one finds."""
    from pathlib import Path

    bakery = Path(__file__).resolve().parents[2] / "examples" / "dialsim" / "bakery.txt"
    proc = _incanon("dialsim", "ingest", str(bakery), home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "canon" / DB_NAME).is_file()
    shown = _incanon("canon", "show", "--json", home=tmp_path)
    assert shown.returncode == 0 and '"bakery"' in shown.stdout, shown.stderr
    # a reading command on a default store that does not exist says how to make one, creates nothing
    other = tmp_path / "elsewhere"
    proc = _incanon("graph", "show", home=tmp_path, canon=other)
    assert proc.returncode == 2 and f"no canon store at {other}" in proc.stderr
    assert not other.exists()
    for command in (("rolerag", "questions", "--out", str(tmp_path / "q.jsonl")),
                    ("timechara", "build", "--out", str(tmp_path / "items.jsonl"))):
        proc = _incanon(*command, home=tmp_path, canon=other)
        assert proc.returncode == 2 and f"no canon store at {other}" in proc.stderr, (command, proc.stderr)
    assert not other.exists()


def test_builders_take_helper_and_the_older_model_spelling_with_a_note(tmp_path):
    """`graph build` and `coser curate` name their model --helper as every data builder does;
    --model still works for one release and says so."""
    from pathlib import Path

    corpus = Path(__file__).resolve().parents[2] / "examples" / "rolerag" / "clara_voss.txt"
    old = _incanon("graph", "build", str(corpus), "--store", str(tmp_path / "s"), "--work", "w", "--axis", "date",
                   "--model", "scripted:x.json", "--dry-run", home=tmp_path)
    assert old.returncode == 0, old.stderr
    assert "--model is deprecated here; use --helper" in old.stderr
    both = _incanon("graph", "build", str(corpus), "--store", str(tmp_path / "s"), "--work", "w",
                    "--model", "scripted:x.json", "--helper", "scripted:y.json", "--dry-run", home=tmp_path)
    assert both.returncode == 2 and "disagree; give --helper only" in both.stderr
    new = _incanon("graph", "build", str(corpus), "--store", str(tmp_path / "s"), "--work", "w", "--axis", "date",
                   "--helper", "scripted:x.json", "--dry-run", home=tmp_path)
    assert new.returncode == 0 and "deprecated" not in new.stderr, new.stderr
