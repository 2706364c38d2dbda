"""The reader's surfaces under the leak audit: the timeline a reader at a point is sent is an
audited surface, read as text (stops, titles, labels, names) against what such a reader has read;
a later scene title or label planted in it is reported. And a check that shares no word test:
markers planted in every later text never reach the timeline or the listing of a reader before
them, while the ``--spoilers`` timeline carries them (so the check can fail)."""

from __future__ import annotations

import asyncio
import importlib
import json
from pathlib import Path

import pytest

from incanon.audit import audit_work
from incanon.audit.canaries import found_in, plant
from incanon.canon import CanonStore
from incanon.canon.position import Position
from incanon.graph import HashEmbedder
from incanon.sample import sample_world
from incanon.serve import ServeConfig
from incanon.serve.model_list import model_entries
from incanon.serve.reader import ReaderView
from incanon.serve.timeline import timeline

READERS = ("1-1-2", "1-3", "2-2", "2-4", "3-2-1")
#: The module itself (``incanon.serve.timeline`` the attribute is the function it exports).
timeline_module = importlib.import_module("incanon.serve.timeline")


@pytest.fixture(scope="module")
def lanterns(tmp_path_factory: pytest.TempPathFactory):
    store = CanonStore.open(tmp_path_factory.mktemp("reader-audit") / "canon")
    store.import_world(sample_world())
    yield store
    store.close()


def _timeline_leaks(store: CanonStore) -> tuple[int, list[dict]]:
    report = asyncio.run(audit_work(store, "lanterns", methods=("in-canon",), embedder=HashEmbedder(),
                                    characters=["Wren"], placement=False))
    rows = [f.to_dict() for f in report.findings if f.surface == "timeline"]
    assert len(rows) == len(report.points) > 0  # audited at every point
    return report.strict_leaks(), [r for r in rows if r["total"]]


def test_the_audit_reads_the_timeline_and_catches_a_planted_later_title_and_label(lanterns, monkeypatch):
    strict, leaking = _timeline_leaks(lanterns)
    assert strict == 0 and leaking == [], leaking
    # Plant what a careless timeline would send: a scene title of book 3 (3-3-1) and a later
    # label (Ilse's, 3-3-1) added to the first stop a reader at any point gets. (The word check
    # sees names and words only later material uses: a later title of everyday words, "Trim the
    # wick you've got", would pass it; the structure test below catches those.)
    full = timeline(lanterns, "lanterns", ReaderView(spoilers=True))
    later_title = next(s for s in full["stops"] if s["at"] == "3-3-1")["scenes"][0]["title"]
    later_label = "her wedding day"
    assert later_title == "The wedding on the water"
    real = timeline_module.timeline

    def careless(store, work, view=None, **kw):
        line = real(store, work, view, **kw)
        first = line["stops"][0]
        first["scenes"] = [*first["scenes"], {"id": "x", "title": later_title, "date": None, "participants": []}]
        first["marks"] = [*first["marks"], {"character": "Wren Callow", "label": later_label}]
        return line

    monkeypatch.setattr(timeline_module, "timeline", careless)
    with CanonStore.open(lanterns.path) as again:  # a store of its own: nothing built for the first run
        strict, leaking = _timeline_leaks(again)
    early = [r for r in leaking if Position.parse(r["at"]) < Position.parse("3-3-1")]
    # Where a reader has not yet met the word (by 2-4 the wedding is spoken of, so it is not news).
    assert strict > 0 and {"1-3", "2-3-1"} <= {r["at"] for r in early}, "the planted title went unreported"
    assert all("wed" in r["items"].get("hidden_terms", []) for r in early)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory):
    """The sample world with a marker in every text that may be hidden (``audit.canaries``)."""
    world, canaries = plant(sample_world())
    root = tmp_path_factory.mktemp("reader-canaries") / "canon"
    with CanonStore.open(root) as store:
        store.import_world(world)
    return root, canaries


def _later_markers(text: str, canaries, at: Position) -> list[str]:
    return [canaries[i].where for i in found_in(text)
            if canaries[i].position is not None and canaries[i].position > at]


@pytest.mark.parametrize("at", READERS)
def test_no_later_marker_reaches_a_readers_timeline_or_listing(planted, at):
    root, canaries = planted
    reader = Position.parse(at)
    with CanonStore.open(root) as store:
        line = timeline(store, "lanterns", ReaderView(at=reader))
        everything = timeline(store, "lanterns", ReaderView(spoilers=True))
    assert _later_markers(json.dumps(line), canaries, reader) == []
    listing = model_entries(ServeConfig(canon=root, runs=Path(root).parent / "runs.sqlite"), at)
    assert listing and _later_markers(json.dumps(listing), canaries, reader) == []
    # The whole timeline carries later markers: the check sees them when they are sent.
    assert _later_markers(json.dumps(everything), canaries, reader)


def test_no_marker_at_all_reaches_the_timeline_or_listing_without_a_reader(planted):
    # Without a reader position nothing is named by text: not even an early scene's title.
    root, _ = planted
    with CanonStore.open(root) as store:
        line = timeline(store, "lanterns")
    listing = model_entries(ServeConfig(canon=root, runs=Path(root).parent / "runs.sqlite"))
    assert found_in(json.dumps(line)) == [] and found_in(json.dumps(listing)) == []


def test_a_person_with_an_unrevealed_secret_name_is_not_a_listed_participant(tmp_path) -> None:
    from incanon.canon import CanonStore
    from incanon.canon.position import Position
    from incanon.serve.reader import ReaderView
    from incanon.serve.timeline import timeline

    from tests.canon.secret_world import secret_world

    store = CanonStore.open(tmp_path / "canon")
    world = secret_world()
    # Crane himself knocks the child down in scene s1: the scene lists his person, Aurel Vane.
    world.scenes[0].participants.append("Aurel Vane")
    store.import_world(world)

    def present(at: str) -> set[str]:
        data = timeline(store, "vane", ReaderView(at=Position.parse(at)))
        return {p for stop in data["stops"] for p in stop["participants"]}

    assert "Aurel Vane" not in present("1-2-1")
    assert "Aurel Vane" in present("1-3-1")  # the reader has read the reveal
