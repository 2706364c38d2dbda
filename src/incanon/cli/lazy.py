"""Command groups imported when they run, not when ``incanon`` starts.

A command module pulls in what its work needs (the runner, the model clients, numpy, the HTTP
stacks): importing all of them cost ``incanon --help`` about 0.5 s on an idle machine and 2 s
on a busy one, and every CLI call paid it. The root group here knows each command by name and
by the first paragraph of its help, which is all ``incanon --help`` shows; a command's module is
imported the first time that command is looked up to run (or to print its own help).

``tests/cli/test_lazy_cli.py`` checks that each listed help line is the command's own, and that
``incanon --help`` imports none of the heavy modules.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup


@dataclass(frozen=True)
class LazyEntry:
    """One command of the root: its name, the module under ``incanon.cli`` that defines it, and
    the first paragraph of its help (what ``incanon --help`` lists)."""

    name: str
    module: str
    help: str
    group: bool = False
    """True: the module's ``app`` is a command group; False: its ``register(app)`` adds the command."""


def load_commands(entry: LazyEntry, template: Callable[[], typer.Typer]) -> dict[str, Any]:
    """The click commands ``entry``'s module adds to a root made by ``template``, built exactly
    as when that root registers the module itself (same markup mode, same exception settings)."""
    module = importlib.import_module(f"incanon.cli.{entry.module}")
    root = template()
    if entry.group:
        root.add_typer(module.app, name=entry.name)
    else:
        module.register(root)
    return dict(typer.main.get_group(root).commands)


class LazyCommands(MutableMapping[str, Any]):
    """A group's ``commands``: names known up front, each command built when first looked up."""

    def __init__(self, entries: tuple[LazyEntry, ...], template: Callable[[], typer.Typer],
                 eager: dict[str, Any] | None = None) -> None:
        self._entries = {entry.name: entry for entry in entries}
        self._template = template
        self._loaded: dict[str, Any] = dict(eager or {})
        self._order = [*self._entries, *(name for name in self._loaded if name not in self._entries)]

    def is_loaded(self, name: str) -> bool:
        """True when ``name``'s command has been built (its module imported)."""
        return name in self._loaded

    def entry(self, name: str) -> LazyEntry | None:
        """The table's entry for ``name`` (None for a command added by hand)."""
        return self._entries.get(name)

    def __getitem__(self, name: str) -> Any:
        if name not in self._loaded:
            entry = self._entries.get(name)
            if entry is None:
                raise KeyError(name)
            built = load_commands(entry, self._template)
            if name not in built:
                raise RuntimeError(f"incanon.cli.{entry.module} did not define the command {name!r}")
            for key, command in built.items():
                self._loaded.setdefault(key, command)
                if key not in self._order:
                    self._order.append(key)
        return self._loaded[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._loaded[name] = command
        if name not in self._order:
            self._order.append(name)

    def __delitem__(self, name: str) -> None:
        if name not in self._order:
            raise KeyError(name)
        self._order.remove(name)
        self._loaded.pop(name, None)
        self._entries.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._order))

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, name: object) -> bool:
        return name in self._order


class LazyGroup(TyperGroup):
    """The root group: its commands come from :attr:`entries`, imported on first use.

    Subclasses set ``entries`` and ``template`` (a function making an empty root ``Typer`` with
    the app's settings, for building each command as the real root would).
    """

    entries: tuple[LazyEntry, ...] = ()
    template: Callable[[], typer.Typer]

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = LazyCommands(self.entries, type(self).template, eager=dict(self.commands))
        self._listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)  # names only: TyperGroup's reads every command

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        commands = self.commands
        if self._listing and isinstance(commands, LazyCommands) and not commands.is_loaded(cmd_name):
            entry = commands.entry(cmd_name)
            if entry is not None:
                # What the list shows of a command is its name and help: no import for that.
                return TyperCommand(name=entry.name, help=entry.help)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_commands(ctx, formatter)
        finally:
            self._listing = False
