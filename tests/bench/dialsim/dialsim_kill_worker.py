"""A DialSim repetition run in its own process, slowly, so a test can kill -9 it midway.

Usage: python dialsim_kill_worker.py CANON_DIR RUNS_FILE SESSIONS
"""

from __future__ import annotations

import asyncio
import sys
import time

from incanon.bench.dialsim import SAMPLE_WORK, RunSetup, SimConfig, build_questions, load_script, run_setting
from incanon.canon import CanonStore
from incanon.models import ScriptedModel
from incanon.runs import RunStore


def setup(canon_dir: str, sessions: int, model: ScriptedModel) -> RunSetup:
    """The setting both the killed process and the test that resumes it run."""
    canon = CanonStore.open(canon_dir)
    script = load_script(canon, SAMPLE_WORK).first(sessions)
    questions, _ = asyncio.run(build_questions(canon, SAMPLE_WORK))
    return RunSetup(script=script, questions=questions, agent_model=model, models={"agent": "scripted"},
                    memory="bm25-utterance", config=SimConfig(fast=True, time_limit=0))


def answer(messages) -> str:
    return "(A)" if "Jory" in messages[-1].content else "(E)"


def slow_answer(messages) -> str:
    time.sleep(0.15)
    return answer(messages)


if __name__ == "__main__":
    canon_dir, runs, sessions = sys.argv[1], sys.argv[2], int(sys.argv[3])
    asyncio.run(run_setting(setup(canon_dir, sessions, ScriptedModel(default=slow_answer)), RunStore(runs)))
