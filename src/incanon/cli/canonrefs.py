"""Open the canon store a command names and pick the work it acts on."""

from __future__ import annotations

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
    if not (path / DB_NAME).is_file():
        raise NotFoundError(f"no canon store at {path} (create one with: {hint.format(path=path)})")
    return path


def open_canon(path: Path, *, create: bool = False, hint: str = IMPORT_HINT) -> "CanonStore":
    """The canon store at ``path``; unless ``create``, it must exist (see :func:`require_canon`)."""
    from incanon.canon.store import CanonStore

    return CanonStore.open(path.expanduser() if create else require_canon(path, hint))


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
