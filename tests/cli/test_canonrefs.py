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
