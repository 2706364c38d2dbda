"""The ``incanon`` command line.

Each command group lives in its own module under ``incanon.cli`` and exposes ``app`` (or a
``register(app)`` that adds its command); this module only wires them together and turns user
errors into one line and exit code 2. A command's module is imported only when that command runs
(:mod:`incanon.cli.lazy`), so ``incanon --help`` and light commands start at once.
"""

from __future__ import annotations

import sqlite3
import sys
from typing import Optional

import typer

from incanon import __version__
from incanon.cli.lazy import LazyEntry, LazyGroup
from incanon.cli.output import err, error_line
from incanon.errors import IncanonError, InputError

#: The root's commands in the order ``incanon --help`` lists them: name, module under
#: ``incanon.cli``, and the first paragraph of the command's help, which is all the list shows
#: (tests/cli/test_lazy_cli.py fails when one differs from the command's own help).
COMMANDS: tuple[LazyEntry, ...] = (
    LazyEntry("doctor", "doctor", "Check what is installed and reachable, with a concrete fix for each problem."),
    LazyEntry("demo", "demo", "Interview a sample-world character at two points of the story, offline, and judge "
                              "the answers."),
    LazyEntry("chat", "chat", "Chat with a character at a point in the story. Lines are read from stdin; /help lists "
                              "the commands."),
    LazyEntry("scene", "scene", "Put two to four characters together at one point of the story, each knowing only its "
                                "own. Lines are read from stdin; /help lists the commands."),
    LazyEntry("report", "report", "Tables in the papers' layouts, charts, run configuration and costs of stored runs; "
                                  "no model is called."),
    LazyEntry("serve", "serve", "Serve the web app: chat with a character at a point on the story's timeline, and "
                                "browse runs."),
    LazyEntry("models", "models", "List the kinds of model spec (--model, --judge, --helper, --embedder), with an "
                                  "example each."),
    LazyEntry("run", "run", "Run one or more evaluations from a configuration file, exactly as their command lines "
                            "would."),
    LazyEntry("cache", "cache", "Inspect and clear the model response cache.", group=True),
    LazyEntry("runs", "runs", "List, inspect, export and merge benchmark runs.", group=True),
    LazyEntry("canon", "canon", "Import, export and inspect the canon store; show what a character knows.", group=True),
    LazyEntry("timechara", "timechara", "TimeChara: point-in-time character hallucination (build, eval, report).",
              group=True),
    LazyEntry("sharp", "sharp", "SHARP: relationship hallucination through stance transfer (claims, roles, eval, "
                                "report).", group=True),
    LazyEntry("graph", "graph", "Character knowledge graph (RoleRAG indexing): build, show, delete.", group=True),
    LazyEntry("rolerag", "rolerag", "RoleRAG: graph-guided role-play retrieval, judged by KE / KH / UQJ.", group=True),
    LazyEntry("dialsim", "dialsim", "DialSim: real-time long-term multi-party dialogue (ingest, questions, run, report, "
                                    "rescore).", group=True),
    LazyEntry("coser", "coser", "CoSER: book curation, given-circumstance acting, penalty-based critics.", group=True),
)

_HELP = "Keep role-playing LLM agents in canon, and measure how well they stay there."


def _template(cls: type[LazyGroup] | None = None) -> typer.Typer:
    """An empty root with the app's settings: each command is built on one, as the root would."""
    return typer.Typer(
        cls=cls,
        name="incanon",
        help=_HELP,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        # Plain help: rich markup would eat bracketed words of help texts ("[type]", "[/]"). The
        # root's mode applies to every command group.
        rich_markup_mode=None,
    )


class _Root(LazyGroup):
    entries = COMMANDS
    template = staticmethod(_template)


app = _template(_Root)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"incanon {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    verbose: int = typer.Option(
        0, "--verbose", "-v", count=True,
        help="Say more on stderr: -v every retry and slow call, -vv every model call. Waits of seconds "
             "and long first-time steps are shown without it."),
    # A string, not a Path: click turns "" into Path("."), a folder, and the message would name "."
    log_file: Optional[str] = typer.Option(
        None, "--log-file", help="Also write a detailed log (every call, retry and wait) to this file."),
) -> None:
    """Keep role-playing LLM agents in canon, and measure how well they stay there."""
    from incanon.logs import configure

    configure(verbose, log_file)


