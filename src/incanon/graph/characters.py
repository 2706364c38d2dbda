"""Declare the character a corpus is about, so a store built from files alone can be evaluated.

``graph build --character "NAME|ALIAS|..."`` ends here. A work created by the build gets its
characters in the same import as the work itself (``World``); an existing work gets the missing
ones added in one transaction, beside whatever it holds (its graph is kept: ``canon import
--fresh`` would wipe it). The rows are the canon store's own ``characters`` and ``aliases``
(the layout its importer writes), so ``character_at`` and every benchmark find them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from incanon.canon.names import norm
from incanon.canon.schema import connect, transaction
from incanon.canon.store import CanonStore
from incanon.canon.world import Character
from incanon.errors import InputError


@dataclass(frozen=True)
class CharacterSpec:
    """A character named on the command line: ``NAME`` or ``NAME|ALIAS|ALIAS``."""

    name: str
    aliases: tuple[str, ...] = field(default_factory=tuple)

    @classmethod
    def parse(cls, text: str) -> "CharacterSpec":
        parts = [p.strip() for p in text.split("|")]
        if not parts[0] or any(not p for p in parts):
            raise InputError(f"--character {text!r}: expected NAME or NAME|ALIAS|... with no empty name")
        seen: set[str] = set()
        for p in parts:
            if norm(p) in seen:
                raise InputError(f"--character {text!r}: {p!r} is given twice")
            seen.add(norm(p))
        return cls(parts[0], tuple(parts[1:]))

    def character(self) -> Character:
        return Character(name=self.name, aliases=list(self.aliases))


def check_distinct(specs: list[CharacterSpec]) -> None:
    """No name may belong to two declared characters."""
    owner: dict[str, str] = {}
    for s in specs:
        for n in (s.name, *s.aliases):
            if norm(n) in owner and owner[norm(n)] != s.name:
                raise InputError(f"--character: {n!r} is a name of both {owner[norm(n)]!r} and {s.name!r}")
            owner[norm(n)] = s.name


def declare(canon: CanonStore, work: str, specs: list[CharacterSpec]) -> list[str]:
    """Add the characters of ``specs`` that ``work`` lacks; returns the names added. A spec
    whose name or alias already belongs to a character of the work is that character (its
    missing aliases are not added: the canon's character is the reference)."""
    check_distinct(specs)
    info = canon.work(work)
    conn = connect(canon.db_path)
    try:
        return _insert(conn, info.id, specs)
    finally:
        conn.close()


def _insert(conn, slug: str, specs: list[CharacterSpec]) -> list[str]:  # noqa: ANN001 - sqlite3.Connection
    wid = int(conn.execute("SELECT id FROM works WHERE slug = ?", (slug,)).fetchone()[0])
    added: list[str] = []
    with transaction(conn):
        for spec in specs:
            names = [spec.name, *spec.aliases]
            taken = {r[0] for r in conn.execute(
                f"SELECT norm FROM aliases WHERE work_id = ? AND norm IN ({','.join('?' * len(names))})",
                (wid, *[norm(n) for n in names]))}
            if taken:
                continue
            cid = int(conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM characters").fetchone()[0])
            ord_ = int(conn.execute("SELECT COALESCE(MAX(ord), -1) + 1 FROM characters WHERE work_id = ?",
                                    (wid,)).fetchone()[0])
            conn.execute("INSERT INTO characters (id, work_id, ord, name, profile, personality, first_key)"
                         " VALUES (?, ?, ?, ?, '', '', NULL)", (cid, wid, ord_, spec.name))
            conn.executemany(
                "INSERT INTO aliases (work_id, norm, character_id, ord, alias, is_name) VALUES (?, ?, ?, ?, ?, ?)",
                [(wid, norm(n), cid, j - 1, n, int(j == 0)) for j, n in enumerate(names)])
            added.append(spec.name)
    return added
