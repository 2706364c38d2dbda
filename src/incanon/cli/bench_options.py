"""``-o/--option KEY=VALUE`` on the benchmark commands: the method options ``chat`` and ``serve``
take (parsed by the same :func:`~incanon.cli.method_options.parse_method_options`), limited to
those the benchmark's methods read and checked, so a run's identity never holds an option that
changed nothing or a value of the wrong kind.

A setting a benchmark command also names itself (``dialsim run --context-tokens``, ``rolerag
eval --threshold``) is the same setting: given both ways with different values, the command stops.
A retired spelling (``--k``) still works for one release, with the deprecation note every renamed
option gives (:func:`~incanon.cli.renamed.renamed`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from incanon.cli.method_options import parse_method_options
from incanon.cli.renamed import renamed
from incanon.errors import ConfigError


@dataclass(frozen=True)
class Accepted:
    """A method option a benchmark's methods read: what a value must be, and its one form."""

    expected: str
    """What a value must be, as an error says it ("a whole number of 1 or more")."""
    convert: Callable[[Any], Any]
    """The value in its one form (``3`` for both ``3`` and ``3.0``, ``1.0`` for both ``1`` and
    ``1.0``), or ``ValueError`` when it is not of the kind expected (text where a number is)."""
    example: str
    """A value to show in the help and the deprecation note (``N``, ``0.6``)."""


def whole(minimum: int = 1) -> Accepted:
    """A whole number of ``minimum`` or more (``k``, a token budget)."""

    def convert(value: Any) -> int:
        # JSON reads "3" as 3 and "3.0" as 3.0 (one value, one run id); true/false are not numbers.
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value) or value < minimum:
            raise ValueError
        return int(value)

    return Accepted(f"a whole number of {minimum} or more", convert, "N")


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError
    return float(value)  # "1" and "1.0" are one value, so one run id


def _cosine(value: Any) -> float:
    number = _number(value)
    if not -1.0 <= number <= 1.0:
        raise ValueError
    return number


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError
    return value


#: A count of 1 or more (``k``, ``general_k``).
WHOLE = whole(1)
#: A cosine similarity (``threshold``).
COSINE = Accepted("a number from -1 to 1", _cosine, "0.6")
#: true or false (``constrain_choices``).
FLAG = Accepted("true or false", _flag, "true")


@dataclass(frozen=True)
class Spelled:
    """A command's own option for a method option: ``--threshold 0.6`` is ``-o threshold=0.6``."""

    flag: str
    value: Any
    """What the command line gave (``default`` when not given)."""
    default: Any = None
    retired: bool = False
    """A hidden older spelling (``--k``): using it prints the deprecation note."""


def benchmark_options(pairs: Iterable[str], accepted: Mapping[str, Accepted],
                      spelled: Mapping[str, Spelled] | None = None) -> dict[str, Any]:
    """The method options of ``-o KEY=VALUE`` ``pairs`` and of the command's own ``spelled``
    options, each in its one form (keys not given are left out). ``ConfigError`` names the option
    and what was expected: a key the methods do not read, a value of the wrong kind, or one
    setting given two ways with different values."""
    given = parse_method_options(pairs)
    unknown = sorted(set(given) - set(accepted))
    if unknown:
        known = ", ".join(f"{k}={a.example}" for k, a in accepted.items())
        raise ConfigError(f"--option {unknown[0]}: not an option of this benchmark's methods; they take {known}")
    options = {key: _checked(f"--option {key}={_shown(value)}", value, accepted[key]) for key, value in given.items()}
    for key, own in (spelled or {}).items():
        if own.value is None or (own.value == own.default and not own.retired):
            continue
        value = _checked(f"{own.flag} {_shown(own.value)}", own.value, accepted[key])
        if key in options and options[key] != value:
            raise ConfigError(f"{own.flag} {_shown(own.value)} and -o {key}={_shown(options[key])} disagree; "
                              f"give -o {key}={accepted[key].example} only")
        if own.retired:  # the note every renamed option gives, naming the spelling to use
            renamed(None, own.value, new_flag=f"-o {key}={accepted[key].example}", old_flag=own.flag, default=None)
        options[key] = value
    return options


def _checked(where: str, value: Any, accepted: Accepted) -> Any:
    try:
        return accepted.convert(value)
    except (ValueError, TypeError, OverflowError):
        raise ConfigError(f"{where}: expected {accepted.expected}") from None


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def option_help(accepted: Mapping[str, Accepted]) -> str:
    """The ``-o`` help of a benchmark command, naming the options its methods take."""
    keys = ", ".join(f"{k}={a.example}" for k, a in accepted.items())
    return (f"Method option KEY=VALUE, repeatable, as in `incanon chat -o`: this benchmark's methods take {keys} "
            "(e.g. -o k=8 for the retrieval depth).")
