"""A card's lorebook patterns cannot stop the process: a key that backtracks without end on a
40-character line gives up within its time limit and does not fire; honest keys still do."""

from __future__ import annotations

import time

import pytest

from incanon.cards.lorebook import fires

#: Each took Python's ``re`` minutes to hours on LINE (2^40 ways to split 40 a's).
RUNAWAY = [({"keys": ["/(a+)+$/"]}, "a" * 40 + "!"),
           ({"keys": ["(x+x+)+y"], "use_regex": True}, "x" * 40),
           ({"keys": ["/(a|aa)+$/"]}, "a" * 40 + "!"),
           ({"keys": ["/(a|a)+b/i"]}, "A" * 40)]


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("entry", "line"), RUNAWAY)
def test_a_runaway_key_gives_up_and_does_not_fire(entry, line):
    started = time.monotonic()
    assert fires({"content": "x", **entry}, line) is False
    assert fires({"content": "x", **entry}, line) is False  # known now: not run again
    assert time.monotonic() - started < 5  # the limit is 50 ms; a busy machine is slow


@pytest.mark.parametrize(("keys", "line", "fired"), [
    (["/capt(ain|\\.)/i"], "The CAPTAIN came.", True),
    (["/^lamp$/m"], "dark\nlamp\n", True),
    (["lamp"], "the lamplighter", False),       # a plain key is a whole word
    (["/(unclosed/"], "(unclosed", False),      # a broken pattern never fires
])
def test_honest_keys_fire_as_before(keys, line, fired):
    assert fires({"content": "x", "keys": keys}, line) is fired
