"""incanon's harness against inspect_ai: one 10k-item evaluation, whole processes, alternated.

Prints figures; asserts nothing but that both sides scored every item. The peer runs in a
virtual environment of its own that this script creates once (``inspect_ai`` pinned to
``INSPECT_VERSION``, installed by pip from the package index) and keeps under
``~/.cache/incanon/bench-venvs/inspect-<version>``; if pip cannot install it the script stops,
saying so, before anything is measured.

What each side does, in a fresh temporary directory holding one ``items.jsonl`` that both read
(``{"id", "input", "target"}`` per line; the reply matches the target on every other item, so
both report a mean score of 0.5):

* **inspect_ai**: ``inspect eval task.py --log-dir logs --display none --max-connections C
  --max-samples C`` (everything else at inspect's defaults: the ``eval`` log format with every
  sample in it, realtime sample buffer on, scoring on). ``task.py`` is a ``Task`` over
  ``json_dataset("items.jsonl")`` with the ``generate()`` solver, the ``exact()`` scorer and
  the built-in mock model (``mockllm/model``) answering one fixed reply through its
  ``custom_outputs`` hook, with token usage set to whitespace-separated words; without that
  hook mockllm counts tokens with tiktoken, whose vocabulary it downloads at run time, which
  fails offline (and would count differently from incanon's scripted model).
* **incanon**: ``python incanon_eval.py``, a user's program on the documented Python API
  (README "Runs", ``docs/runs-at-scale.md``): ``load_chat_model("scripted:rules.json")`` (the
  scripted backend with its default wrappers: usage accounting, retry), then
  ``incanon.runs.run(items, task, store=RunStore("runs.sqlite"), concurrency=C,
  progress=False)``; the task asks the model once and scores exact match (stripped, case
  folded). Every sample (input, output, score, usage, timings) is committed to the run store as
  in any run, so a kill -9 loses none. ``INCANON_HOME`` points into the temporary directory.

Both are timed from exec to exit (``time.perf_counter`` around the child; user+system CPU of
the child from ``RUSAGE_CHILDREN``), one fresh directory per try so neither resumes anything,
alternating which side goes first each round, after one untimed warm-up of each on 200 items
(page cache, bytecode). Afterwards (outside the clock) the script checks that inspect's log says
``success`` with every sample completed and scored, and that the run store holds every sample
``ok`` with its score. The machine is shared, so the load average (/proc/loadavg as each try
starts; the 1-minute figure includes this benchmark's own previous child, about 1 after an
inspect try) is printed with every try; the ratio of medians is the figure. The CPU ratio is
printed too: load changes it less, though not to nothing (two cores may share one physical core).

    .venv/bin/python benchmarks/vs_inspect.py [--items 10000] [--tries 3] [--concurrency 10]
        [--venv-root DIR] [--inspect-arg=--no-log-realtime ...]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

INSPECT_VERSION = "0.3.285"
"""The peer, pinned: a newer inspect_ai may be faster or slower; change this to compare."""
REPLY = "Default output from mockllm/model"
"""Both models' one reply (mockllm's own default text)."""
WARMUP_ITEMS = 200

INSPECT_TASK = f'''\
"""The inspect_ai side: the items, generate(), exact(), the built-in mock model."""
from inspect_ai import Task, task
from inspect_ai.dataset import json_dataset
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import exact
from inspect_ai.solver import generate

REPLY = {REPLY!r}


def reply(messages, tools, tool_choice, config):
    # Usage as incanon's scripted model counts it (words), instead of tiktoken's download.
    prompt = sum(len(m.text.split()) for m in messages)
    out = ModelOutput.from_content(model="mockllm", content=REPLY)
    completion = len(REPLY.split())
    out.usage = ModelUsage(input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion)
    return out


@task
def items():
    return Task(dataset=json_dataset("items.jsonl"), solver=generate(), scorer=exact(),
                model=get_model("mockllm/model", custom_outputs=reply))
'''

INCANON_PROGRAM = '''\
"""The incanon side: a user's evaluation of items.jsonl with the scripted model."""
import json
import sys

from incanon.models import load_chat_model, user
from incanon.runs import ItemOutcome, RunConfig, RunItem, RunStore, run

concurrency = int(sys.argv[1])
with open("items.jsonl", encoding="utf-8") as f:
    items = [RunItem(id=r["id"], input={"question": r["input"], "target": r["target"]}) for r in map(json.loads, f)]
spec = "scripted:rules.json"
model = load_chat_model(spec)


