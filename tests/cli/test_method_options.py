"""``--option KEY=VALUE`` parsing for role-play methods."""

from __future__ import annotations

import pytest

from incanon.cli.method_options import parse_method_options
from incanon.errors import ConfigError


def test_values_are_json_when_they_parse_else_text():
    assert parse_method_options(["k=8", "witnessed_only=true", "ratio=0.5", "names=[\"a\"]", "style=terse",
                                 "empty="]) == {"k": 8, "witnessed_only": True, "ratio": 0.5, "names": ["a"],
                                                "style": "terse", "empty": ""}


def test_later_pairs_win():
    assert parse_method_options(["k=1", "k=3"]) == {"k": 3}


@pytest.mark.parametrize("pair", ["k", "=3", "bad key=1", "1k=2"])
def test_malformed_pairs_name_the_pair(pair):
    with pytest.raises(ConfigError, match="expected KEY=VALUE"):
        parse_method_options([pair])
