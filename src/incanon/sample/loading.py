"""Load the sample world into a canon store without ever replacing a work the user made.

The sample world's work id (``lanterns``) is an ordinary id: a user's own store may hold a work
of that name. ``incanon demo --store DIR`` used to import the sample world over it with
``replace``, silently. Here the sample world replaces only a work it put there itself: the store
folder keeps :data:`MARKER`, the fingerprint of each sample work as imported, and a work whose
content still has one of those fingerprints (or is the sample world as this incanon ships it, for
stores loaded before the marker existed) is the sample's to replace. Anything else is the user's:
the command says so in one line and stops, the work untouched.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from incanon.canon import CanonStore
from incanon.canon.world import World
from incanon.errors import ConfigError

#: File in the store folder naming the fingerprints of the sample works incanon imported there.
MARKER = "sample-works.json"
SOURCE = "incanon sample world"


def work_fingerprint(store: CanonStore, work: str) -> str:
    """A short hash of the work's canon as exported (a changed world hashes differently)."""
    blob = store.export_world(work).model_dump_json()
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def _marker(store: CanonStore) -> Path:
    return Path(store.path) / MARKER


def _recorded(store: CanonStore) -> dict[str, list[str]]:
    try:
        data = json.loads(_marker(store).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # no marker (or an unreadable one): nothing is known to be the sample's
    if not isinstance(data, dict):
        return {}
    return {str(k): [str(x) for x in v] for k, v in data.items() if isinstance(v, list)}


def _as_shipped(world: World) -> str:
    """The fingerprint the sample world has once imported (imported into a throwaway store)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="incanon-sample-") as folder, CanonStore.open(Path(folder)) as probe:
        probe.import_world(world, source=SOURCE)
        return work_fingerprint(probe, world.work.id)


def is_sample_work(store: CanonStore, work: str, world: World) -> bool:
    """Whether ``work`` in ``store`` is a sample world incanon put there and nobody changed since."""
    found = work_fingerprint(store, work)
    return found in _recorded(store).get(work, []) or found == _as_shipped(world)


def load_sample_world(store: CanonStore, world: World) -> str:
    """Import the sample ``world`` into ``store`` (replacing an earlier sample import of it);
    returns its work id. A work of that id the sample did not create is a ``ConfigError`` and
    stays as it is."""
    from incanon.files import write_text_atomic

    work = world.work.id
    if work in {w.id for w in store.works()} and not is_sample_work(store, work, world):
        raise ConfigError(f"the canon store {store.path} already holds a work {work!r} that is not incanon's "
                          "sample world; the demo leaves it as it is and stops. Run the demo with another "
                          "--store (by default it uses its own, INCANON_HOME/demo-canon)")
    store.import_world(world, replace=True, source=SOURCE)
    recorded = _recorded(store)
    fingerprint = work_fingerprint(store, work)
    recorded[work] = sorted({*recorded.get(work, []), fingerprint})
    write_text_atomic(_marker(store), json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    return work
