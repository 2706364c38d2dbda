"""CLI start-up: wall time of ``incanon --help`` and light commands, before and after lazy loading.

Prints figures; not a test. "before" runs the same commands on the source of an earlier commit
(``--before``, default the last commit whose ``incanon.cli.main`` imported every command module
up front), extracted with ``git archive`` into a temporary folder and put first on
``PYTHONPATH``; "after" runs this checkout's source. Both use this virtualenv's Python and
packages, in a fresh process per call (``python -m incanon ...``), with an empty
``INCANON_HOME``; the two are alternated so that other work on the machine weighs on both alike,
and the median of ``--runs`` calls is printed, with the load average before and after.

    .venv/bin/python benchmarks/cli_startup.py [--runs 15] [--before 1bbd215]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchtools import ROOT, commit_source
COMMANDS = (["--help"], ["--version"], ["models", "--json"], ["runs", "list"], ["cache", "stats"], ["sharp", "--help"])


def _time(args: list[str], src: Path, home: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(src), "INCANON_HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "incanon", *args], env=env, capture_output=True, cwd=home)
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"incanon {' '.join(args)} exited {done.returncode}:\n{done.stderr.decode()[-2000:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="calls per command and side (median printed)")
    parser.add_argument("--before", default="1bbd215", help="the commit measured as 'before'")
    opts = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        before = commit_source(opts.before, Path(tmp) / "before")
        after = ROOT / "src"
        home = Path(tmp) / "home"
        home.mkdir()
        # Byte-compile both once, so neither side pays for writing .pyc files in the timed calls.
        for src in (before, after):
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=False, capture_output=True)
            _time(["--help"], src, home)
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; load before: "
              f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print(f"{'command':<24} {'before (' + opts.before + ')':>18} {'after':>10} {'ratio':>7}")
        for args in COMMANDS:
            times: dict[str, list[float]] = {"before": [], "after": []}
            for _ in range(opts.runs):
                for side, src in (("before", before), ("after", after)):
                    times[side].append(_time(args, src, home))
            b, a = statistics.median(times["before"]), statistics.median(times["after"])
            print(f"{'incanon ' + ' '.join(args):<24} {b:>16.3f} s {a:>8.3f} s {b / a:>6.1f}x")
        print(f"load after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}; median of {opts.runs} calls each, "
              "a fresh process per call, alternated")


if __name__ == "__main__":
    main()
