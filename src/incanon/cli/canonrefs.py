"""Open the canon store a command names and pick the work it acts on."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from incanon.errors import ConfigError, NotFoundError

if TYPE_CHECKING:  # the store is imported when a command runs, not when the CLI starts
    from incanon.canon.store import CanonStore

IMPORT_HINT = "incanon canon import FILE --store {path}"


def require_canon(path: Path, hint: str = IMPORT_HINT) -> Path:
    """``path`` (expanded) when it holds a canon store; else a ``NotFoundError`` that says how
    to make one (``hint``, with ``{path}``). A reading command must never create an empty store,
    which opening a plain folder would do."""
    from incanon.canon.schema import DB_NAME

    path = path.expanduser()
    db = path / DB_NAME
    if os.path.lexists(db) and not db.is_file():
        from incanon.reading import check_file

        check_file(db, "canon store file")  # a FIFO, a socket, a symlink loop: named, never opened
    if not db.is_file():
        raise NotFoundError(f"no canon store at {path} (create one with: {hint.format(path=path)})")
    return path


def open_canon(path: Path, *, create: bool = False, hint: str = IMPORT_HINT, read_only: bool = False) -> "CanonStore":
    """The canon store at ``path``; unless ``create``, it must exist (see :func:`require_canon`).
    ``read_only``: the command only reads it, so a store on a read-only folder or disk opens."""
    from incanon.canon.store import CanonStore

    return CanonStore.open(path.expanduser() if create else require_canon(path, hint), read_only=read_only)


CANON_HELP = "Canon store folder (default: $INCANON_CANON, else INCANON_HOME/canon)."
"""Help of every ``--store`` that names a canon store and has the one default."""
SAMPLE_CANON_HELP = CANON_HELP + " The sample world is loaded into the default store when it holds no work."
"""Help of ``--store`` where the default store gets the sample world (chat, serve, SHARP)."""


def canon_path(store: Path | None) -> Path:
    """``store`` (expanded) when given, else the one default canon store (``$INCANON_CANON``,
    else ``INCANON_HOME/canon``) without loading anything into it: commands that build into a
    store create it there, commands that read it say how to make one when it is missing."""
    if store is not None:
        return store.expanduser()
    from incanon.canon.store import default_store_path

    return default_store_path()


SAMPLE_NOTE = ("no --store given: using the default canon store {path} (INCANON_CANON, else INCANON_HOME/canon); "
               "it held no work, so the sample world was loaded into it")


def default_canon(*, sample: bool = True) -> Path:
    """The one default canon store of every command: ``$INCANON_CANON``, else
    ``INCANON_HOME/canon``. With ``sample``, a store that does not exist yet or holds no work
    gets the sample world (said on stderr), so commands that can show the sample world work on a
    fresh machine; a store with works is used as it is."""
    from incanon.canon.store import CanonStore, default_store_path
    from incanon.cli.output import err

    path = default_store_path()
    if not sample:
        return path
    from incanon.canon.schema import DB_NAME

    empty = not (path / DB_NAME).is_file()
    if not empty:
        with CanonStore.open(path) as store:
            empty = not store.works()
    if empty:
        from incanon.sample import sample_world

        with CanonStore.open(path) as store:
            store.import_world(sample_world(), source="incanon sample world")
        err.print(SAMPLE_NOTE.format(path=path), style="dim", soft_wrap=True, highlight=False)
    return path


def pick_work(canon: "CanonStore", work: str | None, *, axis: str | None = None,
              noun: tuple[str, str] = ("work", "works"), none_hint: str = "") -> str:
    """``work`` when given (checked), else the store's only work (of ``axis`` when given); no
    work or several are errors that say what to do. ``noun``: what to call one work and several
    in messages (DialSim: dated dialogues); ``none_hint``: how to add one."""
    if work:
        return canon.work(work).id
    works = [w.id for w in canon.works() if axis is None or w.axis == axis]
    if len(works) == 1:
        return works[0]
    if not works:
        raise NotFoundError(f"the canon store {canon.path} holds no {noun[0]}" + (f"; {none_hint}" if none_hint else ""))
    raise ConfigError(f"the canon store holds several {noun[1]} ({', '.join(works)}); choose one with --work")
