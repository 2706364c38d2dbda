from __future__ import annotations

import asyncio

import pytest

from dialsim_helpers import sample_store
from incanon.bench.dialsim import SAMPLE_WORK, build_questions, load_script


@pytest.fixture(scope="session")
def sample_canon(tmp_path_factory):
    return sample_store(tmp_path_factory.mktemp("dialsim-sample"))


@pytest.fixture(scope="session")
def sample_script(sample_canon):
    return load_script(sample_canon, SAMPLE_WORK)


@pytest.fixture(scope="session")
def sample_questions(sample_canon):
    questions, _ = asyncio.run(build_questions(sample_canon, SAMPLE_WORK))
    return questions