async def task(item):
    reply = await model.generate([user(item.input["question"])])
    exact = reply.text.strip().casefold() == item.input["target"].strip().casefold()
    return ItemOutcome(outputs={"answer": reply.text}, scores={"exact": float(exact)})


with RunStore("runs.sqlite") as store:
    result = run(items, task, store=store, config=RunConfig(benchmark="items", models={"agent": spec}),
                 concurrency=concurrency, progress=False)
print(json.dumps({"run": result.run_id, "status": result.status, "ok": result.ok}))
'''

# Run inside inspect's venv after a try (outside the clock): what its log says it did.
INSPECT_CHECK = '''\
import glob, json, sys
from inspect_ai.log import read_eval_log
(path,) = glob.glob(sys.argv[1] + "/*.eval")
log = read_eval_log(path, header_only=True)
r = log.results
print(json.dumps({"status": log.status, "completed": r.completed_samples if r else 0,
                  "mean": r.scores[0].metrics["mean"].value if r and r.scores else None}))
'''


def loadavg() -> str:
    """The first three fields of /proc/loadavg (1, 5 and 15 minutes)."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())


def inspect_venv(root: Path) -> Path:
    """The Python of a venv with ``inspect_ai==INSPECT_VERSION``, created on first use.

    A ``.complete`` marker is written last: a venv left half-built by an interrupted install is
    removed and built again instead of being measured.
    """
    venv = root / f"inspect-{INSPECT_VERSION}"
    python = venv / "bin" / "python"
    if (venv / ".complete").is_file() and python.is_file():
        return python
    shutil.rmtree(venv, ignore_errors=True)
    root.mkdir(parents=True, exist_ok=True)
    print(f"creating {venv} (inspect_ai=={INSPECT_VERSION} from the package index; once)", flush=True)
    steps = {
        "python -m venv": [sys.executable, "-m", "venv", str(venv)],
        f"pip install inspect_ai=={INSPECT_VERSION}": [
            str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
            f"inspect_ai=={INSPECT_VERSION}"],
        "import inspect_ai": [str(python), "-c", "import inspect_ai"],
    }
    for label, step in steps.items():
        done = subprocess.run(step, capture_output=True, text=True)
        if done.returncode != 0:
            shutil.rmtree(venv, ignore_errors=True)
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
            sys.exit(f"vs_inspect: could not install inspect_ai=={INSPECT_VERSION} into {venv}: "
                     f"`{label}` exited {done.returncode} (the package index must be reachable by "
                     f"pip). It said:\n{tail}")
    (venv / ".complete").write_text(INSPECT_VERSION + "\n")
    return python


def write_items(folder: Path, n: int) -> None:
    """The dataset both sides read, and the scripted model's rules."""
    folder.mkdir(parents=True)
    with open(folder / "items.jsonl", "w", encoding="utf-8") as f:
        for k in range(n):
            target = REPLY if k % 2 == 0 else "I was at the harbour."
            f.write(json.dumps({"id": f"item-{k:05d}", "input": f"Question {k}: where were you that night?",
                                "target": target}) + "\n")
    (folder / "rules.json").write_text(json.dumps({"default": REPLY}))
    (folder / "task.py").write_text(INSPECT_TASK)
    (folder / "incanon_eval.py").write_text(INCANON_PROGRAM)


@dataclass
class Try:
    """One timed process."""

    side: str
    wall_s: float
    cpu_s: float
    load: str
    mean: float | None


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds from exec to exit, the child's user+system CPU seconds, its stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"vs_inspect: `{' '.join(cmd)}` exited {done.returncode} in {cwd}:\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


class Sides:
    """Runs either side in a fresh copy of the data and checks what it wrote."""

    def __init__(self, tmp: Path, python: Path, concurrency: int, extra: list[str]) -> None:
        self.tmp, self.python, self.concurrency, self.extra = tmp, python, concurrency, extra
        self.count = 0
        entry = python.parent / "inspect"
        # The console script a user types; `python -m inspect_ai` is the same program.
        self.inspect = [str(entry)] if entry.is_file() else [str(python), "-m", "inspect_ai"]

    def _fresh(self, n: int) -> Path:
        self.count += 1
        folder = self.tmp / f"try{self.count:02d}"
        write_items(folder, n)
        return folder

    def run(self, side: str, n: int) -> Try:
        """One whole process of ``side`` on ``n`` items, verified."""
        folder = self._fresh(n)
        env = dict(os.environ)
        if side == "inspect_ai":
            # Its realtime buffer and traces go to the platform data dir: keep them in the try's folder.
            env["XDG_DATA_HOME"] = str(folder / "xdg-data")
            cmd = [*self.inspect, "eval", "task.py", "--log-dir", "logs", "--display", "none",
                   "--max-connections", str(self.concurrency), "--max-samples", str(self.concurrency),
                   *self.extra]
        else:
            env["INCANON_HOME"] = str(folder / "incanon-home")
            cmd = [sys.executable, "incanon_eval.py", str(self.concurrency)]
        load = loadavg()
        wall, cpu, out = timed(cmd, folder, env)
        mean = self._check_inspect(folder, n) if side == "inspect_ai" else self._check_incanon(folder, n, out)
        shutil.rmtree(folder, ignore_errors=True)  # 10k-sample logs add up over the tries
        return Try(side, wall, cpu, load, mean)

    def _check_inspect(self, folder: Path, n: int) -> float | None:
        done = subprocess.run([str(self.python), "-c", INSPECT_CHECK, str(folder / "logs")],
                              capture_output=True, text=True, check=True)
        report = json.loads(done.stdout)
        if report["status"] != "success" or report["completed"] != n:
            sys.exit(f"vs_inspect: inspect_ai did not score every item: {report}")
        return report["mean"]

    def _check_incanon(self, folder: Path, n: int, out: str) -> float | None:
        status = json.loads(out.strip().splitlines()[-1])
        with sqlite3.connect(folder / "runs.sqlite") as db:
            (ok, mean) = db.execute(
                "SELECT COUNT(*), AVG(json_extract(scores, '$.exact')) FROM samples"
                " WHERE status = 'ok' AND json_extract(scores, '$.exact') IS NOT NULL").fetchone()
        if status["status"] != "finished" or ok != n:
            sys.exit(f"vs_inspect: incanon did not score every item: {status}, {ok} scored samples stored")
        return mean


def incanon_version() -> str:
    """incanon's version, read in a child so this process stays light."""
    done = subprocess.run([sys.executable, "-c", "import incanon; print(incanon.__version__)"],
                          capture_output=True, text=True)
    return done.stdout.strip() or "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--tries", type=int, default=3, help="timed processes per side")
    parser.add_argument("--concurrency", type=int, default=10,
                        help="samples in flight on both sides (inspect's default max_connections is 10)")
    parser.add_argument("--venv-root", type=Path, default=Path("~/.cache/incanon/bench-venvs").expanduser())
    parser.add_argument("--inspect-arg", action="append", default=[],
                        help="an extra argument for `inspect eval` (repeatable), e.g. --inspect-arg=--no-log-realtime")
    args = parser.parse_args()

    python = inspect_venv(args.venv_root)
    print(f"incanon {incanon_version()} vs inspect_ai {INSPECT_VERSION}; Python {platform.python_version()}, "
          f"{os.cpu_count()} cores; {args.items:,} items, concurrency {args.concurrency}, "
          f"{args.tries} tries each, alternated")
    print(f"loadavg at start: {loadavg()}", flush=True)
    tries: list[Try] = []
    with tempfile.TemporaryDirectory(prefix="vs-inspect-") as tmp:
        sides = Sides(Path(tmp), python, args.concurrency, args.inspect_arg)
        for side in ("inspect_ai", "incanon"):
            sides.run(side, WARMUP_ITEMS)  # untimed: page cache, bytecode, first-run setup
        for k in range(args.tries):
            order = ("inspect_ai", "incanon") if k % 2 == 0 else ("incanon", "inspect_ai")
            for side in order:
                t = sides.run(side, args.items)
                tries.append(t)
                print(f"try {k + 1}  {side:<10} {t.wall_s:8.2f} s wall  {t.cpu_s:8.2f} s CPU  "
                      f"{args.items / t.wall_s:8,.0f} items/s  mean score {t.mean:.3f}  load {t.load}", flush=True)

    medians = {}
    for side in ("inspect_ai", "incanon"):
        mine = [t for t in tries if t.side == side]
        medians[side] = (statistics.median(t.wall_s for t in mine), statistics.median(t.cpu_s for t in mine))
        walls = ", ".join(f"{t.wall_s:.2f}" for t in mine)
        print(f"{side:<10} median {medians[side][0]:8.2f} s wall ({walls}), {medians[side][1]:8.2f} s CPU")
    wall_ratio = medians["inspect_ai"][0] / medians["incanon"][0]
    cpu_ratio = medians["inspect_ai"][1] / medians["incanon"][1]
    print(f"ratio inspect_ai / incanon: {wall_ratio:.1f}x wall, {cpu_ratio:.1f}x CPU (medians; goal >= 10x)")
    print(f"loadavg at end: {loadavg()}")


if __name__ == "__main__":
    main()