def hoist_global_options(args: list[str]) -> list[str]:
    """``args`` with the root's own options (``-v``/``-vv``/``--verbose``, ``--log-file``) moved
    in front of the subcommand, so ``incanon runs list -v`` means ``incanon -v runs list``.

    Click reads a group's options only before the subcommand's name; users put them anywhere
    (at the end, after pasting a command). Nothing after ``--`` is touched, and no subcommand
    has an option of these names, so the move never changes what a command receives.
    """
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest.extend(args[i:])
            break
        if arg == "--verbose" or (len(arg) > 1 and arg.startswith("-") and not arg.startswith("--")
                                  and set(arg[1:]) == {"v"}):
            front.append(arg)
        elif arg == "--log-file" and i + 1 < len(args):
            front.extend(args[i:i + 2])
            i += 1
        elif arg.startswith("--log-file="):
            front.append(arg)
        else:
            rest.append(arg)
        i += 1
    return front + rest


def not_utf8(args: list[str]) -> str | None:
    """The first of ``args`` that holds bytes that are not UTF-8 (lone surrogates), shown as an
    escaped excerpt; None when every one is text."""
    from incanon.printable import excerpt

    for arg in args:
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            return excerpt(arg, 40)
    return None


def main() -> None:
    """Console entry point: run the app, print user errors as one line, exit 2 on them."""
    from incanon import created, outcome
    from incanon.oserrors import user_error

    created.reset()
    outcome.reset()
    try:
        # In non-standalone mode click returns a command's exit code instead of exiting.
        code = app(args=hoist_global_options(sys.argv[1:]), standalone_mode=False, prog_name="incanon")
        from incanon.logs import log_file_error

        failure = outcome.failure_error() or log_file_error()
        if failure is not None and code in (None, 0):
            raise failure  # the command printed its rows (or lost its log); it must not end as a success
        sys.exit(code if isinstance(code, int) else 0)
    except IncanonError as exc:
        created.discard_new()  # a failed command leaves no new store, cache or folder behind
        err.print(error_line(exc), highlight=False, soft_wrap=True)
        sys.exit(exc.exit_code)
    except (OSError, sqlite3.Error) as exc:
        # A full disk, a file size limit, a read-only file: the machine, not a bug.
        mapped = user_error(exc)
        created.discard_new()
        if mapped is None:
            raise
        err.print(error_line(mapped), highlight=False, soft_wrap=True)
        sys.exit(mapped.exit_code)
    except UnicodeEncodeError:
        # An argument of bytes that are not UTF-8 (the shell passes them as lone surrogates):
        # a file name may hold such bytes, but a name, id or position sent to SQLite cannot.
        bad = not_utf8(sys.argv[1:])
        if bad is None:
            raise
        created.discard_new()
        err.print(error_line(InputError(f"the argument '{bad}' is not UTF-8 text; names, ids and positions "
                                        "must be")), highlight=False, soft_wrap=True)
        sys.exit(2)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        err.print("aborted")
        sys.exit(130)
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM where a command takes it the same way
        from incanon.canonbuild.interrupt import stopped_exit_code, stopped_word

        err.print(f"{stopped_word(exc)}; finished work is saved, run the same command again to resume")
        sys.exit(stopped_exit_code(exc))
    except ImportError as exc:
        # A module of an extra that is not installed (fastapi for `serve`, matplotlib for charts):
        # one line naming the extra. Any other import error is a bug and stays a traceback.
        from incanon.extras import missing_extra

        missing = missing_extra(exc)
        if missing is None:
            raise
        created.discard_new()
        err.print(error_line(missing), highlight=False, soft_wrap=True)
        sys.exit(missing.exit_code)
    except Exception as exc:
        # Usage errors of typer's (vendored) click layer arrive here in non-standalone mode:
        # one line, like every user error.
        if not (hasattr(exc, "format_message") and hasattr(exc, "exit_code")):
            raise
        ctx = getattr(exc, "ctx", None)
        hint = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
        err.print(error_line(IncanonError(exc.format_message() + hint)), highlight=False, soft_wrap=True)
        sys.exit(2)
