"""The reference-metric plug point (AlignScore's column) and per-role generation settings."""

from __future__ import annotations

import sys
import types

import pytest

from incanon.bench.timechara.evaluate import AGENT_PARAMS
from incanon.bench.timechara.reference import TokenF1, load_scorer
from incanon.bench.timechara.settings import apply_params
from incanon.errors import ConfigError
from incanon.judges.spatiotemporal import JUDGE_PARAMS


def test_token_f1_is_a_small_local_scorer():
    scores = TokenF1().score(["No, I was on the train.", "Yes."], ["I was on the train, no.", "Blimey."])
    assert scores[0] == pytest.approx(1.0) and scores[1] == 0.0


def test_a_user_scorer_plugs_in_by_module_and_name(monkeypatch):
    module = types.ModuleType("my_alignscore")

    class Constant:
        def score(self, contexts, claims):
            return [0.25] * len(claims)

    module.Constant = Constant
    monkeypatch.setitem(sys.modules, "my_alignscore", module)
    assert load_scorer("my_alignscore:Constant").score(["a"], ["b"]) == [0.25]
    with pytest.raises(ConfigError, match="cannot load"):
        load_scorer("my_alignscore:Missing")
    with pytest.raises(ConfigError, match="unknown reference metric"):
        load_scorer("bleu")


def test_paper_settings_are_the_defaults_and_each_role_can_change_them():
    assert (AGENT_PARAMS.temperature, AGENT_PARAMS.top_p, AGENT_PARAMS.max_tokens) == (0.2, 1.0, 2048)
    assert (JUDGE_PARAMS.temperature, JUDGE_PARAMS.top_p, JUDGE_PARAMS.max_tokens) == (0.0, 0.95, 1024)
    changed = apply_params(AGENT_PARAMS, ["temperature=0.7", "max_tokens=512"], "agent")
    assert (changed.temperature, changed.max_tokens, changed.top_p) == (0.7, 512, 1.0)
    with pytest.raises(ConfigError, match="--judge-param 'colour=red'"):
        apply_params(JUDGE_PARAMS, ["colour=red"], "judge")
    with pytest.raises(ConfigError, match="not a number"):
        apply_params(JUDGE_PARAMS, ["top_p=high"], "judge")
