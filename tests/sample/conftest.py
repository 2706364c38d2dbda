"""Shared views of the packaged sample world."""

from __future__ import annotations

import pytest

from incanon.canon.position import Position
from incanon.sample import ground_truth, name_index, sample_books, sample_sessions, sample_world

MAIN_CHARACTERS = [
    "Wren Callow", "Ottilie Brand", "Dace Morrow", "Jory Callow",
    "Ilse Varga", "Sefa Quill", "Aldric Hame", "Garrick Rusk",
]


@pytest.fixture(scope="session")
def world():
    return sample_world()


@pytest.fixture(scope="session")
def annotations():
    return ground_truth()


@pytest.fixture(scope="session")
def books():
    return sample_books()


@pytest.fixture(scope="session")
def sessions():
    return sample_sessions()


@pytest.fixture(scope="session")
def names(world):
    return name_index(world)


@pytest.fixture(scope="session")
def scenes(world):
    return {scene.id: scene for scene in world.scenes}


def pos(text: str) -> Position:
    return Position.parse(text)
