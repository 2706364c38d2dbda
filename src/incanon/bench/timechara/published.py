"""The published TimeChara set: its four series and where each character time point falls.

Published rows name a character's time point in words (``2nd-year / on Halloween``, ``end of
Volume1``); the paper's Appendix F places each of the 219 on its series' axis (``2-8``,
``1-2-10``). That table is here as data, so a row can be turned into a ``CharacterAt`` without a
canon store, and the narrative experts can compare a question's period with the character's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from incanon.canon.position import Position


@dataclass(frozen=True)
class Series:
    """One published series."""

    title: str
    author: str
    books: dict[int, str]
    periods: dict[str, dict[str, str]] = field(default_factory=dict)
    """character → normalized time-point label → position."""


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def _periods(common: dict[str, str], **per_character: dict[str, str]) -> dict[str, dict[str, str]]:
    return {name: {_norm(k): v for k, v in {**common, **own}.items()} for name, own in per_character.items()}


_ENDS_LOTR = {"end of volume 1": "1-2-10", "end of volume 2": "2-4-10", "end of volume 3": "3-6-9"}
_FRODO_SAM = {
    "at Bilbo Baggins's Farewell party": "1-1-1",
    "at the moment when Frodo was stabbed by one of the Ringwraiths": "1-1-11",
    "at the moment when The Fellowship loses Gandalf in Moria": "1-2-5",
    "at the moment when encountering Gollum and decides to spare his life": "2-4-1",
    "at the moment of encountering the Black Gate of Mordor": "2-4-3",
    "at the moment when Frodo captured by Faramir": "2-4-5",
    "at the moment when captured by Faramir": "2-4-5",
    "at Shelob's lair": "2-4-9",
    "at the event when captured by Orcs at the Tower of Cirith Ungol": "3-6-1",
    "at the moment when rescued from Mount Doom by the eagles": "3-6-4",
}
_WEST = {  # Gandalf, Aragorn and Legolas share most moments
    "at the moment when the Fellowship was formed at the council of Elrond": "1-2-3",
    "at the moment when The Fellowship loses Gandalf in Moria": "1-2-5",
    "at the moment when Gandalf the white met Aragorn, Legolas, and Gimli at Fangorn Forest after the fall at Moria": "2-3-5",
    "at the Battle of the Pelennor Fields": "3-5-6",
    "during the Battle of the Pelennor Fields": "3-5-6",
    "at the coronation of King Elessar(Aragorn)": "3-6-5",
}
_TWILIGHT = {f"end of book {n}": p for n, p in ((1, "1-25"), (2, "2-25"), (3, "3-27"), (4, "4-39"))} | {
    "on Bella's 18th birthday": "2-1", "at Volterra": "2-20", "at Bella and Edward's Wedding": "4-3",
    "at the moment when Renesmee was born": "4-18",
    "at the moment when Bella first confirm Edward's true nature as a vampire": "1-9",
    "at the moment when Bella first visited the Cullens": "1-15",
    "at the moment when Jacob crawled into the sleeping bag beside Bella at the campsite, chosen for Bella's hiding place": "3-22",
}
_HUNGER = {f"end of book {n}": p for n, p in ((1, "1-27"), (2, "2-27"), (3, "3-28"))} | {
    "at the moment when Katniss volunteered to take her sister's place as the female tribute": "1-2",
    "at the start of the 74th Hunger Games": "1-11",
    "at the moment when Katniss found wounded Peeta hidden under a layer of mud": "1-19",
    "at the announcement of the Quarter Quell": "2-12",
    "at the moment when Katniss first witnessed a heavy fog during the Quarter Quell": "2-20",
    "at the moment when Peeta suddenly warned of an impending attack on District 13": "3-9",
    "at the moment when the squad 451 was attacked by the mutts in the tunnels": "3-22",
}

SERIES: dict[str, Series] = {
    "harry_potter": Series("Harry Potter", "J. K. Rowling", {
        1: "Harry Potter and the Philosopher's Stone", 2: "Harry Potter and the Chamber of Secrets",
        3: "Harry Potter and the Prisoner of Azkaban", 4: "Harry Potter and the Goblet of Fire",
        5: "Harry Potter and the Order of the Phoenix", 6: "Harry Potter and the Half-Blood Prince",
        7: "Harry Potter and the Deathly Hallows"}),
    "the_lord_of_the_rings": Series("The Lord of the Rings", "J. R. R. Tolkien", {
        1: "The Fellowship of the Ring", 2: "The Two Towers", 3: "The Return of the King"},
        _periods(_ENDS_LOTR, **{
            "Frodo Baggins": _FRODO_SAM, "Samwise Gamgee": _FRODO_SAM,
            "Gandalf": _WEST | {
                "at Bilbo Baggins's Farewell party": "1-1-1",
                "at the moment when arriving at Isengard after the battle of Helm's Deep": "2-3-8",
                "at the moment when Gandalf met Saruman at Isengard": "2-3-10",
                "at the moment when Gandalf arrived at Minas Tirith with Pippin": "3-5-1"},
            "Aragorn": _WEST | {
                "at the moment when Aragorn first met Frodo and his companions": "1-1-9",
                "at the moment when Aragorn arrived at Isengard after the battle of Helm's Deep": "2-3-8",
                "at the moment when Aragorn met Saruman at Isengard": "2-3-10",
                "at the moment when Aragorn arrived at the paths of the dead": "3-5-2"},
            "Legolas": _WEST | {
                "at the moment of leaving Lothlórien": "1-2-8",
                "at the moment when Leoglas met Gandalf the white at Fangorn Forest after Gandalf's fall at Moria": "2-3-5",
                "at the moment when Legolas met Gandalf the white at Fangorn Forest after Gandalf's fall at Moria": "2-3-5",
                "at the moment when Legolas arrived at Isengard after the battle of Helm's Deep": "2-3-8",
                "at the moment when Legolas met Saruman at Isengard": "2-3-10",
                "at the moment when Legolas arrived at the paths of the dead with Aragorn": "3-5-2"},
        })),
    "twilight": Series("Twilight", "Stephenie Meyer", {1: "Twilight", 2: "New Moon", 3: "Eclipse", 4: "Breaking Dawn"},
        _periods(_TWILIGHT, **{
            "Bella Swan": {
                "at the moment when Bella moved from Phoenix to Forks": "1-1",
                "at the moment when Bella jumps off the cliff into the ocean": "2-15",
                "at the moment when Bella was grounded by her father": "3-1",
                "at the moment when Bella learns about the history of the Quileute tribe and the Cullens": "3-11",
                "at the moment when Bella receives an engagement ring from Edward": "3-20",
                "at the moment when Bella forges passports and IDs for Renesmee and Jacob from J. Jenks": "4-33"},
            "Edward Cullen": {
                "at the moment when Edward saves Bella from a Van": "1-3",
                "at the moment when Edward tells Bella that he and the Cullens are leaving Forks": "2-3",
                "at the moment when Edward rewarded Alice for watching Bella by giving her the canary yellow Porsche from Italy": "3-6",
                "at Bella's graduation ceremony": "3-16",
                "at the moment when Esme has renovated a cottage on the property for Bella, Edward, and now Renesmee": "4-24"},
            "Jacob Black": {
                "at the beach at La Push, when Jacob met Bella and her friends": "1-6",
                "on March 10, 2005": "1-11",
                "on March 13, 2005 when Bella found Jacob before watching a baseball game with Edward": "1-17",
                "at the moment when Jacob and Bella worked together on repairing two old motorcycles": "2-6",
                "at the moment when Bella first discovers Jacob's werewolf identity": "2-10",
                "at the moment when Jacob pulled out Bella from drowning": "2-16",
                "on May 31, 2006 when Bella found Jacob on his motorcycle at the school": "3-16",
                "at Bella's graduation ceremony": "3-7",
                "at Christmas, 2006": "4-34"},
        })),
    "hunger_games": Series("The Hunger Games", "Suzanne Collins", {1: "The Hunger Games", 2: "Catching Fire", 3: "Mockingjay"},
        _periods(_HUNGER, **{
            "Katniss Everdeen": {"at the first conversation about the bombing of district 12 with Gale": "3-1"},
            "Peeta Mellark": {"at the moment when Peeta was sent as new member of squad 451 by president Coin": "3-18"},
            "Gale Hawthorne": {
                "at the moment when Katniss delivered the animals she caught before the Victory Tour": "2-1",
                "at the first conversation about the bombing of district 12 with Katniss": "3-1"},
        })),
}

# Harry Potter: the same four moments of every school year (Appendix F), book n = year n.
_HP_DAYS: dict[str, tuple[str, ...]] = {
    "on the 1st of september": ("1-6", "2-5", "3-5", "4-11", "5-10", "6-7", "7-12"),
    "on halloween": ("1-10", "2-8", "3-8", "4-16"),
    "on christmas": ("1-12", "2-12", "3-11", "4-23", "5-23", "6-16", "7-19"),
    "at the end of the scene": ("1-17", "2-18", "3-22", "4-37", "5-38", "6-30", "7-36"),
}
_NUMBERS = re.compile(r"\d+")


def series_info(series: str) -> Series | None:
    """The published series ``series`` (slug or title, any case), or None."""
    key = _norm(series)
    for slug, info in SERIES.items():
        if key in (_norm(slug), _norm(info.title)):
            return info
    return None


def period_position(series: str, character: str, period: str) -> Position | None:
    """Where a published time point falls on its series' axis; None if it cannot be placed."""
    info = series_info(series)
    if info is not None and info.title == "Harry Potter":
        year, _, day = period.partition("/")
        digits = _NUMBERS.findall(year)
        positions = _HP_DAYS.get(day.strip().lower() or "at the end of the scene")
        if digits and positions and 1 <= int(digits[0]) <= len(positions):
            return Position.parse(positions[int(digits[0]) - 1])
    if info is not None:
        found = info.periods.get(character, {}).get(_norm(period))
        if found:
            return Position.parse(found)
    numbers = _NUMBERS.findall(period)
    if 2 <= len(numbers) <= 3 and re.search(r"\d+\s*-\s*\d+", period):
        return Position.parse("-".join(numbers))
    return None


def question_position(question_period: str) -> Position | None:
    """``Book1-chapter2`` / ``1-2`` / ``1-2-10`` → a position; None when there is none."""
    numbers = _NUMBERS.findall(question_period or "")
    return Position.parse("-".join(numbers[:3])) if numbers else None


def time_label(series: str, period: str, position: Position | None) -> str:
    """How a role-play prompt names the moment, e.g. ``on Halloween of the 2nd year (Harry
    Potter and the Chamber of Secrets)``."""
    info = series_info(series)
    book = info.books.get(position.book or 0) if info is not None and position is not None else None
    if info is not None and info.title == "Harry Potter":
        year, _, day = (p.strip() for p in period.partition("/"))
        text = f"{day or 'at the end'} of the {year.replace('-', ' ')} at Hogwarts"
    else:
        text = period
    return f"{text} ({book})" if book else text
