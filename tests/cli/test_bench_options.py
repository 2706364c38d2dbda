"""``-o/--option KEY=VALUE`` on the benchmarks: chat's parser, limited to what the benchmark's
methods read, one form per value, the command's own spellings merged."""

from __future__ import annotations

import pytest

from incanon.cli.bench_options import COSINE, FLAG, WHOLE, Spelled, benchmark_options, whole
from incanon.errors import ConfigError

ACCEPTED = {"k": WHOLE, "threshold": COSINE, "context_tokens": whole(100), "constrain_choices": FLAG}


def test_values_take_one_form_so_equal_settings_give_equal_run_ids() -> None:
    assert benchmark_options(["k=3", "threshold=1", "constrain_choices=true"], ACCEPTED) == {
        "k": 3, "threshold": 1.0, "constrain_choices": True}
    one, other = benchmark_options(["k=3.0"], ACCEPTED), benchmark_options(["k=3"], ACCEPTED)
    assert one == other and type(one["k"]) is int
    assert type(benchmark_options(["threshold=1"], ACCEPTED)["threshold"]) is float
    assert benchmark_options([], ACCEPTED) == {}


@pytest.mark.parametrize(("pair", "expected"), [
    ("k=0", "--option k=0: expected a whole number of 1 or more"),
    ("k=three", "--option k=three: expected a whole number of 1 or more"),
    ("k=2.5", "--option k=2.5: expected a whole number of 1 or more"),
    ("k=true", "--option k=true: expected a whole number of 1 or more"),
    ("threshold=2", "--option threshold=2: expected a number from -1 to 1"),
    ("context_tokens=50", "--option context_tokens=50: expected a whole number of 100 or more"),
    ("constrain_choices=yes", "--option constrain_choices=yes: expected true or false"),
])
def test_a_bad_value_names_the_option_and_what_was_expected(pair: str, expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        benchmark_options([pair], ACCEPTED)
    assert str(caught.value) == expected


def test_an_option_the_methods_do_not_read_is_refused_with_the_ones_they_do() -> None:
    with pytest.raises(ConfigError, match=r"--option max_rounds: not an option of this benchmark's methods; "
                                          r"they take k=N, threshold=0\.6"):
        benchmark_options(["max_rounds=2"], ACCEPTED)
    with pytest.raises(ConfigError, match="expected KEY=VALUE"):  # chat's own parser's error
        benchmark_options(["k"], ACCEPTED)


def test_the_retired_spelling_gives_the_same_value_with_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    retired = {"k": Spelled("--k", 3, retired=True)}
    assert benchmark_options([], ACCEPTED, retired) == benchmark_options(["k=3"], ACCEPTED) == {"k": 3}
    assert "--k is deprecated here; use -o k=N" in capsys.readouterr().err
    assert benchmark_options(["k=3"], ACCEPTED, retired) == {"k": 3}  # both, agreeing
    with pytest.raises(ConfigError, match=r"--k 3 and -o k=4 disagree; give -o k=N only"):
        benchmark_options(["k=4"], ACCEPTED, retired)
    with pytest.raises(ConfigError, match="--k 0: expected a whole number of 1 or more"):
        benchmark_options([], ACCEPTED, {"k": Spelled("--k", 0, retired=True)})


def test_a_command_option_is_the_same_setting_without_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    own = {"threshold": Spelled("--threshold", 0.6), "constrain_choices": Spelled("--constrain-choices", False, default=False)}
    assert benchmark_options([], ACCEPTED, own) == {"threshold": 0.6}  # a flag at its default adds nothing
    assert benchmark_options(["constrain_choices=true"], ACCEPTED, own) == {"threshold": 0.6, "constrain_choices": True}
    assert capsys.readouterr().err == ""
    with pytest.raises(ConfigError, match="--threshold 0.6 and -o threshold=0.7 disagree"):
        benchmark_options(["threshold=0.7"], ACCEPTED, own)
    flag = {"constrain_choices": Spelled("--constrain-choices", True, default=False)}
    with pytest.raises(ConfigError, match="--constrain-choices true and -o constrain_choices=false disagree"):
        benchmark_options(["constrain_choices=false"], ACCEPTED, flag)
