"""Character cards: point-in-time Character Card V2 export and V2/V1 card import.

>>> card = build_card(store, "lanterns", "Wren Callow", "1-3")      # doctest: +SKIP
>>> write_card(card, "wren.png")                                  # doctest: +SKIP
>>> card, version = read_card("wren.png")                         # doctest: +SKIP
>>> import_card(store, card, work="wren-card")                     # doctest: +SKIP
"""

from incanon.cards.build import EXTENSION, CardOptions, build_card
from incanon.cards.files import read_card, write_card
from incanon.cards.importer import AXIS_START, CARD_POINT, ImportSummary, import_card, parse_examples
from incanon.cards.model import BookEntry, CardData, CardV2, CharacterBook, parse_card
from incanon.cards.names import USER_NAME, NameBook

__all__ = [
    "AXIS_START",
    "CARD_POINT",
    "EXTENSION",
    "USER_NAME",
    "BookEntry",
    "CardData",
    "CardOptions",
    "CardV2",
    "CharacterBook",
    "ImportSummary",
    "NameBook",
    "build_card",
    "import_card",
    "parse_card",
    "parse_examples",
    "read_card",
    "write_card",
]
