"""Run configuration files: one or more evaluations described in TOML (or JSON), run exactly as
their command lines would.

```toml
[defaults]                       # optional: fields every evaluation below starts from
runs = "out/runs.sqlite"

[[eval]]
benchmark = "sharp"              # timechara | sharp | rolerag | dialsim | coser
# command = "eval"               # default: eval (dialsim: run, coser: simulate)
model = "scripted:examples/sharp/agent_zh.json"
detector = "scripted:examples/sharp/detector_zh.json"
store = "zh-canon"
method = ["zero-shot", "rag-cutoff"]
```

Every other key is an option of that command, by its long name (``max-cost``) or Python name
(``max_cost``); a list becomes a repeated option, or a comma-joined value for options that take
one; ``true`` / ``false`` set a flag; ``args`` holds positional arguments. ``--set KEY=VALUE``
overrides a field of every evaluation (``--set model=openai/gpt-4o-mini``) or of one
(``--set eval[1].model=...``); values are read as TOML (``--set limit=5``), else as text. The
resolved section is stored with each run it starts (``RunConfig.source``, not part of the run's
identity, so a file and the equivalent command line give the same run).
"""

from __future__ import annotations

import re
import tomllib
import typing
from pathlib import Path
from typing import Any

from incanon.errors import ConfigError, InputError

DEFAULT_COMMANDS = {"timechara": "eval", "sharp": "eval", "rolerag": "eval", "dialsim": "run", "coser": "simulate"}
"""The command an ``[[eval]]`` runs when it names none."""

_RESERVED = {"benchmark", "command", "name", "args"}
_TARGET = re.compile(r"^eval\[(\d+)\]\.(.+)$")


def load_run_config(path: str | Path) -> dict[str, Any]:
    """The config file as data: TOML (``.toml``) or JSON; one-line errors name the file."""
    from incanon.reading import parse_json, read_text

    source = Path(path).expanduser()
    if not source.exists():
        from incanon.errors import NotFoundError

        raise NotFoundError(f"run configuration {source} does not exist")
    text = read_text(source, "run configuration")
    if source.suffix.lower() == ".json":
        data = parse_json(text, str(source))
    else:
        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
            raise InputError(f"not valid TOML ({str(exc)[:200]})", source=str(source)) from None
    if not isinstance(data, dict):
        raise InputError("expected a table with [[eval]] sections", source=str(source))
    evals = data.get("eval")
    if isinstance(evals, dict):
        evals = [evals]
    if not isinstance(evals, list) or not evals or not all(isinstance(e, dict) for e in evals):
        raise InputError("expected one or more [[eval]] sections", source=str(source), where="eval")
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict):
        raise InputError("[defaults] must be a table", source=str(source), where="defaults")
    unknown = set(data) - {"eval", "defaults"}
    if unknown:
        raise InputError(f"unknown top-level keys {sorted(unknown)} (expected [defaults] and [[eval]])",
                         source=str(source))
    return {"defaults": defaults, "eval": evals}


def _value(raw: str) -> Any:
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw


def resolve(data: dict[str, Any], overrides: list[str]) -> list[dict[str, Any]]:
    """Every evaluation with the defaults under it and the ``--set`` overrides over it."""
    sections = [{**data["defaults"], **section} for section in data["eval"]]
    for override in overrides:
        key, sep, raw = override.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--set {override!r}: expected KEY=VALUE (e.g. model=openai/gpt-4o-mini or eval[0].limit=5)")
        target = _TARGET.match(key)
        if target:
            index, field = int(target.group(1)), target.group(2)
            if index >= len(sections):
                raise ConfigError(f"--set {key}: the file has {len(sections)} [[eval]] sections (0 to {len(sections) - 1})")
            sections[index][field] = _value(raw)
        else:
            for section in sections:
                section[key] = _value(raw)
    for index, section in enumerate(sections):
        benchmark = section.get("benchmark")
        if benchmark not in DEFAULT_COMMANDS:
            raise ConfigError(f"eval[{index}].benchmark: expected one of {', '.join(DEFAULT_COMMANDS)}, not {benchmark!r}")
        section.setdefault("command", DEFAULT_COMMANDS[benchmark])
    return sections


def _check_value(param: Any, value: Any, field: str) -> None:
    """Refuse a value the option would refuse on the command line (``limit = "ten"``,
    ``concurrency = -3``), naming the field, before anything is shown or run."""
    if isinstance(value, (dict, list)):
        raise ConfigError(f"{field}: expected a single value, not a {'table' if isinstance(value, dict) else 'list'}")
    if isinstance(value, bool) and not param.is_flag:
        raise ConfigError(f"{field}: expected a value, not {str(value).lower()}")
    if _annotation(param) not in (int, float):
        return  # text and paths: the command itself checks them when it runs
    try:
        param.process_value(None, value)
    except Exception as exc:  # typer's BadParameter (from its vendored click layer)
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        raise ConfigError(f"{field}: {message} (got {str(value)[:40]!r})") from None


def _annotation(param: Any) -> Any:
    """The Python type a typer option converts to (``Optional[int]`` → ``int``), or None."""
    descriptor = getattr(param, "type_descriptor", None)
    annotation = getattr(descriptor, "annotation", None)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    return args[0] if len(args) == 1 else annotation


def to_argv(section: dict[str, Any], command: Any, where: str) -> list[str]:
    """The command line of one resolved section, checked against the click ``command``'s options."""
    argv = [section["benchmark"], section["command"]]
    params = {}
    for param in command.params:
        if getattr(param, "param_type_name", "") != "option":
            continue
        params[param.name] = param
        for opt in param.opts:
            if opt.startswith("--"):
                params[opt[2:]] = param
                params[opt[2:].replace("-", "_")] = param
    for key, value in section.items():
        if key in _RESERVED:
            continue
        param = params.get(key)
        if param is None:
            names = sorted({p.opts[0].lstrip("-") for p in params.values()})
            raise ConfigError(f"{where}.{key}: `incanon {section['benchmark']} {section['command']}` has no such "
                              f"option (options: {', '.join(names)})")
        option = next(o for o in param.opts if o.startswith("--"))
        if param.is_flag:
            if not isinstance(value, bool):
                raise ConfigError(f"{where}.{key}: expected true or false")
            if value:
                argv.append(option)
            elif param.secondary_opts:
                argv.append(param.secondary_opts[0])
            continue
        values = value if isinstance(value, list) else [value]
        for item in values:
            _check_value(param, item, f"{where}.{key}")
        if param.multiple:
            for item in values:
                argv += [option, str(item)]
        else:
            argv += [option, ",".join(str(v) for v in values)]
    args = section.get("args", [])
    argv += [str(a) for a in (args if isinstance(args, list) else [args])]
    return argv
