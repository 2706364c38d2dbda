"""Event time: the time an extraction gives a fact, on the work's axis."""

from __future__ import annotations

import datetime as dt

from incanon.canon import Position
from incanon.canon.position import Axis
from incanon.graph.timing import resolve
from incanon.retrieval import end_of_story


def day(key):
    return None if key is None else str(Position.from_key("date", key))


def test_calendar_forms():
    born = dt.date(1770, 12, 16)
    cases = {"1822–24": ("1822-01-01", "1825-01-01"), "between 1802 and 1812": ("1802-01-01", "1813-01-01"),
             "17 December 1770": ("1770-12-17", "1770-12-18"), "March 26, 1827": ("1827-03-26", "1827-03-27"),
             "December 1770": ("1770-12-01", "1771-01-01"), "the 1790s": ("1790-01-01", "1800-01-01"),
             "c. 1800": ("1800-01-01", "1801-01-01"), "1795-05-01": ("1795-05-01", "1795-05-02"),
             "at age 21": ("1791-12-16", "1792-12-16")}
    for text, (start, stop) in cases.items():
        assert day(resolve(text, Axis.DATE, born=born).key) == start, text
        assert day(resolve(text, Axis.DATE, end=True, born=born).key) == stop, text


def test_fallbacks_and_the_future():
    assert resolve("", Axis.DATE).key is None
    assert resolve("as a child", Axis.DATE).key is None and "chunk" in resolve("as a child", Axis.DATE).note
    assert resolve("at age 21", Axis.DATE).key is None  # no birth date to count from
    assert resolve("years later", Axis.DATE).key == end_of_story(Axis.DATE).key
    assert resolve("later", Axis.CHAPTER).key == end_of_story(Axis.CHAPTER).key
    assert resolve("2-5", Axis.CHAPTER).key == Position.parse("2-5").key
    assert resolve("1822", Axis.CHAPTER).key is None  # a year is no chapter position
    assert resolve("later", Axis.CHAPTER, end=True).key is None  # "until later" says nothing
